"""Deterministic random numbers stored inside the game state.

A game keeps the RNG state as one integer in its state, so seed plus option log
replays bit for bit. The generator is SplitMix64: tiny state, cheap to copy.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_LIMITS: dict[int, int] = {n: (1 << 64) - ((1 << 64) % n) for n in range(1, 257)}
"""randbelow's rejection limit for small bounds, precomputed."""


def seed_state(seed: int) -> int:
    """The RNG state for a seed (any integer)."""
    return seed & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Return (new_state, 64-bit random value)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def randbelow(state: int, n: int) -> tuple[int, int]:
    """Return (new_state, value uniform in range(n)), rejecting biased draws."""
    if n <= 0:
        raise ValueError(f"randbelow needs a positive bound, got {n}")
    limit = _LIMITS.get(n) or (1 << 64) - ((1 << 64) % n)
    while True:
        # next_u64, inlined (the hottest call of random playouts)
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        value = z ^ (z >> 31)
        if value < limit:
            return state, value % n


def shuffle(state: int, items: MutableSequence[T]) -> int:
    """Shuffle `items` in place (Fisher-Yates) and return the new RNG state."""
    for i in range(len(items) - 1, 0, -1):
        state, j = randbelow(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def choice(state: int, items: Sequence[T]) -> tuple[int, T]:
    """Return (new_state, one element chosen uniformly)."""
    state, index = randbelow(state, len(items))
    return state, items[index]


class Rng:
    """A mutable convenience wrapper for code outside game states (bots, harness)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed_state(seed)

    def below(self, n: int) -> int:
        """A value uniform in range(n)."""
        self.state, value = randbelow(self.state, n)
        return value

    def choice(self, items: Sequence[T]) -> T:
        """One element chosen uniformly (`choice`, one call level less)."""
        self.state, index = randbelow(self.state, len(items))
        return items[index]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place."""
        self.state = shuffle(self.state, items)

    def random(self) -> float:
        """A float in [0, 1)."""
        self.state, value = next_u64(self.state)
        return (value >> 11) / float(1 << 53)
