"""Pure text helpers: numbers, shapes, devices, warnings, sparklines."""

import numpy as np

from tf_debug_repr.core import formatting as fmt
from tf_debug_repr.core.stats import Stats


def test_numbers_are_short_and_exact_looking():
    assert fmt.number(3) == "3"
    assert fmt.number(np.int64(-7)) == "-7"
    assert fmt.number(0.1234567) == "0.1235"
    assert fmt.number(1234567.0) == "1.235e6"
    assert fmt.number(0.00001234) == "1.234e-5"
    assert fmt.number(0.0) == "0"
    assert fmt.number(float("nan")) == "NaN"
    assert fmt.number(float("-inf")) == "-Inf"
    assert fmt.number(True) == "True"
    assert fmt.number(1 - 2j) == "1-2j"
    assert fmt.number(None) == "?"


def test_shapes_and_devices():
    assert fmt.shape_text([2, 3]) == "[2, 3]"
    assert fmt.shape_text([None, 3]) == "[None, 3]"
    assert fmt.shape_text([]) == "[]"
    assert fmt.device_text("/job:localhost/replica:0/task:0/device:GPU:1") == "GPU:1"
    assert fmt.device_text("/job:worker/replica:0/task:3/device:CPU:0") == "worker:3/CPU:0"
    assert fmt.device_text("") == ""


def test_bad_values_stand_out_and_sampled_figures_say_so():
    stats = Stats(size=10, category="float", min=0.0, max=1.0, mean=0.5, std=0.1, nan=2, neginf=1)
    assert fmt.bad_values_text(stats) == "‼ NaN×2 -Inf×1"
    assert fmt.stats_text(stats) == "n=10 x∈[0, 1] μ=0.5 σ=0.1"
    sampled = Stats(
        size=10**6,
        category="float",
        min=-1.0,
        max=1.0,
        mean=0.0,
        std=1.0,
        moments_sample=65536,
        moments_stride=16,
    )
    assert fmt.stats_text(sampled) == "n=1,000,000 x∈[-1, 1] μ≈0 σ≈1"
    assert fmt.bad_values_text(Stats(size=3, category="float")) == ""
    assert fmt.stats_text(Stats(size=0, category="float")) == "empty"


def test_inline_values_and_clipping():
    assert fmt.inline_values(np.array([[1, 2], [3, 4]])) == "[[1, 2], [3, 4]]"
    assert fmt.inline_values(np.array([b"a", b"bc"], dtype=object)) == "[b'a', b'bc']"
    long = fmt.clip("x" * 500)
    assert len(long) == fmt.MAX_SUMMARY_CHARS and long.endswith("…")
    assert fmt.clip("a\nb   c") == "a b c"


def test_sparkline_marks_bad_entries():
    assert fmt.sparkline([0.0, 1.0, 2.0, 3.0]) == "▁▃▆█"
    assert fmt.sparkline([1.0, float("nan"), 1.0]) == "▅!▅"
    assert fmt.sparkline([float("inf")]) == "!"


def _render_every_step(parts, limit=fmt.MAX_SUMMARY_CHARS, reserve=40):
    """``render`` as it was before its short-line shortcut: every drop and shrink run."""
    kept = [fmt.Part(" ".join(p.text.split()), p.priority, p.shrink) for p in parts]
    kept = [p for p in kept if p.text]
    fmt._drop(kept, limit, fmt.VALUES)
    fmt._shrink(kept, limit - reserve, fmt.NAME_FLOOR)
    fmt._drop(kept, limit, fmt.FIGURES)
    fmt._shrink(kept, limit, 8)
    return fmt.clip(fmt.join(p.text for p in kept), limit)


def test_render_gives_every_line_what_every_drop_and_shrink_gave():
    """A line short enough skips the drops and shrinks (each a no-op there): the same
    text for lines around every threshold (the limit, the limit less the reserve), with
    runs of whitespace, empty parts, long names and every priority."""
    rng = np.random.default_rng(27)
    words = ["x∈[0, 1]", "μ=0.5", "σ=0.29", "float32[1000000]", "", "  two  spaces ", "‼ NaN×3"]
    checked = short = 0
    for _ in range(3000):
        parts = []
        for _ in range(int(rng.integers(1, 12))):
            long_name = rng.random() < 0.2
            text = "n" * int(rng.integers(1, 200)) if long_name else str(rng.choice(words))
            parts.append(fmt.Part(text, int(rng.integers(0, 5)), bool(rng.random() < 0.3)))
        limit = int(rng.integers(20, 320))
        reserve = int(rng.choice([0, 10, 40]))
        expected = _render_every_step(parts, limit, reserve)
        assert fmt.render(parts, limit, reserve) == expected, (parts, limit, reserve)
        checked += 1
        short += len(expected) <= limit - reserve
    assert checked == 3000 and 500 < short < 2900  # both paths taken many times
