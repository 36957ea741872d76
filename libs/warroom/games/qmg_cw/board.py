"""The map: adjacency (with straits per bloc), contested spaces, supply, distances,
piece pools and where a piece may be built or recruited."""

from __future__ import annotations

from collections.abc import Iterable

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
    adj = t.adjacent[space]
    extra: set[int] = set()
    for anchor, a, b in t.straits:
        if space not in (a, b):
            continue
        if any(
            piece_space(p) == anchor and piece_kind(p) == ARMY and piece_bloc(p) != bloc
            for p in state.pieces
        ):
            continue
        extra.add(b if space == a else a)
    return adj | extra if extra else adj


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


def always_supplied(state: CwState, space: int, nat: int) -> bool:
    """Whether a prepared Status card keeps this nationality's pieces in the space supplied."""
    t = tables()
    for seat in state.seats:
        for cid in seat.prepared:
            rule = t.cards[cid].passive.get("supply_always")
            if rule and rule["nat"] == _nat_name(nat) and t.space_ids[space] in rule["spaces"]:
                return True
    return False


def _nat_name(nat: int) -> str:
    from warroom.games.qmg_cw.content import NATS

    return NATS[nat]


def good_spaces(state: CwState, nat: int, occ: list[int]) -> set[int]:
    """Uncontested spaces holding this nationality that trace to an uncontested own Supply symbol."""
    bloc = NAT_BLOC[nat]
    own = {piece_space(p) for p in state.pieces if piece_nat(p) == nat}
    own = {s for s in own if not contested(occ[s])}
    if nat == NATIONALIST:
        return {s for s in own if has_symbol(state, s, nat)}
    frontier = [s for s in own if has_symbol(state, s, nat)]
    good = set(frontier)
    while frontier:
        s = frontier.pop()
        for n in neighbours(state, s, bloc):
            if n in own and n not in good:
                good.add(n)
                frontier.append(n)
    return good


class Supply:
    """Supply of every piece in one position (computed lazily per nationality)."""

    def __init__(self, state: CwState) -> None:
        self.state = state
        self.occ = occupants(state)
        self._good: dict[int, set[int]] = {}

    def good(self, nat: int) -> set[int]:
        """Cached `good_spaces`."""
        if nat not in self._good:
            self._good[nat] = good_spaces(self.state, nat, self.occ)
        return self._good[nat]

    def space_supplies(self, space: int, nat: int, with_organic: bool = True) -> bool:
        """Whether an Army or Navy of `nat` standing in `space` would be in supply."""
        state = self.state
        if has_symbol(state, space, nat) and not contested(self.occ[space] | (1 << NAT_BLOC[nat])):
            return True
        if always_supplied(state, space, nat):
            return True
        if nat == NATIONALIST:
            return False
        good = self.good(nat)
        if space in good:
            return True
        return any(n in good for n in neighbours(state, space, NAT_BLOC[nat]))

    def supplied(self, code: int) -> bool:
        """Whether a piece on the board is in supply now."""
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
    t: Tables = tables()
    if kind == ARMY and t.is_sea[space]:
        return False
    if kind == NAVY and not t.is_sea[space]:
        return False
    bloc = NAT_BLOC[nat]
    for p in state.pieces:
        if piece_space(p) != space or piece_bloc(p) != bloc:
            continue
        if piece_kind(p) == kind:
            return False
        if bloc == NA and piece_nat(p) != nat:
            return False
    return not (nat == NATIONALIST and t.printed_supply[space])


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
    supply = Supply(state)
    candidates = range(len(t.space_ids)) if area is None else sorted(set(area))
    out = []
    bloc = NAT_BLOC[nat]
    supplied_spaces: set[int] | None = None
    if kind == AIR:
        hosts = {
            piece_space(p)
            for p in state.pieces
            if piece_nat(p) == nat and piece_kind(p) != AIR and supply.supplied(p)
        }
        return [s for s in candidates if s in hosts and can_stand(state, s, nat, kind)]
    for s in candidates:
        if not can_stand(state, s, nat, kind):
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
