"""TCP_NODELAY on the debuggee's socket to the debug adapter.

pydevd writes each DAP response to its socket in more than one ``send`` and never sets
``TCP_NODELAY`` there (debugpy issue 2054), so Nagle's algorithm holds the tail of every
response until the adapter's delayed ACK arrives: about 40 ms on every request, whatever
it asks. Setting the option on the debuggee's side alone removes that floor; nothing
else of pydevd's behaviour changes. ``TF_DEBUG_REPR_NODELAY=0`` leaves the socket alone.

Every pydevd connection (launch, ``--listen``/``debugpy.listen()``, ``connect``, the
in-process adapter) hands its socket to one ``WriterThread``: its constructor is wrapped,
and a connection made before the plugin was loaded is tuned at once.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

from ...core.patching import patch_once
from ...core.settings import switch_on

ENV = "TF_DEBUG_REPR_NODELAY"


def enabled() -> bool:
    return switch_on(ENV, default=True)


def set_nodelay(sock: Any) -> bool:
    """Set TCP_NODELAY on a TCP socket; anything else (None, pydevd's NULL) is left alone."""
    if not isinstance(sock, socket.socket) or sock.type != socket.SOCK_STREAM:
        return False
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return False
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        return False
    return True


def _nodelay_init(original: Any) -> Any:
    def __init__(self, sock, *args, **kwargs):
        set_nodelay(sock)
        original(self, sock, *args, **kwargs)

    return __init__


def install() -> bool:
    """Tune pydevd's current and future sockets to the adapter. Never imports pydevd:
    does nothing unless pydevd is loaded (the plugin is only loaded by pydevd)."""
    if not enabled():
        return False
    comm = sys.modules.get("_pydevd_bundle.pydevd_comm")
    writer_class = getattr(comm, "WriterThread", None)
    if writer_class is None:
        return False
    patch_once(writer_class, "__init__", _nodelay_init)
    # A connection made before this module was loaded (the plugin loaded late).
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    get_debugger = getattr(constants, "get_global_debugger", None)
    py_db = get_debugger() if get_debugger is not None else None
    set_nodelay(getattr(getattr(py_db, "writer", None), "sock", None))
    return True
