"""Fixtures shared by the e2e tests of one host."""

import pytest


@pytest.fixture
def kernel():
    """A real ipykernel driven by jupyter_client (tests/e2e/test_jupyter.py's ``Kernel``)."""
    from .test_jupyter import Kernel

    k = Kernel()
    yield k
    k.close()


def pytest_configure(config):
    # pytest-xdist's mark (``--dist loadgroup`` keeps a real program's checks on one worker,
    # which runs that program once); declared here for runs without pytest-xdist.
    config.addinivalue_line("markers", "xdist_group(name): run in one pytest-xdist worker")
