"""The CLI shows each card of the hand by name and text from the game catalogue."""

from __future__ import annotations

import pytest
from google.protobuf import any_pb2
from rich.console import Console

from warroom import catalog as catalogs
from warroom.cli.cards import hand_ids
from warroom.cli.render import render_view, unpack_view
from warroom.engine.model import UNDO_OPTION_ID
from warroom.engine.registry import get_rules
from warroom.v1 import game_pb2


def _seat_view(rules_id: str, steps: int) -> game_pb2.SeatView:
    """Seat 0's SeatView once it holds cards (at least `steps` first-option steps in)."""
    rules = get_rules(rules_id)
    state = rules.setup(5, rules.variants()[0].id, {})
    for step in range(60):
        packed = any_pb2.Any()
        packed.Pack(rules.view(state, 0))
        if step >= steps and hand_ids(unpack_view(packed)):
            break
        decision = rules.decision(state)
        if decision is None:
            break
        seat = min(decision.options)
        option = next(o for o in decision.options[seat] if o.id != UNDO_OPTION_ID)
        state = rules.apply(state, seat, option.id).state
    packed = any_pb2.Any()
    packed.Pack(rules.view(state, 0))
    return game_pb2.SeatView(game_id="g" * 32, seat=0, rules_id=rules_id, view=packed)


def _text(view: game_pb2.SeatView, **kwargs: object) -> str:
    console = Console(record=True, width=200, color_system=None)
    render_view(view, console, **kwargs)  # type: ignore[arg-type]
    return console.export_text()


@pytest.mark.parametrize("rules_id", ["ncw", "qmg_cw", "qmg_sf"])
def test_hand_shows_names_and_texts(rules_id: str) -> None:
    view = _seat_view(rules_id, 3)
    hand = hand_ids(unpack_view(view.view))
    assert hand, "seat 0 holds cards"
    catalog = catalogs.catalog(rules_id)
    cards = {c.id: c for c in catalog.cards}
    shown = _text(view, catalog=catalog)
    for number in hand:
        assert f"#{number} {cards[number].name}" in shown
        first_words = " ".join(cards[number].text.split()[:3])
        assert first_words in " ".join(shown.split()), (number, first_words)
    bare = _text(view)
    assert not any(f"#{n} {cards[n].name}" in bare for n in hand)


def test_spectator_view_has_no_hand() -> None:
    view = _seat_view("qmg_sf", 3)
    rules = get_rules("qmg_sf")
    state = rules.setup(5, "standard", {})
    view.view.Pack(rules.view(state, None))
    assert hand_ids(unpack_view(view.view)) is None
