"""Map and piece queries: adjacency (with straits), occupancy, control, placing and removing.

Pieces from opposing sides never share a space; Minor Country Forces (MCFs) count as
pieces of the side their country was activated for.
"""

from __future__ import annotations

from functools import cache

from warroom.games.qmg_sf.content import SIDE_OF_FACTION, Tables, tables
from warroom.games.qmg_sf.state import AIR, CARRIER, FLEET, INF, NEUTRAL, OFF, TANK, USA, SfState


def T() -> Tables:
    """The content tables."""
    return tables()


@cache
def _strait_partners() -> tuple[tuple[tuple[int, int], ...], ...]:
    t = tables()
    out: list[list[tuple[int, int]]] = [[] for _ in t.space_ids]
    for anchor, a, b in t.straits:
        out[a].append((anchor, b))
        out[b].append((anchor, a))
    return tuple(tuple(x) for x in out)


@cache
def _base_adj() -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(sorted(a)) for a in tables().adj)


Adjacency = tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[int, int], ...], ...]]
_ADJACENCY: Adjacency | None = None


def _adjacency() -> Adjacency:
    """Per space: its adjacent spaces, and its (anchor, other side) straits."""
    global _ADJACENCY
    if _ADJACENCY is None:
        _ADJACENCY = (_base_adj(), _strait_partners())
    return _ADJACENCY


def adjacent(s: SfState, space: int, side: int) -> tuple[int, ...]:
    """Spaces adjacent to `space` for `side` (a strait counts when `side` controls its anchor)."""
    adjacency, straits = _ADJACENCY or _adjacency()
    base = adjacency[space]
    partners = straits[space]
    if not partners:
        return base
    extra = tuple(other for anchor, other in partners if s.control[anchor] == side)
    return base + extra if extra else base


def is_adjacent(s: SfState, a: int, b: int, side: int) -> bool:
    """Whether b is adjacent to a for `side`."""
    if b in tables().adj[a]:
        return True
    return any(other == b and s.control[anchor] == side for anchor, other in _strait_partners()[a])


_PIECES: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None


def pieces() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Per piece: its side, its faction and its kind, read once from the content tables (the
    hot loops of the rules and bots index these tuples instead of calling per piece)."""
    global _PIECES
    if _PIECES is None:
        t = tables()
        sides = tuple(SIDE_OF_FACTION[f] for f in t.piece_faction)
        _PIECES = (sides, t.piece_faction, t.piece_kind)
    return _PIECES


def side_of(piece: int) -> int:
    """The side a piece belongs to."""
    return (_PIECES or pieces())[0][piece]


def faction(piece: int) -> int:
    """A piece's faction."""
    return (_PIECES or pieces())[1][piece]


def kind(piece: int) -> int:
    """A piece's kind."""
    return (_PIECES or pieces())[2][piece]


def pieces_at(s: SfState, space: int) -> list[int]:
    """Every piece in a space (carried ones included)."""
    return [p for p, at in enumerate(s.loc) if at == space]


_OCC: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def occupancy(s: SfState) -> tuple[int, ...]:
    """Per space: bit 0/1 Axis/Allies present (pieces or MCFs), bit 2/3 Axis/Allies fleet or carrier.

    Memoized on the state (served while its lists still equal the copies kept with the
    answer) and across states on the piece positions and minor-country facts (states are
    never shared mutably, so equal keys mean equal answers).
    """
    loc, mcf, minor = s.loc, s.mcf, s.minor
    memo = s.cached_occupancy
    if memo is not None and memo[0] == loc and memo[1] == mcf and memo[2] == minor:
        return memo[3]
    key = (tuple(loc), tuple(mcf), tuple(minor))
    hit = _OCC.get(key)
    if hit is not None:
        s.cached_occupancy = (list(loc), list(mcf), list(minor), hit)
        return hit
    t = tables()
    occ = [0] * len(t.space_ids)
    for p, at in enumerate(s.loc):
        if at == OFF:
            continue
        sd = SIDE_OF_FACTION[t.piece_faction[p]]
        occ[at] |= 1 << sd
        if t.piece_kind[p] in (FLEET, CARRIER):
            occ[at] |= 4 << sd
    for sp, n in enumerate(s.mcf):
        if n > 0:
            c = t.country[sp]
            if c >= 0 and s.minor[c] >= 0:
                occ[sp] |= 1 << s.minor[c]
    if len(_OCC) > 20000:
        _OCC.clear()
    out = tuple(occ)
    _OCC[key] = out
    s.cached_occupancy = (list(loc), list(mcf), list(minor), out)
    return out


def mcf_side(s: SfState, space: int) -> int:
    """The side of the MCFs in a space (-1 when none or still neutral)."""
    if s.mcf[space] <= 0:
        return -1
    c = tables().country[space]
    return s.minor[c] if c >= 0 else -1


def occupant(s: SfState, space: int) -> int:
    """The side occupying a space (pieces or MCFs), or -1 when unoccupied."""
    o = occupancy(s)[space] & 3
    return -1 if o == 0 else (0 if o == 1 else 1)


def occupied_by(s: SfState, space: int, side: int) -> bool:
    """Whether `side` has a piece or MCF in the space."""
    return bool(occupancy(s)[space] >> side & 1)


def enemy_occupied(s: SfState, space: int, side: int) -> bool:
    """Whether the other side has a piece or MCF in the space."""
    return bool(occupancy(s)[space] >> (1 - side) & 1)


def controls(s: SfState, space: int, side: int) -> bool:
    """Control: land by marker; water by fleets/carriers (unoccupied water is both sides')."""
    if tables().water[space]:
        return not occupancy(s)[space] >> (3 - side) & 1
    return s.control[space] == side


def neutral(s: SfState, space: int) -> bool:
    """Whether a land space belongs to a still-neutral minor country."""
    return s.control[space] == NEUTRAL


def cargo(s: SfState, carrier: int) -> list[int]:
    """Pieces carried by a fleet or carrier."""
    return [p for p, c in enumerate(s.on) if c == carrier]


def transported(s: SfState, piece: int) -> bool:
    """Whether a piece is being transported by a fleet (not carried by a carrier)."""
    c = s.on[piece]
    return c >= 0 and kind(c) == FLEET


def can_transport(fleet: int, piece: int) -> bool:
    """Naval transport: UK fleets carry UK/French, USA fleets USA/French, Pact fleets Axis."""
    ff, pf = faction(fleet), faction(piece)
    if SIDE_OF_FACTION[ff] != SIDE_OF_FACTION[pf]:
        return False
    if SIDE_OF_FACTION[ff] == 0:
        return True
    return pf == ff or pf == 4


def usa_idle(s: SfState, piece_faction: int) -> bool:
    """Before the USA at War round, USA pieces cannot move or be deployed."""
    return piece_faction == USA and s.round < tables().usa_at_war


def place(s: SfState, piece: int, space: int, on: int = OFF) -> None:
    """Put a piece in a space (optionally onto a fleet/carrier); infantry and tanks take control."""
    s.loc[piece] = space
    s.on[piece] = on
    if on < 0 and kind(piece) in (INF, TANK) and not tables().water[space]:
        s.set_control(space, side_of(piece))


def move(s: SfState, piece: int, space: int, on: int = OFF) -> None:
    """Move a piece (and anything it carries)."""
    for c in cargo(s, piece):
        s.loc[c] = space
    place(s, piece, space, on)


def remove(s: SfState, piece: int) -> list[int]:
    """Take a piece off the board with anything it transports; the pieces removed."""
    gone = [piece]
    for c in cargo(s, piece):
        gone.append(c)
        s.loc[c] = OFF
        s.on[c] = OFF
    s.loc[piece] = OFF
    s.on[piece] = OFF
    return gone


def eliminate(s: SfState, piece: int) -> list[int]:
    """Remove a piece; a carrier carrying an airplane loses the airplane instead."""
    if kind(piece) == CARRIER:
        planes = [c for c in cargo(s, piece) if kind(c) == AIR]
        if planes:
            return remove(s, planes[0])
    return remove(s, piece)


def activate(s: SfState, country: int, side: int) -> bool:
    """Activate a neutral minor country for a side; False if it was not neutral."""
    if s.minor[country] != NEUTRAL:
        return False
    s.minor[country] = side
    for sp in tables().country_spaces[country]:
        s.set_control(sp, side)
        if tables().mcf_start[sp] == 0:
            s.mcf[sp] = 0
    return True


def available(s: SfState, piece_faction: int, piece_kind: int) -> list[int]:
    """Available (off-board) pieces of a faction and kind."""
    t = tables()
    return [
        p
        for p, at in enumerate(s.loc)
        if at == OFF and t.piece_faction[p] == piece_faction and t.piece_kind[p] == piece_kind
    ]


def on_board(s: SfState, piece_faction: int, piece_kind: int) -> list[int]:
    """On-board pieces of a faction and kind."""
    t = tables()
    return [
        p
        for p, at in enumerate(s.loc)
        if at != OFF and t.piece_faction[p] == piece_faction and t.piece_kind[p] == piece_kind
    ]


def name(space: int) -> str:
    """A space's display name."""
    return tables().names[space]


@cache
def _piece_names() -> tuple[str, ...]:
    from warroom.games.qmg_sf.content import FACTIONS, KINDS

    t = tables()
    return tuple(
        f"{FACTIONS[f]} {KINDS[k]} #{p}"
        for p, (f, k) in enumerate(zip(t.piece_faction, t.piece_kind, strict=True))
    )


def piece_name(piece: int) -> str:
    """A piece's display name, e.g. 'UK fleet #2'."""
    return _piece_names()[piece]
