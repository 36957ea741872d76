"""Arena seat patterns: swaps, whole teams where teams win together, split blocs where they don't."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from tests.engine.toy_game import ToyRules, ToyState
from warroom.bots.pairings import seat_patterns
from warroom.engine.model import SeatInfo, VariantInfo
from warroom.engine.registry import get_rules


def _balanced(patterns: list[list[int]]) -> bool:
    return all(
        Counter(column) == Counter({0: len(patterns) // 2, 1: len(patterns) // 2})
        for column in zip(*patterns, strict=True)
    )


def test_two_seats_swap() -> None:
    rules = ToyRules()
    assert seat_patterns(rules, rules.variants()[0].id) == [[0, 1], [1, 0]]


def test_new_cold_war_never_seats_one_spec_on_both_powers_of_a_bloc() -> None:
    rules = get_rules("ncw")
    assert rules.team_victory is False
    patterns = seat_patterns(rules, "4p")
    blocs: dict[str, list[int]] = {}
    for seat in rules.seats(rules.setup(1, "4p", {})):
        blocs.setdefault(seat.team, []).append(seat.index)
    assert len(patterns) == 4 and len({tuple(p) for p in patterns}) == 4
    for pattern in patterns:
        for seats in blocs.values():
            assert sorted(pattern[s] for s in seats) == [0, 1]
    assert _balanced(patterns)
    for first, second in zip(patterns[::2], patterns[1::2], strict=True):
        assert [1 - p for p in first] == second


class _Blocs(ToyRules):
    """The toy game described as four seats in two teams that win together."""

    def variants(self) -> Sequence[VariantInfo]:
        return [VariantInfo("teams", "two teams of two", 4, ("a", "b", "c", "d"))]

    def setup(self, seed: int, variant: str, options: Mapping[str, str]) -> ToyState:
        return ToyRules().setup(seed, "duel", options)

    def seats(self, state: ToyState) -> Sequence[SeatInfo]:
        return [SeatInfo(i, "abcd"[i], "north" if i in (0, 2) else "south") for i in range(4)]


def test_teams_that_win_together_are_held_whole() -> None:
    rules = _Blocs()
    assert seat_patterns(rules, "teams") == [[0, 1, 0, 1], [1, 0, 1, 0]]
    rules.team_victory = False
    mixed = seat_patterns(rules, "teams")
    assert [0, 0, 1, 1] in mixed and [0, 1, 0, 1] not in mixed and _balanced(mixed)
