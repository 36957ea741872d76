"""What a Bloc may do "at any time during your own Bloc's turn": Organic Supply and
removing its own pieces, in every step of its turn and while its own card resolves.

Organic Supply: "At any time during your own Bloc's turn, you may discard a card from
hand to put an Army or Navy in supply for the remainder of the turn" (option
`organic:<piece>`, followed by the payment). Own pieces: "At any time during your own
Bloc's turn, you may remove your own Bloc's piece from the board". In the steps these
are single `organic` / `remove` entries (a picker follows); inside a card they are
offered where they matter: Organic Supply in a build or battle the card makes, and
`free:<piece>` in a build or recruit whose kind has no piece left to place.
"""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import KINDS, NATS, tables
from warroom.games.qmg_cw.flow import Ctx, auto, pay, pop
from warroom.games.qmg_cw.state import (
    AIR,
    CwState,
    Frame,
    piece_bloc,
    piece_kind,
    piece_nat,
    piece_space,
)

Choices = list[tuple[str, str]]


def label(code: int) -> str:
    """A piece for humans ("Soviet army in Siberia")."""
    space = tables().space_names[piece_space(code)]
    return f"{NATS[piece_nat(code)].title()} {KINDS[piece_kind(code)]} in {space}"


def out_of_supply(state: CwState, bloc: int) -> list[int]:
    """A bloc's Armies and Navies out of supply (Organic Supply counts as supplied)."""
    supply = board.supply_of(state)
    return [
        p
        for p in state.pieces
        if piece_bloc(p) == bloc and piece_kind(p) != AIR and not supply.supplied(p)
    ]


def organic_options(state: CwState, seat: int, bloc: int) -> Choices:
    """Discard a card to put an out-of-supply Army or Navy of the bloc in supply for the turn."""
    if not state.seats[seat].hand:
        return []
    return [
        (f"organic:{p}", f"Organic Supply for the {label(p)}") for p in out_of_supply(state, bloc)
    ]


def do_organic(state: CwState, seat: int, piece: int, ctx: Ctx, mask: int = 0) -> None:
    """Pay one card for Organic Supply (by `seat`, or by any seat of `mask`)."""
    pay(state, mask or 1 << seat, 1, Frame("organic_done", piece=piece))


@auto("organic_done")
def _organic_done(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    if frame.piece in state.pieces and frame.piece not in state.organic:
        state.organic.append(frame.piece)
        state.organic.sort()
        ctx.log(f"Organic Supply: the {label(frame.piece)} is in supply this turn")


def in_card_organic(state: CwState, frame: Frame) -> Choices:
    """Organic Supply offered inside the owner's own card, on its own Bloc's turn; "Either
    teammate on a Bloc can discard a card for Organic Supply", so the payment may come from
    either hand."""
    if state.active != frame.bloc:
        return []
    payers = [s for s in state.bloc_seats(frame.bloc) if state.seats[s].hand]
    return organic_options(state, payers[0], frame.bloc) if payers else []


def freeable(state: CwState, frame: Frame, nat: int, kinds: tuple[int, ...]) -> Choices:
    """Own pieces the owner may remove to make a piece of a kind with none left available
    ("thereby making it available to be built or recruited"), on its own Bloc's turn."""
    if state.active != frame.bloc:
        return []
    out: Choices = []
    for kind in kinds:
        if board.available(state, nat, kind):
            continue
        out += [
            (f"free:{p}", f"Remove your {label(p)} to place it again")
            for p in state.pieces
            if piece_nat(p) == nat and piece_kind(p) == kind
        ]
    return out


def take_organic(state: CwState, seat: int, option: str, ctx: Ctx) -> bool:
    """Apply an in-card `organic:<piece>` option (the card's decision stays on top, to be
    answered again once the card is paid); False for any other option."""
    if not option.startswith("organic:"):
        return False
    bloc = state.seats[seat].bloc
    payers = sum(1 << s for s in state.bloc_seats(bloc) if state.seats[s].hand)
    do_organic(state, seat, int(option[8:]), ctx, mask=payers)
    return True
