"""A simultaneous decision keeps one decision id until it closes, in every registered game.

Seeded random games are driven through the match layer. Whenever a decision names several
seats, its seats answer one by one (each until it leaves the decision). While every seat
still to answer is asked exactly what it was asked, the id must not change; once a seat's
decision closes (another seat's answer changed its options or ended the step) the id must
change. The secret simultaneous choices of each game must never close early: each seat
answers them under the one id, however many answers it gives (the QMG Cold War opening
takes several per seat).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from warroom.engine.match import Match, MatchState
from warroom.engine.model import UNDO_OPTION_ID, Decision
from warroom.engine.registry import game_ids, get_rules

# The secret simultaneous choices of each game: every seat answers them under one id.
SIMULTANEOUS: dict[str, frozenset[str]] = {
    "ncw": frozenset({"place", "declare", "keep"}),
    "qmg_cw": frozenset({"open"}),
    "qmg_sf": frozenset(),
    "toy": frozenset(),
}
MAX_STEPS = 1_500


@dataclass
class Tally:
    """What the drive saw: per kind, decisions answered through and decisions closed early."""

    through: Counter[str] = field(default_factory=Counter)
    early: Counter[str] = field(default_factory=Counter)
    repeat_answers: Counter[str] = field(default_factory=Counter)


def _answer(
    match: Match[Any],
    state: MatchState[Any],
    seat: int,
    rng: random.Random,
    seen_id: str | None = None,
) -> MatchState[Any]:
    """A random answer of `seat`, sent with the decision id it saw (default: the current one)."""
    assert state.pending is not None
    ids = [o.id for o in state.pending.options_for(seat) if o.id != UNDO_OPTION_ID]
    return match.apply(state, seat, rng.choice(ids), seen_id or state.pending.id).state


def _closed_for(decision: Decision, waiting: dict[int, Any], now: Decision | None) -> bool:
    """Whether some waiting seat is no longer asked exactly what it was asked."""
    if now is None or now.kind != decision.kind:
        return True
    return any(now.options.get(seat) != options for seat, options in waiting.items())


def _one_by_one(
    match: Match[Any], state: MatchState[Any], rng: random.Random, tally: Tally
) -> MatchState[Any]:
    """Answer a multi-seat decision seat by seat, checking its id after every answer.

    Once one seat is left the decision is that seat's own, and the drive returns.
    """
    decision = state.pending
    assert decision is not None
    asked = dict(decision.options)
    order = list(decision.seats)
    rng.shuffle(order)
    for seat in order[:-1]:
        waiting = {other: options for other, options in asked.items() if other != seat}
        answers = 0
        while True:
            # every answer carries the id the seats saw when the decision opened
            state = _answer(match, state, seat, rng, decision.id)
            answers += 1
            now = state.pending
            if _closed_for(decision, waiting, now):
                assert now is None or now.id != decision.id, (
                    f"{decision.kind!r} closed for a waiting seat but kept id {decision.id}"
                )
                tally.early[decision.kind] += 1
                return state
            assert now is not None
            assert now.id == decision.id, (
                f"{decision.kind!r}: seat {seat} answered and the id of the waiting seats "
                f"{sorted(waiting)} changed from {decision.id} to {now.id}"
            )
            if seat not in now.options:
                del asked[seat]
                break
        if answers > 1:
            tally.repeat_answers[decision.kind] += 1
    tally.through[decision.kind] += 1
    return state


def _drive(game_id: str, variant: str, seed: int, tally: Tally) -> None:
    rules = get_rules(game_id)
    match: Match[Any] = Match(rules)
    rng = random.Random(seed)
    state = match.start(seed, variant, {})
    while (pending := state.pending) is not None and state.version < MAX_STEPS:
        if len(pending.options) > 1:
            state = _one_by_one(match, state, rng, tally)
        else:
            state = _answer(match, state, pending.seats[0], rng)


def _cases() -> list[tuple[str, str]]:
    return [(g, v.id) for g in game_ids() for v in get_rules(g).variants()]


@pytest.mark.parametrize(("game_id", "variant"), _cases())
def test_simultaneous_decisions_keep_their_id(game_id: str, variant: str) -> None:
    tally = Tally()
    for seed in (1, 2):
        _drive(game_id, variant, seed, tally)
    secret = SIMULTANEOUS[game_id]
    early = {kind: n for kind, n in tally.early.items() if kind in secret}
    assert early == {}, f"secret simultaneous choices closed before every seat answered: {early}"
    if tally.through or tally.early:
        # where seats choose at once, every secret simultaneous choice was seen and driven
        assert secret <= {k for k, n in tally.through.items() if n}, tally


def test_qmg_cold_war_opening_answers_keep_one_id() -> None:
    """The opening of QMG: The Cold War takes several answers per seat under one id."""
    tally = Tally()
    _drive("qmg_cw", "3p", 5, tally)
    assert tally.through["open"] == 1
    assert tally.repeat_answers["open"] >= 2


def test_south_front_has_no_simultaneous_decision() -> None:
    """South Front's two players alternate: no decision ever names both seats."""
    rules = get_rules("qmg_sf")
    for variant in rules.variants():
        tally = Tally()
        _drive("qmg_sf", variant.id, 3, tally)
        assert tally.through == Counter() and tally.early == Counter()
