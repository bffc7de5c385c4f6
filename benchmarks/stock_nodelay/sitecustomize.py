"""Benchmark-only (``training_session.py --stock-nodelay`` puts this folder on the
debuggee's ``PYTHONPATH``, with the plugin off): stock debugpy with ``TCP_NODELAY`` on the
debuggee's socket to the adapter, as debugpy's own fix would set it (issue 27 asks for
stock measured with the same transport tuning as the plugin's). Only the standard library:
a finder on ``sys.meta_path`` waits for ``_pydevd_bundle.pydevd_comm`` and wraps its
``WriterThread.__init__`` (which every connection's socket goes through) once it is loaded.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import socket
import sys
from typing import Any

TARGET = "_pydevd_bundle.pydevd_comm"


def _nodelay(sock: Any) -> None:
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass


def _patch(module: Any) -> None:
    writer = getattr(module, "WriterThread", None)
    if writer is None or getattr(writer, "_bench_nodelay", False):
        return
    original = writer.__init__

    def __init__(self: Any, sock: Any, *args: Any, **kwargs: Any) -> None:
        _nodelay(sock)
        original(self, sock, *args, **kwargs)

    writer.__init__ = __init__
    writer._bench_nodelay = True


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_and_patch(module: Any) -> None:
            exec_module(module)
            _patch(module)

        loader.exec_module = exec_and_patch  # type: ignore[method-assign]
        return spec


if TARGET in sys.modules:
    _patch(sys.modules[TARGET])
else:
    sys.meta_path.insert(0, _Finder())
