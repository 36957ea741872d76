"""Undo is marked in the Option message of every game, and survives the way back to the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from warroom.api.convert import decision_message, engine_option, option_message
from warroom.bots.position import make_position
from warroom.engine.match import UNDO_OPTION, Match
from warroom.engine.model import UNDO_OPTION_ID, Decision, OptionKind
from warroom.engine.registry import game_ids, get_rules
from warroom.v1 import common_pb2

MAX_STEPS = 600


def _undo_offers(game_id: str, seed: int) -> int:
    """Play a seeded random game; at every decision check each option message's kind."""
    rules = get_rules(game_id)
    match: Match[Any] = Match(rules)
    rng = random.Random(seed)
    state = match.start(seed, rules.variants()[0].id, {})
    offers = 0
    while (pending := state.pending) is not None and state.version < MAX_STEPS:
        for seat in pending.seats:
            message = decision_message(pending, state.version, seat)
            assert message is not None
            for option in message.options:
                undo = option.id == UNDO_OPTION_ID
                offers += undo
                want = common_pb2.OPTION_KIND_UNDO if undo else common_pb2.OPTION_KIND_CHOICE
                assert option.kind == want, (game_id, pending.kind, option.id, option.kind)
        seat = rng.choice(pending.seats)
        ids = [o.id for o in pending.options_for(seat) if not o.is_undo]
        state = match.apply(state, seat, rng.choice(ids)).state
    return offers


@pytest.mark.parametrize("game_id", game_ids())
def test_every_option_message_says_whether_it_is_undo(game_id: str) -> None:
    offers = sum(_undo_offers(game_id, seed) for seed in (1, 2, 3))
    assert offers > 0, f"{game_id}: no undo was offered in three random games"


def test_option_kind_round_trips_and_bots_skip_undo() -> None:
    message = option_message(UNDO_OPTION)
    assert message.kind == common_pb2.OPTION_KIND_UNDO
    back = engine_option(message)
    assert back.is_undo and back == UNDO_OPTION
    plain = engine_option(common_pb2.Option(id="x", label="X"))
    assert plain.kind is OptionKind.CHOICE, "an unset kind is an ordinary choice"
    # A bot never takes back, whatever the id of the undo option.
    renamed = common_pb2.Option(id="take-back", label="Undo", kind=common_pb2.OPTION_KIND_UNDO)
    rules = get_rules("ncw")
    state = Match(rules).start(1, rules.variants()[0].id, {})
    assert state.pending is not None
    seat = state.pending.seats[0]
    options = (*state.pending.options_for(seat), engine_option(renamed))
    decision = Decision(state.pending.kind, state.pending.prompt, {seat: options}, "1")
    position = make_position(rules, rules.view(state.game, seat), seat, decision)
    assert "take-back" not in position.option_ids()
    assert len(position.option_ids()) == len(options) - 1
