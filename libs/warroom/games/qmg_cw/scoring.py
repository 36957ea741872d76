"""Scoring phases (after even rounds and round 19), Balance of Power VP transfers,
the 20-VP lead victory, the end after round 19 and the tie-breaker."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import NATS, tables
from warroom.games.qmg_cw.flow import Ctx, bloc_name
from warroom.games.qmg_cw.state import (
    ARMY,
    LAST_ROUND,
    CwState,
    piece_bloc,
    piece_kind,
    piece_nat,
    piece_space,
)


def phase_points(state: CwState) -> list[int]:
    """What each Bloc scores now: 1 per Army, +1 per Army alone on a usable Supply symbol,
    plus Status card bonuses."""
    occ = board.occupants(state)
    t = tables()
    points = [0, 0, 0]
    for p in state.pieces:
        if piece_kind(p) != ARMY:
            continue
        bloc = piece_bloc(p)
        points[bloc] += 1
        space = piece_space(p)
        if not board.contested(occ[space]) and board.has_symbol(state, space, piece_nat(p)):
            points[bloc] += 1
    for seat in state.seats:
        for cid in seat.prepared:
            rule = t.cards[cid].passive.get("score_bonus")
            if not rule:
                continue
            space = t.space(rule["space"])
            nat = NATS.index(rule["nat"])
            if not board.contested(occ[space]) and any(
                piece_space(p) == space and piece_nat(p) == nat and piece_kind(p) == ARMY
                for p in state.pieces
            ):
                points[seat.bloc] += int(rule["vp"])
    return points


def balance_of_power(vp: list[int]) -> tuple[list[int], int | None]:
    """Apply the Balance of Power transfer; returns the new VPs and the winning Bloc when
    the game is called (a 20-VP lead that no transfer can close)."""
    vp = vp[:]
    order = sorted(range(3), key=lambda b: -vp[b])
    lead, second, last = order
    if vp[lead] - vp[last] < 20:
        return vp, None
    if vp[lead] == vp[second]:
        x = -(-(vp[lead] - vp[last] - 19) // 3)
        vp[lead] -= x
        vp[second] -= x
        vp[last] += 2 * x
        return vp, None
    low = vp[lead] - vp[last] - 19
    high = vp[second] - vp[lead] + 19
    if low <= high and vp[second] != vp[last]:
        vp[second] -= low
        vp[last] += low
        return vp, None
    return vp, lead


def scoring_phase(state: CwState, ctx: Ctx) -> None:
    """Score, transfer, and end the game when it is called or round 19 is over."""
    points = phase_points(state)
    for bloc in range(3):
        state.vp[bloc] += points[bloc]
    ctx.log(
        "Scoring: " + ", ".join(f"{bloc_name(b)} +{points[b]} ({state.vp[b]})" for b in range(3)),
        kind="score",
    )
    before = state.vp[:]
    state.vp, called = balance_of_power(state.vp)
    if state.vp != before:
        ctx.log(
            "Balance of Power: " + ", ".join(f"{bloc_name(b)} {state.vp[b]}" for b in range(3)),
            kind="score",
        )
    if called is not None:
        finish(state, [called], f"{bloc_name(called)} leads by 20 VPs or more")
        return
    if state.round >= LAST_ROUND:
        best = max(state.vp)
        tied = [b for b in range(3) if state.vp[b] == best]
        if len(tied) > 1:
            cards = {
                b: sum(state.seats[s].undiscarded() for s in state.bloc_seats(b)) for b in tied
            }
            most = max(cards.values())
            tied = [b for b in tied if cards[b] == most]
        finish(state, tied, "most VPs after round 19")


def finish(state: CwState, winners: list[int], reason: str) -> None:
    """End the game."""
    state.over = True
    state.winners = sorted(winners)
    state.reason = reason
    state.stack.clear()
