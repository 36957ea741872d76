"""Reaction windows: Status, WMD and Espionage cards used in reaction to a trigger.

When more than one Bloc can react, the enemies of the Bloc taking its turn react
first (the moving Bloc picks which enemy goes first), and the moving Bloc reacts
last. Each Bloc uses its reactions one at a time, then passes. Triggers: a card
was resolved ("any time" cards), a turn starts ("any time" cards of the moving Bloc's
enemies: the moving Bloc uses its own in its Begin Turn step), an Army was built, a
land battle was fought, an enemy built a Navy where a Bloc has a Navy.
"""

from __future__ import annotations

from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.effects import enemies, usable
from warroom.games.qmg_cw.flow import (
    Ctx,
    Options,
    auto,
    bloc_name,
    card_name,
    chooser,
    decision,
    pop,
    push,
    seat_done,
    update_top,
)
from warroom.games.qmg_cw.state import (
    NAVY,
    CwState,
    Frame,
    piece_bloc,
    piece_kind,
    piece_space,
    seat_bits,
)

ESPIONAGE_TIMINGS: frozenset[str] = frozenset(
    c.when for c in tables().cards if c.type == "espionage"
)

TIMING = {
    "resolved": "any_time",
    "turn_start": "any_time",
    "after_build_army": "after_build_army",
    "after_land_battle": "after_land_battle",
    "enemy_builds_navy": "enemy_builds_navy",
}


def eligible(state: CwState, frame: Frame, seat: int) -> list[int]:
    """The cards a seat may use in this window."""
    bloc = state.seats[seat].bloc
    trigger = frame.tag
    if trigger in ("after_build_army", "after_land_battle") and bloc != frame.bloc:
        return []
    if trigger == "turn_start" and bloc == frame.bloc:
        return []  # the moving Bloc has its own Begin Turn step for "any time" cards
    if trigger == "enemy_builds_navy":
        if bloc == frame.bloc:
            return []
        if not any(
            piece_space(p) == frame.space and piece_bloc(p) == bloc and piece_kind(p) == NAVY
            for p in state.pieces
        ):
            return []
    return usable(state, seat, (TIMING[trigger],))


def _masked(state: CwState, frame: Frame, seat: int) -> bool:
    """Whether a seat is asked in this window: it has a usable card, or (so that the window
    reveals nothing about face-down cards) it could hold a face-down card of this timing."""
    if eligible(state, frame, seat):
        return True
    if TIMING[frame.tag] not in ESPIONAGE_TIMINGS or not state.seats[seat].espionage:
        return False
    return eligible_scope(state, frame, seat)


def eligible_scope(state: CwState, frame: Frame, seat: int) -> bool:
    """The public part of eligibility: the seat's bloc is one this trigger concerns."""
    bloc = state.seats[seat].bloc
    if frame.tag in ("after_build_army", "after_land_battle"):
        return bloc == frame.bloc
    if frame.tag == "turn_start":
        return bloc != frame.bloc
    if frame.tag == "enemy_builds_navy":
        return bloc != frame.bloc and any(
            piece_space(p) == frame.space and piece_bloc(p) == bloc and piece_kind(p) == NAVY
            for p in state.pieces
        )
    return True


def _mask(state: CwState, frame: Frame, bloc: int) -> int:
    mask = 0
    for seat in state.bloc_seats(bloc):
        if _masked(state, frame, seat):
            mask |= 1 << seat
    return mask


@auto("window")
def _window(state: CwState, frame: Frame, ctx: Ctx) -> None:
    if frame.pc == 0:
        active = state.active
        now = [b for b in enemies(active) if _mask(state, frame, b)]
        if not now and not _mask(state, frame, active):
            pop(state)
            return
        # every Bloc takes its turn, enemies first (one that may react now goes first), the
        # moving Bloc last; who may react is read when its turn comes ("Blocs take turns")
        first = now + [b for b in enemies(active) if b not in now]
        update_top(state, pc=1, items=(*first, active))
        if len(now) == 2:
            push(
                state,
                Frame("react_order", bloc=active, mask=state.bloc_mask(active), items=tuple(now)),
            )
        return
    if not frame.items:
        pop(state)
        return
    bloc = frame.items[0]
    update_top(state, items=frame.items[1:])
    if _mask(state, frame, bloc):
        # every seat of the Bloc answers for itself, by the position when it is asked
        push(
            state,
            Frame(
                "react",
                bloc=bloc,
                mask=state.bloc_mask(bloc),
                tag=frame.tag,
                space=frame.space,
                target=frame.bloc,
            ),
        )


@decision("react_order", "Choose which enemy Bloc reacts first")
def _order_options(state: CwState, frame: Frame) -> Options:
    opts = [(f"first:{b}", bloc_name(b)) for b in frame.items]
    return dict.fromkeys(seat_bits(frame.mask), opts)


@chooser("react_order")
def _order_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    first = int(option[6:])
    window = state.stack[-1]
    rest = [b for b in window.items if b != first]
    update_top(state, items=(first, *rest))


@decision("react", "React with a prepared card, or pass")
def _react_options(state: CwState, frame: Frame) -> Options:
    out: Options = {}
    probe = Frame("window", bloc=frame.target, tag=frame.tag, space=frame.space)
    for seat in seat_bits(frame.mask):
        if not _masked(state, probe, seat):
            continue
        cards = eligible(state, probe, seat)
        out[seat] = [
            *((f"use:{c}", f"React with {card_name(c)}") for c in cards),
            ("pass", "Do not react"),
        ]
    return out


@chooser("react")
def _react_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option == "pass":
        seat_done(state, frame, seat)
        return
    from warroom.games.qmg_cw.effects import use_card

    use_card(state, seat, int(option[4:]), ctx)
