"""The IDE's side of pydevd's own line protocol, the one PyCharm and PyDev speak.

The IDE listens; the program runs under ``python -m pydevd --client HOST --port N --file
prog.py`` and connects to it. Each message is one line ``cmd_id<TAB>seq<TAB>text``; pydevd
URL-quotes ``text`` (and, inside its XML, each name and value once more). Requests carry
odd sequence numbers and pydevd answers with the same one. Command numbers are those of
``_pydevd_bundle/pydevd_comm_constants.py``.
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import unquote

CMD_RUN = 101
CMD_THREAD_CREATE = 103
CMD_THREAD_SUSPEND = 105
CMD_THREAD_RUN = 106
CMD_GET_VARIABLE = 110
CMD_SET_BREAK = 111
CMD_EVALUATE_EXPRESSION = 113
CMD_GET_FRAME = 114
CMD_VERSION = 501
CMD_ERROR = 901

REASON_BREAKPOINT = "111"


@dataclass
class XmlVar:
    """One ``<var>`` of an answer, its name and value unquoted."""

    name: str
    type: str
    value: str
    is_container: bool

    @property
    def shown(self) -> str:
        """The value without the ``type: `` prefix pydevd puts on values no string
        provider gave (PyCharm shows the type in its own column)."""
        prefix = f"{self.type}: "
        return self.value[len(prefix) :] if self.value.startswith(prefix) else self.value


class PydevdError(RuntimeError):
    pass


class PydevdXmlClient:
    """``pycharm=True`` speaks the dialect of PyCharm's fork of pydevd (the PyPI package
    ``pydevd-pycharm``): frame and variable requests carry a variables-group number (0:
    the ordinary variables) after the scope."""

    def __init__(self, timeout: float = 90.0, pycharm: bool = False) -> None:
        self.timeout = timeout
        self._group = "\t0" if pycharm else ""
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._seq = -1
        self._messages: queue.Queue[tuple[int, int, str]] = queue.Queue()
        self._pending: list[tuple[int, int, str]] = []
        self._sock: socket.socket | None = None
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []

    # ------------------------------------------------------------------ session

    def start(self, program: str, lines: list[int], env: dict | None = None) -> tuple[str, str]:
        """Run ``program`` under pydevd to the first of ``lines``; (thread id, frame id)."""
        program = os.path.realpath(program)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pydevd", "--client", "127.0.0.1", "--port", str(self.port)]
            + ["--file", program],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, **(env or {})},
        )
        threading.Thread(target=self._drain_output, daemon=True).start()
        self._listener.settimeout(self.timeout)
        self._sock, _ = self._listener.accept()
        self._sock.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()
        # "ID": breakpoints are given by id, as PyCharm does.
        self.request(CMD_VERSION, "1.1\tUNIX\tID")
        for number, line in enumerate(lines, start=1):
            # id, type, file, line, function (None: any), condition, expression,
            # hit condition, is logpoint, suspend policy
            self.send(
                CMD_SET_BREAK,
                f"{number}\tpython-line\t{program}\t{line}\tNone\tNone\tNone\tNone\tFalse\tALL",
            )
        self.send(CMD_RUN, "")
        return self.wait_for_stop()

    def wait_for_stop(self) -> tuple[str, str]:
        while True:
            _, _, text = self.wait_for(CMD_THREAD_SUSPEND)
            thread = ET.fromstring(text).find("thread")
            if thread is not None and thread.get("stop_reason") == REASON_BREAKPOINT:
                frame = thread.find("frame")
                assert frame is not None, text
                return thread.get("id", ""), frame.get("id", "")

    def resume(self, thread_id: str) -> tuple[str, str]:
        """CMD_THREAD_RUN (Resume), then wait for the next breakpoint's stop."""
        self.send(CMD_THREAD_RUN, thread_id)
        return self.wait_for_stop()

    def close(self) -> None:
        for closing in (self._sock, self._listener):
            if closing is not None:
                try:
                    closing.close()
                except OSError:
                    pass
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait(timeout=30)

    # ------------------------------------------------------------------ requests

    def frame_vars(self, thread_id: str, frame_id: str) -> dict[str, XmlVar]:
        """CMD_GET_FRAME: the frame's variables (the Variables view's top level)."""
        return self._vars(
            self.request(CMD_GET_FRAME, f"{thread_id}\t{frame_id}\tFRAME{self._group}")
        )

    def children(self, thread_id: str, frame_id: str, path: list[str]) -> dict[str, XmlVar]:
        """CMD_GET_VARIABLE: the children of the value at ``path`` (a local's name, then
        child names), as PyCharm asks when a node is expanded."""
        attrs = "\t".join(p.replace("\t", "@_@TAB_CHAR@_@") for p in path)
        return self._vars(
            self.request(CMD_GET_VARIABLE, f"{thread_id}\t{frame_id}\tFRAME{self._group}\t{attrs}")
        )

    def evaluate(self, thread_id: str, frame_id: str, expression: str) -> XmlVar:
        """CMD_EVALUATE_EXPRESSION (the Watches view and the Evaluate dialog)."""
        answer = self.request(
            CMD_EVALUATE_EXPRESSION, f"{thread_id}\t{frame_id}\tLOCAL\t{expression}\t1"
        )
        (var,) = self._vars(answer).values()
        return var

    # ------------------------------------------------------------------ wire

    def send(self, cmd_id: int, text: str) -> int:
        assert self._sock is not None
        self._seq += 2
        self._sock.sendall(f"{cmd_id}\t{self._seq}\t{text}\n".encode())
        return self._seq

    def request(self, cmd_id: int, text: str) -> str:
        seq = self.send(cmd_id, text)
        got_id, _, answer = self._wait(lambda m: m[1] == seq)
        if got_id == CMD_ERROR:
            raise PydevdError(answer)
        assert got_id == cmd_id, (got_id, answer)
        return answer

    def wait_for(self, cmd_id: int) -> tuple[int, int, str]:
        return self._wait(lambda m: m[0] == cmd_id)

    def _wait(self, matches) -> tuple[int, int, str]:
        for i, message in enumerate(self._pending):
            if matches(message):
                return self._pending.pop(i)
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from pydevd; output:\n" + "".join(self.output[-40:]))
            try:
                message = self._messages.get(timeout=left)
            except queue.Empty:
                continue
            if matches(message):
                return message
            self._pending.append(message)

    def _read(self) -> None:
        assert self._sock is not None
        buffer = b""
        while True:
            try:
                data = self._sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                cmd_id, seq, text = line.decode("utf-8").split("\t", 2)
                self._messages.put((int(cmd_id), int(seq), unquote(text)))

    def _drain_output(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    @staticmethod
    def _vars(text: str) -> dict[str, XmlVar]:
        found = {}
        for var in ET.fromstring(text).iter("var"):
            name = unquote(var.get("name", ""))
            found[name] = XmlVar(
                name=name,
                type=var.get("type", ""),
                value=unquote(var.get("value", "")),
                is_container=var.get("isContainer") == "True",
            )
        return found
