"""Fixtures shared by the e2e tests of one host."""

import pytest


@pytest.fixture
def kernel():
    """A real ipykernel driven by jupyter_client (tests/e2e/test_jupyter.py's ``Kernel``)."""
    from .test_jupyter import Kernel

    k = Kernel()
    yield k
    k.close()
