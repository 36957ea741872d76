"""The deterministic RNG."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from warroom.engine import rng


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=1, max_value=1000))
def test_randbelow_is_in_range_and_deterministic(seed: int, bound: int) -> None:
    a = rng.randbelow(rng.seed_state(seed), bound)
    b = rng.randbelow(rng.seed_state(seed), bound)
    assert a == b
    assert 0 <= a[1] < bound


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_shuffle_is_a_permutation(seed: int) -> None:
    items = list(range(30))
    rng.shuffle(rng.seed_state(seed), items)
    assert sorted(items) == list(range(30))


def test_draws_are_roughly_uniform() -> None:
    state = rng.seed_state(42)
    counts = [0] * 6
    for _ in range(6000):
        state, value = rng.randbelow(state, 6)
        counts[value] += 1
    assert all(850 < c < 1150 for c in counts), counts
