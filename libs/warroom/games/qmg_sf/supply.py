"""Supply: tracing paths to Supply Flags through controlled, uninterdicted spaces.

A faction's reachable set is every space connected to one of its Supply Flags through
spaces its side controls that are occupied by its side or not interdicted: infantry,
tanks and airplanes (transported ones too) interdict adjacent unoccupied land spaces;
fleets and airplanes (not a carrier without one) adjacent unoccupied water spaces. MCFs
are always supplied, carry supply, and never interdict. Allies pieces in Malta are
supplied once the Malta Depot marker is placed.
"""

from __future__ import annotations

import itertools

from warroom.games.qmg_sf.board import adjacent, faction, kind, pieces, side_of
from warroom.games.qmg_sf.content import SIDE_OF_FACTION, tables
from warroom.games.qmg_sf.state import AIR, ALLIES, CARRIER, FLEET, INF, OFF, TANK, SfState


def flag_spaces(s: SfState, fac: int) -> list[int]:
    """The Supply Flag spaces of a faction now."""
    t = tables()
    out = list(t.flags[fac])
    if s.bulgaria_flag and fac in t.bulgaria_flag_factions:
        out.append(t.space("bulgaria"))
    return out


def _passability(s: SfState, side: int) -> tuple[list[bool], list[bool]]:
    """Per space: may a supply path of `side` run through it now, and would it without the
    side's own pieces there (an unoccupied space must not be interdicted)."""
    t = tables()
    n = len(t.space_ids)
    enemy = 1 - side
    own = [False] * n
    enemy_fleet = [False] * n
    land_i = [False] * n
    water_i = [False] * n
    kinds, facs, water = t.piece_kind, t.piece_faction, t.water
    for p, at in enumerate(s.loc):
        if at < 0:
            continue
        if SIDE_OF_FACTION[facs[p]] == side:
            own[at] = True
            continue
        k = kinds[p]
        if k in (FLEET, CARRIER):
            enemy_fleet[at] = True
            if k == CARRIER:
                continue
        # a piece aboard a fleet is still an infantry, tank or airplane in its water space:
        # the rule names no exception but "A carrier without an airplane"
        for x in adjacent(s, at, enemy):
            if water[x]:
                if k != INF and k != TANK:
                    water_i[x] = True
            elif k != FLEET:
                land_i[x] = True
    for sp, count in enumerate(s.mcf):
        if count > 0:
            country = t.country[sp]
            if country >= 0 and s.minor[country] == side:
                own[sp] = True
    control = s.control
    empty = [
        not enemy_fleet[sp] and not water_i[sp]
        if water[sp]
        else control[sp] == side and not land_i[sp]
        for sp in range(n)
    ]
    ok = [
        empty[sp] or (own[sp] and (not enemy_fleet[sp] if water[sp] else control[sp] == side))
        for sp in range(n)
    ]
    return ok, empty


def passable(s: SfState, side: int) -> list[bool]:
    """Per space: may a supply path of `side` run through it."""
    return _passability(s, side)[0]


_REACH: dict[tuple[int, int, int], frozenset[int]] = {}


def _key(s: SfState) -> tuple[object, ...]:
    return (
        tuple(s.loc),
        tuple(s.on),
        tuple(s.control),
        tuple(s.mcf),
        tuple(s.minor),
        s.bulgaria_flag,
    )


def reach(s: SfState, fac: int, skip: int = -1) -> frozenset[int]:
    """Spaces connected to the faction's Supply Flags (with piece `skip` lifted off the board).

    Memoized on every fact supply depends on, per state (`_state_memo`) and across states.
    Lifting a piece only matters when it was the side's last occupant of its space and that
    space is interdicted once empty.
    """
    vacated = -1
    if skip >= 0:
        at = s.loc[skip]
        side = SIDE_OF_FACTION[tables().piece_faction[skip]]
        alone = at >= 0
        if alone:
            on = s.on
            for q, q_at in enumerate(s.loc):
                if q_at == at and q != skip and on[q] != skip:
                    alone = False  # pieces sharing a space are always of one side
                    break
        if alone and not _own_mcf(s, at, side):
            vacated = at
    table, base = _state_memo(s)
    hit = table.get((fac, vacated))
    if hit is None:
        hit = table[(fac, vacated)] = _reach(s, base, fac, vacated)
    return hit


def _state_memo(s: SfState) -> tuple[dict[tuple[int, int], frozenset[int]], int]:
    """The state's own memo of `reach` (emptied when any list supply reads has changed) and
    the id of its supply facts (`_key`) across states."""
    memo = s.cached_reach
    if memo is not None:
        kept = memo[0]
        if (
            memo[1] == s.bulgaria_flag
            and kept[0] == s.loc
            and kept[1] == s.on
            and kept[2] == s.control
            and kept[3] == s.mcf
            and kept[4] == s.minor
        ):
            return memo[2], memo[3]
    key = _key(s)
    base = _BASES.get(key)
    if base is None:
        if len(_BASES) > 20000:
            _BASES.clear()
        base = _BASES[key] = next(_IDS)
    table: dict[tuple[int, int], frozenset[int]] = {}
    lists = [list(s.loc), list(s.on), list(s.control), list(s.mcf), list(s.minor)]
    s.cached_reach = (lists, s.bulgaria_flag, table, base)
    return table, base


_BASES: dict[tuple[object, ...], int] = {}
"""The id of each set of supply facts (`_key`) seen; ids are never reused."""
_IDS = itertools.count()


def _reach(s: SfState, base: int, fac: int, vacated: int) -> frozenset[int]:
    """`reach` with `vacated` (or -1) lifted, memoized across states on the id of `_key`."""
    key = (base, fac, vacated)
    hit = _REACH.get(key)
    if hit is not None:
        return hit
    if len(_REACH) > 20000:
        _REACH.clear()
    side = SIDE_OF_FACTION[fac]
    pkey = (base, side)
    cached = _PASS.get(pkey)
    if cached is None:
        if len(_PASS) > 20000:
            _PASS.clear()
        cached = _PASS[pkey] = _passability(s, side)
    ok, empty = cached
    if vacated >= 0 and ok[vacated] and not empty[vacated]:
        ok = list(ok)
        ok[vacated] = False
    elif vacated >= 0:
        hit = _REACH[key] = reach(s, fac)
        return hit
    hit = _REACH[key] = frozenset(_bfs(s, fac, side, ok))
    return hit


_PASS: dict[tuple[int, int], tuple[list[bool], list[bool]]] = {}


def board_side(piece: int) -> int:
    """The side of a piece."""
    return SIDE_OF_FACTION[tables().piece_faction[piece]]


def _own_mcf(s: SfState, space: int, side: int) -> bool:
    if s.mcf[space] <= 0:
        return False
    country = tables().country[space]
    return country >= 0 and s.minor[country] == side


def _bfs(s: SfState, fac: int, side: int, ok: list[bool]) -> set[int]:
    seen: set[int] = set()
    todo = [f for f in flag_spaces(s, fac) if ok[f]]
    seen.update(todo)
    while todo:
        sp = todo.pop()
        for nb in adjacent(s, sp, side):
            if nb not in seen and ok[nb]:
                seen.add(nb)
                todo.append(nb)
    return seen


def supplied_at(s: SfState, fac: int, space: int, reached: frozenset[int]) -> bool:
    """Whether a piece of `fac` arriving in `space` (which it will occupy) is supplied."""
    if space in reached:
        return True
    t = tables()
    if s.malta_depot and SIDE_OF_FACTION[fac] == ALLIES and space == t.space("malta"):
        return True
    side = SIDE_OF_FACTION[fac]
    if space in flag_spaces(s, fac):
        return True
    return any(nb in reached for nb in adjacent(s, space, side))


def is_supplied(s: SfState, piece: int, cache: dict[int, frozenset[int]] | None = None) -> bool:
    """Whether a piece on the board is supplied now."""
    fac = faction(piece)
    cache = {} if cache is None else cache
    if fac not in cache:
        cache[fac] = reach(s, fac)
    at = s.loc[piece]
    t = tables()
    if s.malta_depot and side_of(piece) == ALLIES and at == t.space("malta"):
        return True
    return at in cache[fac]


def unsupplied(s: SfState, side: int) -> list[int]:
    """A side's unsupplied pieces on the board."""
    cache: dict[int, frozenset[int]] = {}
    sides = pieces()[0]
    return [
        p
        for p, at in enumerate(s.loc)
        if at != OFF and sides[p] == side and not is_supplied(s, p, cache)
    ]


def airplane_on(s: SfState, piece: int) -> bool:
    """Whether a carrier carries an airplane."""
    return any(c == piece and kind(p) == AIR for p, c in enumerate(s.on))
