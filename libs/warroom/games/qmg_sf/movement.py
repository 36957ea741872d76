"""Movement: legal destinations of a piece in each kind of move, including naval transport,
carriers and airplane jumps.

`mode` is "move1" (First Movement step), "move2" (Second Movement step), "action" (a move
during the Action step: card text, Forced March), "advance" (Advance! into the attacked
space), "retreat" (Retreat reaction) or "withdraw" (Withdraw Navy reaction).
A destination is `(space, carrier_or_fleet)`, the second -1 unless the piece boards one.
"""

from __future__ import annotations

from warroom.games.qmg_sf import board
from warroom.games.qmg_sf.board import (
    adjacent,
    can_transport,
    cargo,
    enemy_occupied,
    faction,
    kind,
    neutral,
    side_of,
    usa_idle,
)
from warroom.games.qmg_sf.content import tables
from warroom.games.qmg_sf.state import AIR, CARRIER, FLEET, INF, NEUTRAL, OFF, TANK, SfState
from warroom.games.qmg_sf.supply import airplane_on, reach, supplied_at

Dest = tuple[int, int]


def destinations(s: SfState, piece: int, mode: str) -> list[Dest]:
    """Every legal destination of one piece for a kind of move (supply checked)."""
    at = s.loc[piece]
    if at == OFF or usa_idle(s, faction(piece)):
        return []
    k = kind(piece)
    carrier = s.on[piece]
    side = side_of(piece)
    t = tables()
    raw: list[Dest] = []
    if k in (FLEET, CARRIER):
        if mode in ("move1", "move2", "action", "withdraw"):
            raw = [
                (w, -1)
                for w in adjacent(s, at, side)
                if t.water[w] and not enemy_occupied(s, w, side)
            ]
    elif k in (INF, TANK):
        raw = _ground(s, piece, at, carrier, side, mode)
    elif k == AIR:
        raw = _air(s, piece, at, carrier, side, mode)
    if not raw:
        return []
    reached = reach(s, faction(piece), skip=piece)
    return [d for d in raw if supplied_at(s, faction(piece), d[0], reached)]


def _land_ok(s: SfState, space: int, side: int) -> bool:
    return (
        not tables().water[space]
        and s.control[space] != NEUTRAL
        and not board.occupancy(s)[space] >> (1 - side) & 1
    )


def _ground(s: SfState, piece: int, at: int, carrier: int, side: int, mode: str) -> list[Dest]:
    t = tables()
    k = kind(piece)
    out: list[Dest] = []
    if carrier >= 0:
        # transported: may only unload into an adjacent land space
        if mode not in ("move1", "move2", "action", "advance"):
            return []
        for sp in adjacent(s, at, side):
            if not _land_ok(s, sp, side):
                continue
            if mode == "move2" and k == INF and s.control[sp] != side:
                continue
            out.append((sp, -1))
        return out
    if mode == "move2" and k == INF:
        return []
    for sp in adjacent(s, at, side):
        if t.water[sp]:
            if mode in ("move1", "action"):
                for f in _free_fleets(s, sp, piece):
                    out.append((sp, f))
        elif _land_ok(s, sp, side):
            if mode == "retreat" and s.control[sp] != side:
                continue
            out.append((sp, -1))
    return out


def _free_fleets(s: SfState, space: int, piece: int) -> list[int]:
    """Fleets in a water space that may take `piece` aboard (each transports one piece)."""
    return [
        f
        for f, at in enumerate(s.loc)
        if at == space and kind(f) == FLEET and can_transport(f, piece) and not cargo(s, f)
    ]


def _free_carriers(s: SfState, space: int, piece: int) -> list[int]:
    return [
        c
        for c, at in enumerate(s.loc)
        if at == space
        and kind(c) == CARRIER
        and faction(c) == faction(piece)
        and not airplane_on(s, c)
    ]


def _air(s: SfState, piece: int, at: int, carrier: int, side: int, mode: str) -> list[Dest]:
    t = tables()
    out: list[Dest] = []
    on_fleet = carrier >= 0 and kind(carrier) == FLEET
    if on_fleet:
        if mode not in ("move1", "move2", "action"):
            return []
        return [
            (sp, -1)
            for sp in adjacent(s, at, side)
            if _land_ok(s, sp, side) and s.held_at_step_start(sp) == side
        ]
    if mode == "retreat":
        return [
            (sp, -1)
            for sp in adjacent(s, at, side)
            if _land_ok(s, sp, side) and s.control[sp] == side
        ]
    if mode not in ("move1", "action"):
        return []
    one = adjacent(s, at, side)
    reach2: set[int] = set(one)
    for mid in one:
        if neutral(s, mid):
            continue
        reach2.update(adjacent(s, mid, side))
    reach2.discard(at)
    for sp in sorted(reach2):
        if t.water[sp]:
            for c in _free_carriers(s, sp, piece):
                out.append((sp, c))
            if sp in one and carrier < 0:
                for f in _free_fleets(s, sp, piece):
                    out.append((sp, f))
        elif _land_ok(s, sp, side) and s.held_at_step_start(sp) == side:
            out.append((sp, -1))
    return out


def do_move(s: SfState, piece: int, dest: Dest) -> None:
    """Carry out a move chosen from `destinations`."""
    board.move(s, piece, dest[0], dest[1])


def movable(s: SfState, side: int, mode: str) -> list[int]:
    """Pieces of a side that may still move in this movement step (not moved, not carried along)."""
    out = []
    sides, _, kinds = board.pieces()
    moved = s.moved
    for p, at in enumerate(s.loc):
        if at == OFF or sides[p] != side or moved >> p & 1:
            continue
        k = kinds[p]
        if mode == "move2":
            transported_piece = s.on[p] >= 0 and kinds[s.on[p]] == FLEET
            if k in (INF, AIR) and not transported_piece:
                continue
        out.append(p)
    return out


def stranded(s: SfState, side: int) -> list[int]:
    """Transported pieces still aboard a fleet (eliminated at the end of the Second Movement step)."""
    return [
        p
        for p, c in enumerate(s.on)
        if c >= 0 and s.loc[p] != OFF and side_of(p) == side and kind(c) == FLEET
    ]
