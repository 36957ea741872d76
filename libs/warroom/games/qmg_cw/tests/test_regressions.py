"""Regressions: every decision advances the game (no enter/cancel cycle a deterministic bot
can loop in), and determinizations from mid-game views of every seat are consistent."""

from __future__ import annotations

from warroom.engine.match import Match
from warroom.engine.rng import Rng

from .helpers import RULES, act, give, options, pc, scenario

VARIANTS = ("3p", "4p", "5p", "6p")


def test_cancelling_a_picker_closes_that_entry_for_the_step() -> None:
    """Entering "remove" or "organic" and cancelling closes that entry: the state changed."""
    state = scenario(pieces=[("moscow", "soviet", "army"), ("south_pacific", "soviet", "navy")])
    give(state, 0, "hand", state.seats[0].deck[:3])
    assert "remove" in options(state, 0)
    before = RULES.encode_bytes(state)
    state = act(act(state, 0, "remove"), 0, "cancel")
    assert RULES.encode_bytes(state) != before
    assert "remove" not in options(state, 0) and "done" in options(state, 0)

    state = scenario(pieces=[("south_pacific", "soviet", "navy")], step="action")
    give(state, 0, "hand", state.seats[0].deck[:3])
    assert "organic" in options(state, 0)
    state = act(act(state, 0, "organic"), 0, "cancel")
    assert "organic" not in options(state, 0)
    assert pc("south_pacific", "soviet", "navy") in state.pieces


def test_no_sequence_of_decisions_returns_to_an_earlier_state() -> None:
    """Seeded games of every variant, biased towards the pickers' entries and cancels,
    never revisit a state.

    A cycle of decisions (enter a picker, cancel it) lets a deterministic bot (the
    one-ply heuristic breaks ties by order) go round forever: the game never ends.
    """
    match = Match(RULES)
    for seed, variant in enumerate(VARIANTS, start=3):
        state = match.start(seed, variant, {})
        rng = Rng(seed)
        seen = {RULES.encode_bytes(state.game)}
        for _ in range(600):
            if state.pending is None:
                break
            seat = rng.choice(state.pending.seats)
            ids = [o.id for o in state.pending.options_for(seat) if o.id != "undo"]
            entries = [i for i in ids if i in ("remove", "organic", "cancel")]
            pick = rng.choice(entries) if entries and rng.random() < 0.7 else rng.choice(ids)
            state = match.apply(state, seat, pick).state
            data = RULES.encode_bytes(state.game)
            assert data not in seen, f"{variant}: {pick!r} returned to an earlier state"
            seen.add(data)
