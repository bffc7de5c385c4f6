"""``core.strides.prime_stride``: the one rule both samplers (the summaries' figures and a
compiled step's gradient norms) use to step through a tensor's elements, checked against a
brute-force search; and that each sampler is that rule."""

from __future__ import annotations

import math

import pytest

from tf_debug_repr.core.strides import prime_stride


def _nearest_up(stride: int, last: int) -> int:
    return next(s for s in range(max(stride, 1), stride + last + 1) if math.gcd(s, last) == 1)


def _nearest_down(stride: int, last: int, floor: int) -> int:
    return next((s for s in range(stride, floor, -1) if math.gcd(s, last) == 1), floor)


@pytest.mark.parametrize("last", [2, 3, 12, 16, 30, 64, 210, 1024, 2310])
def test_upward_it_is_the_least_stride_prime_to_the_last_dimension(last):
    for stride in range(1, 700):
        found = prime_stride(stride, last)
        assert found == _nearest_up(stride, last), (stride, last)
        assert math.gcd(found, last) == 1 and stride <= found < stride + last


@pytest.mark.parametrize("last", [2, 16, 30, 64, 300, 2310])
def test_downward_it_is_the_greatest_stride_prime_to_it_not_below_the_floor(last):
    floor = 64
    for stride in range(floor, 900):
        found = prime_stride(stride, last, floor=floor)
        assert found == _nearest_down(stride, last, floor), (stride, last)
        assert floor <= found <= stride
        assert found == floor or math.gcd(found, last) == 1


def test_a_floor_with_no_prime_stride_above_it_is_kept():
    assert prime_stride(66, 30, floor=64) == 64  # 66 and 65 share 6 and 5 with 30
    assert prime_stride(65, 10, floor=64) == 64  # the floor, though it shares 2 with 10
    assert prime_stride(64, 16, floor=64) == 64
    assert prime_stride(70, 2310, floor=64) == 67  # 2310 = 2*3*5*7*11: 70, 69, 68 share


@pytest.mark.parametrize("last", [0, 1])
def test_no_last_dimension_to_cover_leaves_the_stride_as_it_is(last):
    assert prime_stride(16, last) == 16
    assert prime_stride(128, last, floor=64) == 128


def test_both_samplers_are_this_rule():
    """The summaries' sampled figures move their stride up, a compiled gradient's sample
    step moves down to ``BLOCK`` (its last block must end inside the gradient)."""
    pytest.importorskip("tensorflow")
    from tf_debug_repr.core import stats
    from tf_debug_repr.gradients import compiled

    for size, itemsize, last in [(32 * 500 * 16, 4, 16), (10**7, 4, 30), (10**6, 2, 1)]:
        stride = stats.sampled_stride(size, itemsize, last)
        assert stride == prime_stride(stats.sampled_stride(size, itemsize), last)
        assert last <= 1 or math.gcd(stride, last) == 1
    for shape in ([512, 300], [4096, 1024], [3, 3, 64, 128], [70_000], [1000, 2310]):
        step = compiled.sample_step(shape)
        count = math.prod(shape)
        unmoved = count // (compiled.SAMPLE // compiled.BLOCK)
        assert step == prime_stride(unmoved, shape[-1], floor=compiled.BLOCK)
        assert compiled.BLOCK <= step <= unmoved
