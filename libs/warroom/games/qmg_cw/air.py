"""Air Forces: an Air Power card builds an Air Force or makes an Air Strike ('?'
escalation only for a strike). Rebasing and relocation live in `turn` and `effects`."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.anytime import freeable, in_card_organic
from warroom.games.qmg_cw.effects import card, piece_label, set_target, took_extra
from warroom.games.qmg_cw.flow import Ctx, Options, chooser, decision, pop, push, space_name
from warroom.games.qmg_cw.state import (
    AIR,
    CwState,
    Frame,
    piece_bloc,
    piece_kind,
    piece_nat,
    piece_space,
)


def strike_targets(state: CwState, bloc: int, nat: int) -> list[int]:
    """Enemy pieces an Air Strike may hit: in or adjacent to a supplied own Air Force of the
    card's nationality; an Army/Navy sharing its space with its Bloc's Air Force is shielded."""
    supply = board.supply_of(state)
    bases = [
        p
        for p in state.pieces
        if piece_kind(p) == AIR and piece_nat(p) == nat and supply.supplied(p)
    ]
    reach: set[int] = set()
    for af in bases:
        reach |= board.neighbours(state, piece_space(af), bloc) | {piece_space(af)}
    out = []
    for p in state.pieces:
        if piece_bloc(p) == bloc or piece_space(p) not in reach:
            continue
        if piece_kind(p) != AIR and any(
            q != p
            and piece_space(q) == piece_space(p)
            and piece_bloc(q) == piece_bloc(p)
            and piece_kind(q) == AIR
            for q in state.pieces
        ):
            continue
        out.append(p)
    return out


@decision("fx_air_power", "Air Power: build an Air Force or make an Air Strike")
def _air_options(state: CwState, frame: Frame) -> Options:
    nat = card(frame.card).nat
    opts = [
        (f"af:{s}", f"Build an Air Force in {space_name(s)}")
        for s in board.build_spaces(state, nat, AIR, None, False)
    ]
    opts += [
        (f"st:{p}", f"Air Strike on the {piece_label(p)}")
        for p in strike_targets(state, frame.bloc, nat)
    ]
    # "At any time during your own Bloc's turn": Organic Supply for an Air Force's Army or
    # Navy (to build beside it, or to strike with its Air Force), and "you may remove your
    # own Bloc's piece ... (thereby making it available to be built)"
    opts += in_card_organic(state, frame)
    opts += freeable(state, frame, nat, (AIR,))
    opts.append(("skip", "Do nothing"))
    return {frame.owner: opts}


@chooser("fx_air_power")
def _air_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if took_extra(state, seat, option, ctx):
        return
    pop(state)
    if option == "skip":
        return
    if option.startswith("af:"):
        space = int(option[3:])
        board.place(state, space, card(frame.card).nat, AIR)
        ctx.log(f"Air Force built in {space_name(space)}")
        return
    victim = int(option[3:])
    set_target(state, piece_bloc(victim), ctx, escalates=True)
    ctx.log(f"Air Strike on the {piece_label(victim)}")
    push(
        state,
        Frame("strike", bloc=frame.bloc, target=piece_bloc(victim), piece=victim, tag="airstrike"),
    )
