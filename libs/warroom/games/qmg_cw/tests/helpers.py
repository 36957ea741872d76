"""Scenario builders for QMG: The Cold War tests: a mid-game position from named
cards and pieces, and drivers that answer decisions by option id."""

from __future__ import annotations

from collections.abc import Iterable

from warroom.games.qmg_cw.content import KINDS, NATS, tables
from warroom.games.qmg_cw.rules import ColdWarRules
from warroom.games.qmg_cw.setup import new_state
from warroom.games.qmg_cw.state import CwState, Frame, piece_code

RULES = ColdWarRules()


def cid(name: str, nth: int = 0, bloc: int | None = None) -> int:
    """The id of the nth card with this name."""
    ids = [c.id for c in tables().cards if c.name == name and (bloc is None or c.bloc == bloc)]
    return ids[nth]


def sp(space_id: str) -> int:
    """A space index by id."""
    return tables().space(space_id)


def pc(space_id: str, nat: str, kind: str) -> int:
    """A piece code from names."""
    return piece_code(sp(space_id), NATS.index(nat), KINDS.index(kind))


def scenario(
    variant: str = "3p",
    pieces: Iterable[tuple[str, str, str]] = (),
    active: int = 0,
    step: str = "begin",
) -> CwState:
    """A position at the start of a bloc's step: every card in its owner's deck, no
    pieces except `pieces` (space, nationality, kind)."""
    state = new_state(1, variant)
    for seat in state.seats:
        seat.deck = sorted(seat.deck + seat.opening + seat.espionage + seat.hand)
        seat.opening, seat.espionage, seat.hand = [], [], []
    state.pieces = sorted(pc(s, n, k) for s, n, k in pieces)
    state.active = active
    steps = ("begin", "air", "action", "supply", "discard_step", "esp_step")
    index = steps.index(step)
    state.stack = [
        Frame("turn", bloc=active, pc=index + 1),
        Frame(step, bloc=active, mask=state.bloc_mask(active)),
    ]
    return state


def give(state: CwState, seat: int, zone: str, cards: Iterable[int]) -> None:
    """Move cards from the seat's deck into a zone (hand, prepared, espionage), editing the
    state in place (so it drops the options `Rules.apply` cached with it)."""
    player = state.seats[seat]
    for c in cards:
        player.deck.remove(c)
        getattr(player, zone).append(c)
    state.pending = None


def act(state: CwState, seat: int, option: str) -> CwState:
    """Apply one option (it must be offered)."""
    decision = RULES.decision(state)
    assert decision is not None, "game over"
    ids = [o.id for o in decision.options_for(seat)]
    assert option in ids, f"{option!r} not offered to seat {seat} in {decision.kind}: {ids}"
    return RULES.apply(state, seat, option).state


def kind(state: CwState) -> str:
    """The pending decision kind."""
    decision = RULES.decision(state)
    assert decision is not None
    return decision.kind


def options(state: CwState, seat: int) -> list[str]:
    """The option ids of a seat."""
    decision = RULES.decision(state)
    assert decision is not None
    return [o.id for o in decision.options_for(seat)]


def pass_reactions(state: CwState) -> CwState:
    """Every seat passes "any time" reaction windows until another decision is pending."""
    while True:
        decision = RULES.decision(state)
        if decision is None or decision.kind not in ("react", "react_order"):
            return state
        seat = decision.seats[0]
        if decision.kind == "react_order":
            state = act(state, seat, decision.options_for(seat)[0].id)
        else:
            state = act(state, seat, "pass")
