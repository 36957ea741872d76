"""The match layer: decision ids, simultaneous choices, undo, illegal options, replay."""

from __future__ import annotations

import pytest

from tests.engine.toy_game import ToyRules, ToyState
from warroom.engine.errors import GameOverError, IllegalOptionError
from warroom.engine.match import Action, Match, MatchState
from warroom.engine.model import UNDO_OPTION_ID, Decision

ToyMatch = MatchState[ToyState]


def pending(state: ToyMatch) -> Decision:
    """The pending decision of a running match."""
    assert state.pending is not None
    return state.pending


def _play_round(match: Match[ToyState], state: ToyMatch) -> ToyMatch:
    for seat in (0, 1):
        state = match.apply(state, seat, pending(state).options_for(seat)[0].id).state
    return state


def test_simultaneous_decision_keeps_its_id_until_all_answer() -> None:
    match = Match(ToyRules())
    state = match.start(7, "duel", {})
    assert pending(state).seats == (0, 1)
    first_id = pending(state).id
    after = match.apply(state, 0, pending(state).options_for(0)[0].id).state
    assert pending(after).seats == (1,)
    assert pending(after).id == first_id
    assert after.version == 1
    done = match.apply(after, 1, pending(after).options_for(1)[0].id).state
    assert pending(done).id != first_id


def test_illegal_option_raises_and_changes_nothing() -> None:
    rules = ToyRules()
    match = Match(rules)
    state = match.start(3, "duel", {})
    before = rules.encode_bytes(state.game)
    with pytest.raises(IllegalOptionError) as info:
        match.apply(state, 0, "card-99")
    assert info.value.option_id == "card-99"
    assert info.value.decision_id == pending(state).id
    with pytest.raises(IllegalOptionError):
        match.apply(state, 0, pending(state).options_for(0)[0].id, decision_id="stale")
    assert rules.encode_bytes(state.game) == before
    assert state.version == 0


def _to_bonus(match: Match[ToyState], seed: int) -> ToyMatch:
    state = match.start(seed, "duel", {})
    while pending(state).kind != "bonus":
        state = _play_round(match, state)
        if pending(state).kind == "protest":
            state = match.apply(state, pending(state).seats[0], "pass").state
    return state


def test_undo_is_offered_for_own_reversible_steps_and_restores() -> None:
    rules = ToyRules()
    match = Match(rules)
    state = _to_bonus(match, 11)
    winner = pending(state).seats[0]
    assert UNDO_OPTION_ID not in [o.id for o in pending(state).options_for(winner)], (
        "no undo right after a reveal"
    )
    scored = match.apply(state, winner, "score").state
    assert UNDO_OPTION_ID in [o.id for o in pending(scored).options_for(winner)]
    undone = match.apply(scored, winner, UNDO_OPTION_ID).state
    assert rules.encode_bytes(undone.game) == rules.encode_bytes(state.game)
    assert undone.version == scored.version + 1
    assert pending(undone).id not in (pending(state).id, pending(scored).id)


def test_undo_is_cleared_when_another_seat_must_act() -> None:
    match = Match(ToyRules())
    state = _to_bonus(match, 11)
    winner = pending(state).seats[0]
    stopped = match.apply(state, winner, "stop").state
    loser = 1 - winner
    assert pending(stopped).seats == (loser,)
    assert UNDO_OPTION_ID not in [o.id for o in pending(stopped).options_for(loser)]
    with pytest.raises(IllegalOptionError):
        match.apply(stopped, winner, UNDO_OPTION_ID)


def test_replay_reproduces_bit_for_bit_and_game_over_is_typed() -> None:
    rules = ToyRules()
    match = Match(rules)
    state = match.start(5, "duel", {})
    log: list[Action] = []
    while state.pending is not None:
        seat = pending(state).seats[-1]
        option = pending(state).options_for(seat)[-1].id
        log.append(Action(seat, option))
        state = match.apply(state, seat, option).state
    assert match.result(state) is not None
    replayed = match.replay(5, "duel", {}, log)
    assert rules.encode_bytes(replayed.game) == rules.encode_bytes(state.game)
    with pytest.raises(GameOverError):
        match.apply(state, 0, "pass")


def test_require_listed_names_the_problem() -> None:
    from warroom.engine.errors import require_listed

    options = {1: [("a", "A"), ("b", "B")]}
    require_listed(options, 1, "b", "pick")
    with pytest.raises(IllegalOptionError, match="seat 0 does not act in 'pick'"):
        require_listed(options, 0, "a", "pick")
    with pytest.raises(IllegalOptionError, match="not a legal option"):
        require_listed(options, 1, "c", "pick")
