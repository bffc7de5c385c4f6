"""Benchmark-only (``benchmarks/profile_stop.py`` puts this folder on the debuggee's
``PYTHONPATH``): times, and with ``TFDR_PROFILE_MODE=sample`` samples, each DAP
``variables`` and ``evaluate`` request where pydevd answers it, on the suspended thread.

cProfile records nothing there: pydevd answers from inside its trace function, where the
interpreter sends no profile events. A sampler thread reads the answering thread's stack
(``sys._current_frames``) every ~0.2 ms instead, with the switch interval lowered to
match while a request runs.

Nothing is imported here at start-up but the standard library: a finder on
``sys.meta_path`` waits for pydevd's ``_pydevd_bundle.pydevd_api`` (which calls
``internal_get_variable_json`` and ``internal_evaluate_expression_json`` by their global
names) and for the plugin's adapter, and wraps them once they are loaded. Each request
writes ``<seq>.json`` (its wall time, the time inside the plugin's provider methods, how
many calls each took) and, when sampling, its samples (inclusive and own counts per
function) into ``TFDR_PROFILE_DIR``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
import threading
import time
from typing import Any

OUT = os.environ.get("TFDR_PROFILE_DIR")
MODE = os.environ.get("TFDR_PROFILE_MODE", "time")
_state: dict[str, Any] = {"seq": 0, "in": {}, "calls": {}, "depth": 0}
_lock = threading.Lock()


def _request_wrapper(name: str, original: Any) -> Any:
    def wrapped(py_db: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        with _lock:
            _state["seq"] += 1
            seq = _state["seq"]
        _state["in"], _state["calls"] = {}, {}
        sampler = _Sampler(threading.get_ident()) if MODE == "sample" else None
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(py_db, request, *args, **kwargs)
        finally:
            took, cpu = time.perf_counter() - start, time.thread_time() - cpu
            samples = sampler.stop() if sampler is not None else None
            try:
                arguments = getattr(request, "arguments", None)
                what = {
                    k: getattr(arguments, k, None)
                    for k in ("variablesReference", "expression", "context")
                }
                what["variablesReference"] = str(what["variablesReference"])
            except Exception as exc:  # noqa: BLE001
                what = {"error": repr(exc)}
            record = {
                "seq": seq,
                "request": name,
                "args": what,
                "ms": took * 1e3,
                "cpu_ms": cpu * 1e3,  # this thread's CPU time: the rest was waiting
                "plugin_ms": {k: v * 1e3 for k, v in _state["in"].items()},
                "plugin_calls": dict(_state["calls"]),
                "samples": samples,
            }
            with open(os.path.join(OUT or ".", f"{seq:04d}.json"), "w") as out:
                json.dump(record, out)

    wrapped.__wrapped__ = original  # type: ignore[attr-defined]
    return wrapped


class _Sampler:
    """Samples one thread's stack from another until stopped."""

    def __init__(self, ident: int) -> None:
        self.ident = ident
        self.total = 0
        self.inclusive: dict[str, int] = {}
        self.own: dict[str, int] = {}
        self.done = threading.Event()
        self.interval = sys.getswitchinterval()
        sys.setswitchinterval(0.0002)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.is_set():
            frame = sys._current_frames().get(self.ident)
            if frame is not None:
                self.total += 1
                seen = set()
                leaf = True
                while frame is not None:
                    code = frame.f_code
                    key = f"{code.co_filename.split('site-packages/')[-1]}:{code.co_name}"
                    if leaf:
                        self.own[key] = self.own.get(key, 0) + 1
                        leaf = False
                    if key not in seen:
                        seen.add(key)
                        self.inclusive[key] = self.inclusive.get(key, 0) + 1
                    frame = frame.f_back
            time.sleep(0.0002)

    def stop(self) -> dict[str, Any]:
        self.done.set()
        self.thread.join()
        sys.setswitchinterval(self.interval)
        return {"total": self.total, "inclusive": self.inclusive, "own": self.own}


def _method_wrapper(label: str, original: Any) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        outer = _state["depth"] == 0
        _state["depth"] += 1
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _state["depth"] -= 1
            took = time.perf_counter() - start
            _state["calls"][label] = _state["calls"].get(label, 0) + 1
            if outer:  # nested provider calls are inside their caller's time
                _state["in"][label] = _state["in"].get(label, 0.0) + took

    return wrapped


def _patch_pydevd_api(module: Any) -> None:
    for name in ("internal_get_variable_json", "internal_evaluate_expression_json"):
        original = getattr(module, name, None)
        if original is not None:
            setattr(module, name, _request_wrapper(name, original))


def _patch_adapter(module: Any) -> None:
    for cls_name, methods in (
        ("TensorResolveProvider", ("can_provide", "get_contents_debug_adapter_protocol")),
        ("TensorStrProvider", ("can_provide", "get_str", "get_str_in_context")),
    ):
        cls = getattr(module, cls_name)
        for method in methods:
            label = f"{cls_name}.{method}"
            setattr(cls, method, _method_wrapper(label, getattr(cls, method)))


_TARGETS = {
    "_pydevd_bundle.pydevd_api": _patch_pydevd_api,
    "tf_debug_repr.hosts.pydevd.adapter": _patch_adapter,
}


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: Any, patch: Any) -> None:
        self.inner, self.patch = inner, patch

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.inner.exec_module(module)
        self.patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        patch = _TARGETS.get(fullname)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, patch)
        return spec


if OUT:
    sys.meta_path.insert(0, _Finder())
