"""A small Debug Adapter Protocol client that drives a real ``python -m debugpy.adapter``
the way VS Code does: initialize, launch/attach, breakpoints, configurationDone, then
stackTrace/scopes/variables/evaluate. Used by the end-to-end tests, the demo and the
benchmark.
"""

from __future__ import annotations

import io
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, Any, Union

# the adapter's stdio pipes, or a socket's file (attach with ``connect``)
_Stream = Union[IO[bytes], io.BufferedIOBase]  # runtime alias: no `X | Y` on Python 3.9

DEFAULT_TIMEOUT = 90.0


class DapError(RuntimeError):
    pass


@dataclass
class Variable:
    name: str
    value: str
    type: str
    reference: int
    evaluate_name: str | None
    raw: dict


class DapClient:
    """One debugpy adapter process spoken to over stdio."""

    def __init__(
        self,
        python: str = sys.executable,
        env: dict[str, str] | None = None,
        log_dir: str | None = None,
        connect: tuple[str, int] | None = None,
    ):
        """Start ``python -m debugpy.adapter`` and speak to it over stdio; or, with
        ``connect=(host, port)``, speak to the adapter that ``python -m debugpy --listen``
        runs inside a debuggee (what VS Code does for an attach with ``connect``)."""
        self.python = python
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        if connect is None:
            adapter_env = dict(os.environ if env is None else env)
            if log_dir:
                adapter_env["DEBUGPY_LOG_DIR"] = log_dir
            self.proc = subprocess.Popen(
                [python, "-m", "debugpy.adapter"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=adapter_env,
            )
            assert self.proc.stdin is not None and self.proc.stdout is not None  # PIPEs
            self._out: _Stream = self.proc.stdin
            self._in: _Stream = self.proc.stdout
        else:
            self.sock = socket.create_connection(connect, timeout=DEFAULT_TIMEOUT)
            self.sock.settimeout(None)
            self._out = self._in = self.sock.makefile("rwb")
        self._seq = 0
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._responses: dict[int, queue.Queue] = {}
        self.events: queue.Queue = queue.Queue()
        # Each message's place in the stream, so that a response can tell which events came
        # before it (``resume``).
        self._arrivals = 0
        self.output: list[str] = []
        self.stdout: list[str] = []  # the program's standard output alone
        self.terminal_procs: list[subprocess.Popen] = []
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ wire
    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        with self._write_lock:
            self._out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self._out.flush()

    def _read_message(self) -> dict | None:
        stream = self._in
        length = None
        while True:
            line = stream.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            key, _, value = line.decode().partition(":")
            if key.lower() == "content-length":
                length = int(value)
        if length is None:
            return None
        return json.loads(stream.read(length))

    def _read_loop(self) -> None:
        while True:
            try:
                message = self._read_message()
            except Exception:
                message = None
            if message is None:
                self.events.put({"type": "event", "event": "_closed"})
                for q in list(self._responses.values()):
                    q.put({"success": False, "message": "adapter closed"})
                return
            kind = message.get("type")
            self._arrivals += 1
            message["_arrival"] = self._arrivals
            if kind == "response":
                waiting = self._responses.get(message["request_seq"])
                if waiting is not None:
                    waiting.put(message)
            elif kind == "event":
                body = message.get("body") or {}
                # a telemetry event ("ptvsd", "debugpy", no newline) is no program output:
                # clients do not show it, and it would run into the program's first line
                if message["event"] == "output" and body.get("category") != "telemetry":
                    self.output.append(body.get("output", ""))
                    if body.get("category") == "stdout":
                        # apart: a line the program prints in several writes is not cut
                        # by a stderr line that arrived between them
                        self.stdout.append(body.get("output", ""))
                self.events.put(message)
            elif kind == "request":
                self._answer_reverse_request(message)

    def _answer_reverse_request(self, message: dict) -> None:
        # VS Code answers runInTerminal by starting the command in its terminal.
        if message["command"] == "runInTerminal":
            args = message["arguments"]
            env = dict(os.environ)
            env.update({k: v for k, v in (args.get("env") or {}).items() if v is not None})
            proc = subprocess.Popen(
                args["args"],
                cwd=args.get("cwd") or None,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            self.terminal_procs.append(proc)
            body = {"processId": proc.pid}
            success = True
        else:
            body, success = {}, False
        with self._lock:
            self._seq += 1
            seq = self._seq
        self._send(
            {
                "seq": seq,
                "type": "response",
                "request_seq": message["seq"],
                "command": message["command"],
                "success": success,
                "body": body,
            }
        )

    # ------------------------------------------------------------------ requests
    def send_request(self, command: str, arguments: dict | None = None) -> queue.Queue:
        with self._lock:
            self._seq += 1
            seq = self._seq
            q: queue.Queue = queue.Queue()
            self._responses[seq] = q
        self._send(
            {"seq": seq, "type": "request", "command": command, "arguments": arguments or {}}
        )
        return q

    def wait_response(self, q: queue.Queue, command: str, timeout: float = DEFAULT_TIMEOUT) -> dict:
        return self._response(q, command, timeout).get("body") or {}

    def _response(self, q: queue.Queue, command: str, timeout: float) -> dict:
        """The whole successful response message (its ``_arrival`` included)."""
        try:
            response = q.get(timeout=timeout)
        except queue.Empty:
            raise DapError(f"no response to {command} within {timeout}s") from None
        if not response.get("success"):
            raise DapError(f"{command} failed: {response.get('message')} {response.get('body')}")
        return response

    def request(
        self, command: str, arguments: dict | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> dict:
        return self.wait_response(self.send_request(command, arguments), command, timeout)

    def resume(self, thread_id: int, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Continue, and forget the stops that came before the answer: they are the stop being
        left. pydevd sends ``continued`` then ``stopped`` again for the same stop when resolving
        a variable's children takes over 3 s (it lets the other threads run meanwhile); taken for
        a new stop, such a ``stopped`` event has a client continue a running thread, whose answer
        then waits for the next resume."""
        q = self.send_request("continue", {"threadId": thread_id})
        answered = self._response(q, "continue", timeout).get("_arrival", 0)
        stale = {"stopped", "continued"}
        with self.events.mutex:
            kept = [
                e
                for e in self.events.queue
                if not (e.get("event") in stale and e.get("_arrival", 0) < answered)
            ]
            self.events.queue.clear()
            self.events.queue.extend(kept)

    def wait_event(self, name: str, timeout: float = DEFAULT_TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DapError(
                    f"no {name} event within {timeout}s; output so far:\n{''.join(self.output)[-3000:]}"
                )
            try:
                event = self.events.get(timeout=remaining)
            except queue.Empty:
                continue
            if event["event"] == name:
                return event.get("body") or {}
            if event["event"] == "_closed":
                raise DapError(
                    f"adapter closed while waiting for {name}; output:\n{''.join(self.output)[-3000:]}"
                )
            if event["event"] == "terminated" and name != "terminated":
                raise DapError(
                    f"debuggee terminated while waiting for {name}; output:\n{''.join(self.output)[-3000:]}"
                )

    # ------------------------------------------------------------------ session
    def start(
        self,
        config: dict,
        breakpoints: dict[str, list],
        timeout: float = DEFAULT_TIMEOUT,
    ) -> dict:
        """initialize → launch/attach → breakpoints → configurationDone → first stop."""
        self.configure(config, breakpoints, timeout=timeout)
        return self.wait_event("stopped", timeout)

    def configure(
        self,
        config: dict,
        breakpoints: dict[str, list],
        exception_filters: list[str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        """initialize → launch/attach → breakpoints and exception filters (none by
        default) → configurationDone, the program running."""
        self.request(
            "initialize",
            {
                "clientID": "vscode",
                "adapterID": "debugpy",
                "pathFormat": "path",
                "linesStartAt1": True,
                "columnsStartAt1": True,
                "supportsVariableType": True,
                "supportsRunInTerminalRequest": True,
                "supportsStartDebuggingRequest": False,
            },
        )
        pending = self.send_request(config["request"], config)
        self.wait_event("initialized", timeout)
        for path, lines in breakpoints.items():
            self.request(
                "setBreakpoints",
                {
                    "source": {"path": path},
                    # a line, or a DAP SourceBreakpoint ({"line": n, "condition": "..."})
                    "breakpoints": [n if isinstance(n, dict) else {"line": n} for n in lines],
                },
            )
        self.request("setExceptionBreakpoints", {"filters": exception_filters or []})
        self.request("configurationDone")
        self.wait_response(pending, config["request"], timeout)

    def close(self) -> None:
        try:
            if self.proc is None or self.proc.poll() is None:
                q = self.send_request("disconnect", {"terminateDebuggee": True})
                try:
                    q.get(timeout=10)
                except queue.Empty:
                    pass
        except Exception:
            pass
        if self.proc is not None:
            # The adapter exits when its stdin closes, as when VS Code ends a session;
            # left open, it lingers until the wait below times out.
            try:
                self._out.close()
            except OSError:
                pass
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        for proc in [p for p in [self.proc, *self.terminal_procs] if p is not None]:
            try:
                proc.wait(timeout=10)
            except Exception:
                proc.kill()

    # ------------------------------------------------------------------ inspection
    def top_frame(self, thread_id: int) -> dict:
        return self.request("stackTrace", {"threadId": thread_id, "startFrame": 0, "levels": 1})[
            "stackFrames"
        ][0]

    def locals_reference(self, frame_id: int) -> int:
        scopes = self.request("scopes", {"frameId": frame_id})["scopes"]
        return next(
            s["variablesReference"] for s in scopes if s["name"].lower().startswith("locals")
        )

    def variables(self, reference: int) -> list[Variable]:
        body = self.request("variables", {"variablesReference": reference})
        return [
            Variable(
                v["name"],
                v["value"],
                v.get("type", ""),
                v.get("variablesReference", 0),
                v.get("evaluateName"),
                v,
            )
            for v in body["variables"]
        ]

    def evaluate(self, expression: str, frame_id: int, context: str = "watch") -> dict:
        if not isinstance(expression, str):  # pydevd never answers an evaluate of null
            raise DapError(f"evaluate needs an expression, got {expression!r}")
        return self.request(
            "evaluate", {"expression": expression, "frameId": frame_id, "context": context}
        )


def launch_config(
    program: str, *, python: str = sys.executable, console: str = "internalConsole", **extra: Any
) -> dict:
    config = {
        "type": "debugpy",
        "request": "launch",
        "name": "test",
        "program": program,
        "console": console,
        "justMyCode": True,
        "python": [python],
        "cwd": os.path.dirname(program),
    }
    config.update(extra)
    return config


def attach_config(port: int, host: str = "127.0.0.1") -> dict:
    """VS Code's "attach" with "connect": to a program run under ``debugpy --listen``."""
    return {
        "type": "debugpy",
        "request": "attach",
        "connect": {"host": host, "port": port},
        "justMyCode": True,
    }


def line_of(path: str, marker: str) -> int:
    """The 1-based line number of the first line containing ``marker``."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if marker in line:
                return number
    raise ValueError(f"{marker!r} not found in {path}")
