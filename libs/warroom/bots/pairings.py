"""Seat patterns for matches between two bot specs, as the arena rotates them.

A pattern marks each seat 0 (spec A) or 1 (spec B); the patterns come in complementary pairs,
so over any whole cycle every seat is held by each spec equally often.

- Two seats: A and B swap.
- Two equal teams that win together (`Rules.team_victory`): each spec takes a whole team.
- Teams whose seats compete for an individual win (New Cold War's blocs): each spec holds half
  of every team, in every such combination, so no two seats of one spec are allies. Seated as
  one team, two copies of a bot would be rivals under the rules yet be scored as one side.
- An odd number of seats, each its own team (QMG: The Cold War, 3 players): one spec holds a
  fewest-seats share (`seats // 2` seats) in every combination, and the other spec the rest,
  then the roles swap (3 seats: 6 seatings, each spec alone on each seat once), so no seat and
  no share of the table favours either spec.
- Otherwise the specs alternate around the table.
"""

from __future__ import annotations

import itertools
from typing import Any

from warroom.engine.rules import Rules

Pattern = list[int]


def _complements(patterns: list[Pattern]) -> list[Pattern]:
    out: list[Pattern] = []
    for pattern in patterns:
        if pattern in out:
            continue
        out += [pattern, [1 - p for p in pattern]]
    return out


def _team_seats(rules: Rules[Any], variant: str) -> list[list[int]]:
    state = rules.setup(1, variant, {})
    teams: dict[str, list[int]] = {}
    for seat in rules.seats(state):
        teams.setdefault(seat.team, []).append(seat.index)
    return list(teams.values())


def _mixed(groups: list[list[int]], seats: int) -> list[Pattern]:
    halves = [list(itertools.combinations(group, len(group) // 2)) for group in groups]
    patterns = []
    for choice in itertools.product(*halves):
        pattern = [1] * seats
        for half in choice:
            for seat in half:
                pattern[seat] = 0
        patterns.append(pattern)
    return _complements(patterns)


def _minorities(seats: int) -> list[Pattern]:
    patterns = []
    for few in itertools.combinations(range(seats), seats // 2):
        patterns.append([0 if seat in few else 1 for seat in range(seats)])
    return _complements(patterns)


def seat_patterns(rules: Rules[Any], variant: str) -> list[Pattern]:
    """The seat patterns (0 = spec A, 1 = spec B) to rotate through on one variant."""
    seats = rules.variant(variant).seats
    if seats == 2:
        return [[0, 1], [1, 0]]
    groups = _team_seats(rules, variant)
    if rules.team_victory and len(groups) == 2 and len(groups[0]) == len(groups[1]):
        return _complements([[int(seat in groups[1]) for seat in range(seats)]])
    if not rules.team_victory and len(groups) > 1 and all(len(g) % 2 == 0 for g in groups):
        return _mixed(groups, seats)
    if seats % 2 and all(len(g) == 1 for g in groups):
        return _minorities(seats)
    return _complements([[i % 2 for i in range(seats)]])
