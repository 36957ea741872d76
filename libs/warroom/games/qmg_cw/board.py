"""The map: adjacency (with straits per bloc), contested spaces, supply, distances,
piece pools and where a piece may be built or recruited."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from warroom.games.qmg_cw.content import NAT_BLOC, Tables, tables
from warroom.games.qmg_cw.state import (
    AIR,
    ARMY,
    NA,
    NATIONALIST,
    NAVY,
    CwState,
    piece_bloc,
    piece_code,
    piece_kind,
    piece_nat,
    piece_space,
)


def neighbours(state: CwState, space: int, bloc: int) -> frozenset[int]:
    """Spaces adjacent to `space` for `bloc`: printed borders plus open straits.

    A strait is open to a bloc unless an enemy Army occupies its anchor space.
    """
    t = tables()
    straits = t.straits_at[space]
    if not straits:
        return t.adjacent[space]
    return _with_straits(t, space, straits, _army_blocs(state), bloc)


def _with_straits(
    t: Tables,
    space: int,
    straits: tuple[tuple[int, int], ...],
    armies: Mapping[int, int],
    bloc: int,
) -> frozenset[int]:
    """The space's printed neighbours plus the far side of each strait no enemy Army closes
    (`armies`: per anchor space, a bit mask of the blocs with an Army there)."""
    extra = {other for anchor, other in straits if not armies.get(anchor, 0) & ~(1 << bloc)}
    return t.adjacent[space] | extra if extra else t.adjacent[space]


def _army_blocs(state: CwState) -> dict[int, int]:
    """Per space with an Army, a bit mask of the blocs with an Army there."""
    out: dict[int, int] = {}
    for p in state.pieces:
        if piece_kind(p) == ARMY:
            out[piece_space(p)] = out.get(piece_space(p), 0) | 1 << piece_bloc(p)
    return out


def occupants(state: CwState) -> list[int]:
    """Per space, a bit mask of the blocs with pieces there."""
    occ = [0] * len(tables().space_ids)
    for p in state.pieces:
        occ[piece_space(p)] |= 1 << piece_bloc(p)
    return occ


def contested(occ: int) -> bool:
    """Whether an occupant mask names two or more blocs."""
    return occ & (occ - 1) != 0


def has_symbol(state: CwState, space: int, nat: int) -> bool:
    """A Supply symbol for a nationality: printed (not for Nationalists' purposes) or its own token."""
    if tables().printed_supply[space] and nat != NATIONALIST:
        return True
    return space * 8 + nat in state.tokens


def always_supply(state: CwState) -> set[int]:
    """The `space * 8 + nat` that the prepared Status cards keep always in supply."""
    rules = tables().supply_always
    out: set[int] = set()
    for seat in state.seats:
        for cid in seat.prepared:
            out |= rules[cid]
    return out


class Supply:
    """Supply of every piece in one position (computed lazily per nationality and piece).

    The position must not change while the object is in use: its answers are cached.
    """

    def __init__(self, state: CwState) -> None:
        self.state = state
        t = tables()
        occ = [0] * len(t.space_ids)
        armies: dict[int, int] = {}
        for p in state.pieces:
            nat = (p >> 2) & 7
            space, bit = p >> 5, 1 << (nat if nat < 2 else NA)
            occ[space] |= bit
            if p & 3 == ARMY:
                armies[space] = armies.get(space, 0) | bit
        self.occ = occ
        self._armies = armies
        self._always = always_supply(state)
        self._good: dict[int, set[int]] = {}
        self._near: dict[tuple[int, int], frozenset[int]] = {}
        self._supplied: dict[int, bool] = {}

    def neighbours(self, space: int, bloc: int) -> frozenset[int]:
        """`neighbours` in this position, cached."""
        key = (space, bloc)
        near = self._near.get(key)
        if near is None:
            t = tables()
            straits = t.straits_at[space]
            near = (
                _with_straits(t, space, straits, self._armies, bloc)
                if straits
                else t.adjacent[space]
            )
            self._near[key] = near
        return near

    def good(self, nat: int) -> set[int]:
        """Uncontested spaces holding this nationality that trace to an uncontested own
        Supply symbol (cached)."""
        if nat not in self._good:
            self._good[nat] = self._trace(nat)
        return self._good[nat]

    def _trace(self, nat: int) -> set[int]:
        state, occ, bloc = self.state, self.occ, NAT_BLOC[nat]
        own = {p >> 5 for p in state.pieces if (p >> 2) & 7 == nat}
        own = {s for s in own if not contested(occ[s])}
        if nat == NATIONALIST:
            return {s for s in own if has_symbol(state, s, nat)}
        frontier = [s for s in own if has_symbol(state, s, nat)]
        good = set(frontier)
        while frontier:
            for n in self.neighbours(frontier.pop(), bloc):
                if n in own and n not in good:
                    good.add(n)
                    frontier.append(n)
        return good

    def space_supplies(self, space: int, nat: int, with_organic: bool = True) -> bool:
        """Whether an Army or Navy of `nat` standing in `space` would be in supply."""
        state = self.state
        if has_symbol(state, space, nat) and not contested(self.occ[space] | (1 << NAT_BLOC[nat])):
            return True
        if space * 8 + nat in self._always:
            return True
        if nat == NATIONALIST:
            return False
        good = self.good(nat)
        if space in good:
            return True
        return any(n in good for n in self.neighbours(space, NAT_BLOC[nat]))

    def supplied(self, code: int) -> bool:
        """Whether a piece on the board is in supply now."""
        known = self._supplied.get(code)
        if known is None:
            known = self._supplied[code] = self._supplied_now(code)
        return known

    def _supplied_now(self, code: int) -> bool:
        if piece_kind(code) == AIR:
            space, nat = piece_space(code), piece_nat(code)
            return any(
                piece_space(p) == space
                and piece_nat(p) == nat
                and piece_kind(p) != AIR
                and self.supplied(p)
                for p in self.state.pieces
            )
        if code in self.state.organic:
            return True
        return self.space_supplies(piece_space(code), piece_nat(code))


def supply_of(state: CwState) -> Supply:
    """The position's `Supply`, kept on the state and shared by the queries that only read it
    while the pieces, supply tokens, Organic Supply and prepared cards are unchanged (a step
    that removes pieces while it asks builds its own `Supply`)."""
    prepared = [seat.prepared for seat in state.seats]
    memo = state.supply
    if isinstance(memo, tuple):
        kept, supply = memo
        if (
            kept[0] == state.pieces
            and kept[1] == state.tokens
            and kept[2] == state.organic
            and kept[3] == prepared
        ):
            return supply  # type: ignore[no-any-return]
    supply = Supply(state)
    copies = (state.pieces[:], state.tokens[:], state.organic[:], [p[:] for p in prepared])
    state.supply = (copies, supply)
    return supply


def within(state: CwState, start: int, steps: int, bloc: int) -> set[int]:
    """Spaces within `steps` moves of `start` (0 = the space itself)."""
    seen = {start}
    frontier = {start}
    for _ in range(steps):
        nxt: set[int] = set()
        for s in frontier:
            nxt |= neighbours(state, s, bloc)
        frontier = nxt - seen
        seen |= frontier
    return seen


def available(state: CwState, nat: int, kind: int) -> bool:
    """Whether a piece of this nationality and kind is off the board."""
    pool = tables().piece_pool[nat][kind]
    return sum(1 for p in state.pieces if piece_nat(p) == nat and piece_kind(p) == kind) < pool


def tokens_left(state: CwState, nat: int) -> int:
    """Supply tokens of a nationality not on the board."""
    return tables().token_pool[nat] - sum(1 for t in state.tokens if t % 8 == nat)


def can_stand(state: CwState, space: int, nat: int, kind: int) -> bool:
    """The standing piece restrictions: terrain, one per kind per Bloc, Non-Aligned not mixed."""
    return _terrain_allows(space, nat, kind) and space not in _taken(state, nat, kind)


def _terrain_allows(space: int, nat: int, kind: int) -> bool:
    t: Tables = tables()
    if kind == ARMY and t.is_sea[space]:
        return False
    if kind == NAVY and not t.is_sea[space]:
        return False
    return not (nat == NATIONALIST and t.printed_supply[space])


def _taken(state: CwState, nat: int, kind: int) -> set[int]:
    """Spaces where the Bloc already has a piece of the kind, or (Non-Aligned) a piece of
    another nationality."""
    bloc = NAT_BLOC[nat]
    return {
        piece_space(p)
        for p in state.pieces
        if piece_bloc(p) == bloc and (piece_kind(p) == kind or (bloc == NA and piece_nat(p) != nat))
    }


def air_host(state: CwState, supply: Supply, space: int, nat: int) -> bool:
    """A supplied Army or Navy of the nationality in the space (needed to place an Air Force)."""
    return any(
        piece_space(p) == space
        and piece_nat(p) == nat
        and piece_kind(p) != AIR
        and supply.supplied(p)
        for p in state.pieces
    )


def build_spaces(
    state: CwState, nat: int, kind: int, area: Iterable[int] | None, recruit: bool
) -> list[int]:
    """Spaces where a piece may be built (or recruited), within `area` when given."""
    if not available(state, nat, kind):
        return []
    t = tables()
    supply = supply_of(state)
    candidates = range(len(t.space_ids)) if area is None else sorted(set(area))
    out = []
    bloc = NAT_BLOC[nat]
    supplied_spaces: set[int] | None = None
    taken = _taken(state, nat, kind)
    if kind == AIR:
        hosts = {
            piece_space(p)
            for p in state.pieces
            if piece_nat(p) == nat and piece_kind(p) != AIR and supply.supplied(p)
        }
        return [
            s for s in candidates if s in hosts and s not in taken and _terrain_allows(s, nat, AIR)
        ]
    for s in candidates:
        if s in taken or not _terrain_allows(s, nat, kind):
            continue
        if recruit:
            out.append(s)
            continue
        if nat != NATIONALIST:
            if supplied_spaces is None:
                supplied_spaces = {
                    piece_space(p)
                    for p in state.pieces
                    if piece_nat(p) == nat and supply.supplied(p)
                }
            if not any(n in supplied_spaces for n in neighbours(state, s, bloc)):
                continue
        if supply.space_supplies(s, nat):
            out.append(s)
    return out


def place(state: CwState, space: int, nat: int, kind: int) -> int:
    """Put a piece on the board; returns its code."""
    code = piece_code(space, nat, kind)
    state.add_piece(code)
    return code
