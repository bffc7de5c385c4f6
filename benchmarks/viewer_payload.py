"""The tensor viewer's payload (``tf_debug_repr.view_payload``) against the naive way a
viewer would get the same picture, measured in the same run on the same tensors.

Naive: copy the whole tensor to the host (``.numpy()``), ``np.histogram`` of its finite
values, base64 of the full-resolution float32 2-D slice shown (and, for an image batch, of
the full-resolution RGBA grid of the images shown), as JSON.

For each value: build time (median of N; ``view`` on a fresh tensor handle, so the
plugin's cached figures are not reused: the first view of a value), encoded size (the
string ``evaluate`` returns), and peak extra resident memory during one call (the
kernel's high-water mark, reset before each call through ``/proc/self/clear_refs``).

    .venv/bin/python benchmarks/viewer_payload.py [--reps 5] [--quick]

About three minutes on a 2-core machine (``--quick``: the values up to 10^6, seconds).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import sys
import time
from collections.abc import Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402


def _status(field: str) -> int:
    """A ``/proc/self/status`` figure in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def peak_extra(fn: Callable[[], object]) -> int:
    """Bytes of resident memory ``fn`` added at its peak (Linux: the high-water mark is
    reset first)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    before = _status("VmRSS")
    result = fn()
    peak = _status("VmHWM")
    del result
    return max(0, peak - before)


def median_time(fn: Callable[[], object], reps: int, fresh: Callable[[], object]) -> float:
    """Median seconds of ``fn(fresh())`` (``fresh`` outside the timing)."""
    times = []
    for _ in range(reps):
        arg = fresh()
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def naive(tensor, image_layout: str | None) -> str:
    """What a viewer without the payload builder would do."""
    array = tensor.numpy()  # the whole tensor to the host
    finite = array[np.isfinite(array)]
    counts, edges = np.histogram(finite, bins=64)
    shown = array
    while shown.ndim > 2:  # the 2-D slice the viewer shows first
        shown = shown[0] if image_layout is None or shown.ndim > 3 else shown[..., 0]
    out = {
        "counts": counts.tolist(),
        "edges": edges.tolist(),
        "values": base64.b64encode(shown.astype(np.float32).tobytes()).decode("ascii"),
    }
    if image_layout == "NHWC":  # the images shown, full size, as RGBA bytes
        batch = array[:64].astype(np.float32)
        low, high = float(finite.min()), float(finite.max())
        pixels = ((batch - low) / max(high - low, 1e-30) * 255).clip(0, 255).astype(np.uint8)
        if pixels.shape[-1] == 1:
            pixels = np.repeat(pixels, 3, axis=-1)
        if pixels.shape[-1] == 3:
            alpha = np.full(pixels.shape[:-1] + (1,), 255, np.uint8)
            pixels = np.concatenate([pixels, alpha], axis=-1)
        out["rgba"] = base64.b64encode(pixels.tobytes()).decode("ascii")
    return json.dumps(out)


def cases(quick: bool):
    """(label, make tensor) pairs; made one at a time to keep memory low."""
    import tensorflow as tf

    rng = np.random.default_rng(0)

    def normal(shape):
        return lambda: tf.constant(rng.standard_normal(shape, dtype=np.float32))

    def images(shape):
        return lambda: tf.constant(rng.random(shape, dtype=np.float32))

    plain = [(32, 32), (100, 100), (316, 316), (1000, 1000), (4000, 4000)]
    batches = [
        (1, 18, 18, 3),
        (4, 28, 28, 3),
        (32, 32, 32, 3),
        (16, 128, 128, 3),
        (64, 256, 256, 4),
    ]
    for shape in plain[: 4 if quick else 5]:
        yield f"float32{list(shape)}", normal(shape), None
    for shape in batches[: 4 if quick else 5]:
        yield f"float32{list(shape)} images", images(shape), "NHWC"
    if quick:
        return
    yield (
        "int8[8192, 8192] (2^26)",
        lambda: tf.constant(rng.integers(-128, 128, (8192, 8192), dtype=np.int8)),
        None,
    )
    yield "MLP 25.2M params: largest kernel", largest_kernel, None


def largest_kernel():
    """The largest weight of benchmarks/big_model_capture.py's Keras MLP (25.2M params)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from big_model_capture import build

    model, _ = build()
    return max(model.weights, key=lambda w: int(np.prod(w.shape)))


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def measure(label: str, value, layout: str | None, reps: int) -> dict:
    """One value's figures, the payload's and the naive way's."""
    import tensorflow as tf

    import tf_debug_repr

    n = int(np.prod(value.shape))
    reps = reps if n <= 2_000_000 else max(3, reps // 2 + 1)
    tensor = value.read_value() if hasattr(value, "read_value") else value

    def fresh():  # a new handle on the same values: the cached figures do not apply
        return value if hasattr(value, "read_value") else tf.identity(value)

    def view(v):
        return tf_debug_repr.view_payload(v)

    def plain(_):
        return naive(tensor, layout)

    view(fresh())  # warm-up (imports, kernels)
    plain(None)
    view_s = median_time(view, reps, fresh)
    naive_s = median_time(plain, reps, lambda: None)
    return {
        "value": label,
        "n": n,
        "view_ms": view_s * 1000,
        "naive_ms": naive_s * 1000,
        "time_ratio": naive_s / view_s,
        "view_bytes": len(view(fresh())),
        "naive_bytes": len(plain(None)),
        "view_rss": peak_extra(lambda: view(fresh())),
        "naive_rss": peak_extra(lambda: plain(None)),
        "reps": reps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="timed calls per value and way")
    parser.add_argument("--quick", action="store_true", help="values up to 10^6 elements")
    args = parser.parse_args()

    rows = []
    print(
        f"{'value':36} {'n':>12} {'view ms':>9} {'naive ms':>9} {'ratio':>6} "
        f"{'view size':>10} {'naive size':>10} {'view RSS+':>10} {'naive RSS+':>10}"
    )
    for label, make, layout in cases(args.quick):
        row = measure(label, make(), layout, args.reps)
        rows.append(row)
        print(
            f"{label:36} {row['n']:>12,} {row['view_ms']:>9.1f} {row['naive_ms']:>9.1f} "
            f"{row['time_ratio']:>5.1f}x {fmt_bytes(row['view_bytes']):>10} "
            f"{fmt_bytes(row['naive_bytes']):>10} {fmt_bytes(row['view_rss']):>10} "
            f"{fmt_bytes(row['naive_rss']):>10}",
            flush=True,
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
