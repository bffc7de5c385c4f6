"""A user's own objects, held by every real program, whose properties count their reads:
``probe`` (a plain class) and ``module_probe`` (a ``tf.Module`` with its own ``device`` and
``shape``, a user class that looks tensor-like). At exit the counts go, as JSON, to the file
named by ``REAL_PROBE_OUT`` (when set; the process's CPU seconds beside it): the suite compares them between stock debugpy and the
plugin, which must call user code no more than stock does. Nothing is printed."""

import atexit
import json
import os
import time

import tensorflow as tf

READS: dict[str, int] = {}


def _read(name: str) -> None:
    READS[name] = READS.get(name, 0) + 1


class Probe:
    """A plain user class with computed properties."""

    def __init__(self) -> None:
        self.label = "probe"

    @property
    def learning_rate(self) -> float:
        _read("Probe.learning_rate")
        return 0.001

    @property
    def history(self) -> list[int]:
        _read("Probe.history")
        return [1, 2, 3]


class ModuleProbe(tf.Module):
    """A tf.Module whose own properties are named like a tensor's."""

    def __init__(self) -> None:
        super().__init__(name="module_probe")
        self.scale = 2.0

    @property
    def device(self) -> str:
        _read("ModuleProbe.device")
        return "/cpu:0"

    @property
    def shape(self) -> tuple[int, int]:
        _read("ModuleProbe.shape")
        return (2, 3)

    @property
    def units(self) -> int:
        _read("ModuleProbe.units")
        return 6


def _write() -> None:
    path = os.environ.get("REAL_PROBE_OUT")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(READS, out)
        with open(path + ".cpu", "w", encoding="utf-8") as out:  # the suite's cost figures
            out.write(str(time.process_time()))


atexit.register(_write)
probe = Probe()
module_probe = ModuleProbe()
