"""`Rules.view_message_type` names the class every view of the game is (checked on the
registered games and the toy game, at the start and after a few moves)."""

from __future__ import annotations

import pytest

from tests.engine.toy_game import ToyRules, ToyView
from warroom.engine.match import Match
from warroom.engine.registry import game_ids, get_rules


@pytest.mark.parametrize("game_id", game_ids())
def test_every_view_is_of_the_named_type(game_id: str) -> None:
    rules = get_rules(game_id)
    named = rules.view_message_type()
    match = Match(rules)
    state = match.start(5, rules.variants()[0].id, {})
    for _ in range(3):
        for viewer in (None, *range(len(rules.seats(state.game)))):
            assert type(rules.view(state.game, viewer)) is named
        if state.pending is None:
            break
        seat = next(iter(state.pending.options))
        option = state.pending.options[seat][0]
        state = match.apply(state, seat, option.id).state


def test_the_toy_view_type_is_its_typed_message() -> None:
    assert ToyRules().view_message_type() is ToyView
    assert ToyView.DESCRIPTOR.full_name == "warroom.games.toy.v1.View"
