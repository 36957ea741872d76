"""Undo through the match layer: an OP action can be taken back; a reveal or a shared step cannot."""

from __future__ import annotations

from warroom.engine.match import Match, MatchState
from warroom.engine.model import UNDO_OPTION_ID
from warroom.engine.rng import Rng
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import NcwState

RULES = NewColdWarRules()
MATCH: Match[NcwState] = Match(RULES)


def _ids(state: MatchState[NcwState], seat: int) -> list[str]:
    assert state.pending is not None
    return [o.id for o in state.pending.options_for(seat)]


def _to_ops_with_room(seed: int) -> MatchState[NcwState]:
    """Random play until an "ops" decision with at least 2 OPs and the OP reserve action."""
    rng = Rng(seed)
    state = MATCH.start(seed, "4p", {})
    while state.pending is not None:
        top = state.game.top()
        if (
            top is not None
            and top.kind == "ops"
            and top.ops >= 2
            and "reserve" in _ids(state, top.seat)
        ):
            return state
        seat = rng.choice(state.pending.seats)
        plain = [i for i in _ids(state, seat) if i != UNDO_OPTION_ID]
        state = MATCH.apply(state, seat, rng.choice(plain)).state
    raise AssertionError("no OP decision with room for two actions")


def test_undo_restores_an_op_action_bit_for_bit() -> None:
    state = _to_ops_with_room(11)
    top = state.game.top()
    assert top is not None
    seat, before = top.seat, RULES.encode_bytes(state.game)
    step = MATCH.apply(state, seat, "reserve").state
    assert step.game.op_reserve[seat] == 1
    assert UNDO_OPTION_ID in _ids(step, seat)
    undone = MATCH.apply(step, seat, UNDO_OPTION_ID).state
    assert RULES.encode_bytes(undone.game) == before
    assert undone.game.op_reserve[seat] == state.game.op_reserve[seat]
    assert undone.pending is not None and state.pending is not None
    assert undone.pending.id != state.pending.id
    assert [o.id for o in undone.pending.options_for(seat)] == _ids(state, seat)
    # the same action again gives the same state as the first time
    again = MATCH.apply(undone, seat, "reserve").state
    assert RULES.encode_bytes(again.game) == RULES.encode_bytes(step.game)


def test_no_undo_in_a_simultaneous_step_or_after_the_reveal() -> None:
    rng = Rng(3)
    state = MATCH.start(3, "4p", {})
    seen_place = seen_reveal = False
    while state.pending is not None and not (seen_place and seen_reveal):
        pending = state.pending
        seat = rng.choice(pending.seats)
        plain = [i for i in _ids(state, seat) if i != UNDO_OPTION_ID]
        state = MATCH.apply(state, seat, rng.choice(plain)).state
        if pending.kind == "place":
            seen_place = True
            assert state.pending is not None
            for other in state.pending.seats:
                assert UNDO_OPTION_ID not in _ids(state, other)
            if state.pending.kind != "place":
                seen_reveal = True
                assert state.previous is None
    assert seen_place and seen_reveal
