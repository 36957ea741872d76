"""Battle and elimination: the removal procedure with Air Defense, Interceptors and
"about to be removed" reactions (Berlin Airlift).

A `strike` frame removes one enemy piece: pc 0 opens the defender's `defend`
decision (Air Defense only in a battle, never against an eliminate or an Air
Strike), pc 2 means the piece was removed, pc 3 means it survived. A land battle
then opens the attacker's "after you battle in a land space" window either way: the
Bloc battled, whether or not a reaction saved the piece.
"""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.anytime import in_card_organic, take_organic
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.effects import card, piece_label, remove_piece, usable, use_card
from warroom.games.qmg_cw.flow import (
    Ctx,
    Options,
    auto,
    card_name,
    chooser,
    decision,
    pop,
    push,
    seat_done,
    update_top,
)
from warroom.games.qmg_cw.state import (
    AIR,
    CwState,
    Frame,
    piece_bloc,
    piece_kind,
    piece_space,
    seat_bits,
)


@auto("strike")
def _strike(state: CwState, frame: Frame, ctx: Ctx) -> None:
    if frame.pc == 0:
        if frame.piece not in state.pieces:
            pop(state)
            return
        update_top(state, pc=1)
        push(
            state,
            Frame(
                "defend",
                bloc=frame.target,
                mask=state.bloc_mask(frame.target),
                piece=frame.piece,
                tag=frame.tag,
            ),
        )
        return
    pop(state)
    if frame.tag == "battle" and not tables().is_sea[piece_space(frame.piece)]:
        push(
            state,
            Frame(
                "window", bloc=frame.bloc, tag="after_land_battle", space=piece_space(frame.piece)
            ),
        )


def covers(state: CwState, cid: int, victim: int) -> bool:
    """Whether an "about to be removed" card's trigger names this piece."""
    rule = card(cid).trigger
    if rule.get("piece") == "army" and piece_kind(victim) != 0:
        return False
    if "near" in rule:
        near = tables().space(rule["near"])
        spaces = board.within(state, near, int(rule.get("range", 0)), piece_bloc(victim))
        if piece_space(victim) not in spaces:
            return False
    return True


def protections(state: CwState, seat: int, victim: int) -> list[int]:
    """A seat's prepared cards that keep this piece from being removed."""
    return [
        cid for cid in usable(state, seat, ("about_to_be_removed",)) if covers(state, cid, victim)
    ]


def may_be_protected(state: CwState, victim: int) -> bool:
    """Whether the owner is to be asked before the piece goes: it holds a face-down card, and
    a card of its Bloc of that timing names the piece (public facts only, so that asking
    reveals nothing about which Espionage card is held)."""
    bloc = piece_bloc(victim)
    if not any(state.seats[s].espionage or state.seats[s].prepared for s in state.bloc_seats(bloc)):
        return False
    return any(
        c.bloc == bloc and c.when == "about_to_be_removed" and covers(state, c.id, victim)
        for c in tables().cards
    )


def air_defenders(state: CwState, frame: Frame) -> list[int]:
    """Defending Air Forces in or adjacent to the battle space (supply not needed)."""
    space = piece_space(frame.piece)
    near = board.neighbours(state, space, frame.bloc) | {space}
    return [
        p
        for p in state.pieces
        if piece_bloc(p) == frame.bloc and piece_kind(p) == AIR and piece_space(p) in near
    ]


@decision("defend", "Your piece is about to be removed: react or let it go")
def _defend_options(state: CwState, frame: Frame) -> Options:
    below = state.stack[-2] if len(state.stack) > 1 else None
    if below is None or below.kind != "strike" or below.pc != 1 or frame.piece not in state.pieces:
        return {}
    out: Options = {}
    defenders = air_defenders(state, frame) if frame.tag == "battle" else []
    for seat in seat_bits(frame.mask):
        opts = [(f"ad:{p}", f"Air Defense: lose the {piece_label(p)}") for p in defenders]
        opts += [
            (f"use:{c}", f"Protect it with {card_name(c)}")
            for c in protections(state, seat, frame.piece)
        ]
        opts.append(("pass", "Let the piece be removed"))
        out[seat] = opts
    return out


@chooser("defend")
def _defend_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option == "pass":
        # a teammate's pass is its own: the piece goes once every seat of the Bloc passed
        if seat_done(state, frame, seat):
            update_top(state, pc=2)
            remove_piece(state, frame.piece, ctx)
        return
    if option.startswith("use:"):
        use_card(state, seat, int(option[4:]), ctx)
        return
    af = int(option[3:])
    ctx.log(f"Air Defense: the {piece_label(af)} is lost instead")
    state.remove_piece(af)
    update_top(state, mask=state.bloc_mask(frame.bloc))
    attacker = state.stack[-2].bloc
    push(
        state, Frame("intercept", bloc=attacker, mask=state.bloc_mask(attacker), piece=frame.piece)
    )


def interceptors(state: CwState, frame: Frame) -> list[int]:
    """The attacker's supplied Air Forces in or adjacent to the battle space."""
    space = piece_space(frame.piece)
    near = board.neighbours(state, space, frame.bloc) | {space}
    supply = board.supply_of(state)
    return [
        p
        for p in state.pieces
        if piece_bloc(p) == frame.bloc
        and piece_kind(p) == AIR
        and piece_space(p) in near
        and supply.supplied(p)
    ]


@decision("intercept", "The defender used Air Defense: intercept it?")
def _intercept_options(state: CwState, frame: Frame) -> Options:
    opts = [(f"ic:{p}", f"Intercept with the {piece_label(p)}") for p in interceptors(state, frame)]
    # on its own turn the attacker may pay Organic Supply ("At any time during your own
    # Bloc's turn") for the Army or Navy of an Air Force that could then intercept
    opts += in_card_organic(state, frame)
    opts.append(("pass", "Let the battle fail"))
    return dict.fromkeys(seat_bits(frame.mask), opts)


@chooser("intercept")
def _intercept_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if take_organic(state, seat, option, ctx):
        return
    if option == "pass":
        # "Either teammate on a Bloc may decide to use an Air Force in a battle"
        if seat_done(state, frame, seat):
            pop(state)
            update_top(state, pc=3)
            ctx.log("the battle fails")
        return
    pop(state)
    af = int(option[3:])
    ctx.log(f"Interceptor: the {piece_label(af)} is removed")
    state.remove_piece(af)
