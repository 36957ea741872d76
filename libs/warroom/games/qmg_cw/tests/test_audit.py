"""Rulebook audit: each test states the rulebook sentence it checks."""

from __future__ import annotations

from warroom.games.qmg_cw.state import NA

from .helpers import act, give, kind, options, scenario


def test_draw_step_with_more_than_seven_cards_draws_nothing() -> None:
    """ "You must draw until your hand has 7 cards ... If you have more than 7 cards, you do
    not need to discard": a player given an eighth card by its teammate draws none."""
    state = scenario("4p", pieces=[("india", "indian", "army")], active=NA, step="discard_step")
    mine, mate = state.bloc_seats(NA)
    give(state, mine, "hand", state.seats[mine].deck[:7])
    give(state, mate, "hand", state.seats[mate].deck[:7])
    deck = len(state.seats[mine].deck)
    state = act(state, mate, f"give:{state.seats[mate].hand[0]}")
    while kind(state) == "esp_step":
        seat = next(s for s in (mine, mate) if "pass" in options(state, s))
        state = act(state, seat, "pass")
    assert len(state.seats[mine].hand) == 8
    assert len(state.seats[mine].deck) == deck
    assert len(state.seats[mate].hand) == 7
