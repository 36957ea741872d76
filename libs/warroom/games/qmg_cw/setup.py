"""A new game: seats per the Player Assignment chart, shuffled decks, starting pieces,
and the opening draw (redrawn until it holds enough Espionage cards)."""

from __future__ import annotations

from functools import cache

from warroom.engine import rng
from warroom.engine.errors import SetupError
from warroom.games.qmg_cw.content import BLOC_NAMES, DECKS, tables
from warroom.games.qmg_cw.flow import Ctx
from warroom.games.qmg_cw.state import CwState, Frame, SeatState, piece_code


def seat_cards(bloc: int, colour: int) -> list[int]:
    """The cards of a whole bloc (colour -1) or of one deck colour."""
    return list(_seat_cards(bloc, colour))


@cache
def _seat_cards(bloc: int, colour: int) -> tuple[int, ...]:
    return tuple(
        c.id for c in tables().cards if c.bloc == bloc and (colour < 0 or c.deck == colour)
    )


def new_state(seed: int, variant: str, ctx: Ctx | None = None) -> CwState:
    """The state waiting for the opening-hand decision."""
    t = tables()
    if variant not in t.variants:
        raise SetupError(f"qmg_cw: unknown variant {variant!r} (known: {', '.join(t.variants)})")
    ctx = ctx or Ctx()
    state = CwState(
        variant,
        [SeatState(bloc, colour) for bloc, colour in t.variants[variant][1]],
        rng.seed_state(seed),
    )
    for nat, kind, space in t.start:
        state.add_piece(piece_code(space, nat, kind))
    for index, seat in enumerate(state.seats):
        seat.deck = seat_cards(seat.bloc, seat.colour)
        opening_draw(state, index, ctx)
    state.stack.append(Frame("open", mask=(1 << len(state.seats)) - 1))
    return state


def opening_draw(state: CwState, index: int, ctx: Ctx) -> None:
    """Shuffle and draw 12 (10 with a teammate) until enough Espionage cards are drawn."""
    seat = state.seats[index]
    teamed = state.teamed(seat.bloc)
    count, need = (10, 1) if teamed else (12, 2)
    for _ in range(1000):
        seat.deck.extend(seat.opening)
        seat.opening.clear()
        seat.deck.sort()
        state.rng = rng.shuffle(state.rng, seat.deck)
        seat.opening = seat.deck[:count]
        del seat.deck[:count]
        if sum(1 for c in seat.opening if tables().cards[c].type == "espionage") >= need:
            return
        colour = "whole bloc" if seat.colour < 0 else DECKS[seat.colour]
        names = ", ".join(tables().cards[c].name for c in seat.opening)
        ctx.log(
            f"{BLOC_NAMES[seat.bloc]} ({colour}) reveals its opening draw and redraws: {names}",
            kind="reveal",
        )
    raise SetupError("qmg_cw: could not draw an opening hand")
