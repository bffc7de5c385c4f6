"""Pure parts of the transport work: the socket option, the client flag, the capture switch."""

from __future__ import annotations

import socket

import pytest

from tf_debug_repr.gradients import capture as gradient_capture
from tf_debug_repr.hosts.pydevd import client as debugger_client
from tf_debug_repr.hosts.pydevd import socket_tuning


def test_set_nodelay_on_a_connected_tcp_socket_only():
    server = socket.create_server(("127.0.0.1", 0))
    with server, socket.create_connection(server.getsockname()) as sock:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
        assert socket_tuning.set_nodelay(sock)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    left, right = socket.socketpair()  # AF_UNIX: no such option, left alone
    with left, right:
        assert not socket_tuning.set_nodelay(left)
    assert not socket_tuning.set_nodelay(None)


@pytest.mark.parametrize(("value", "on"), [(None, True), ("1", True), ("0", False), ("off", False)])
def test_nodelay_switch(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv(socket_tuning.ENV, raising=False)
    else:
        monkeypatch.setenv(socket_tuning.ENV, value)
    assert socket_tuning.enabled() is on


def test_nothing_to_tune_or_hook_without_pydevd():
    # The unit-test process has no pydevd: both installs decline without importing it.
    import sys

    assert "_pydevd_bundle.pydevd_comm" not in sys.modules
    assert not socket_tuning.install()
    assert not debugger_client.install()
    assert "_pydevd_bundle.pydevd_comm" not in sys.modules


def test_callbacks_wait_for_the_first_client(monkeypatch):
    monkeypatch.setattr(debugger_client, "_seen", False)
    monkeypatch.setattr(debugger_client, "_callbacks", [])
    calls = []
    debugger_client.when_connected(lambda: calls.append("early"))
    assert not debugger_client.connected() and calls == []
    debugger_client.mark_seen()
    debugger_client.mark_seen()  # once only
    assert debugger_client.connected() and calls == ["early"]
    debugger_client.when_connected(lambda: calls.append("late"))  # already seen: at once
    assert calls == ["early", "late"]


def test_a_failing_callback_does_not_stop_the_others(monkeypatch, capsys):
    monkeypatch.setattr(debugger_client, "_seen", False)
    monkeypatch.setattr(debugger_client, "_callbacks", [])
    calls = []
    debugger_client.when_connected(lambda: 1 / 0)
    debugger_client.when_connected(lambda: calls.append("ran"))
    debugger_client.mark_seen()
    assert calls == ["ran"]
    assert "ZeroDivisionError" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "mode"),
    [(None, "auto"), ("", "auto"), ("auto", "auto"), ("1", "on"), ("ON", "on"), ("0", "off")],
)
def test_capture_switch(value, mode):
    assert gradient_capture._parse_mode(value) == mode
