"""The match function: a pool of tickets in, disjoint match proposals out. Pure, no I/O.

The oldest ticket anchors each match. Its rating window widens with its waiting time;
the nearest-rated compatible tickets inside the window fill the variant's human seats
(parties packed onto one team), preferring the ticket's variants in order and variants
with more human seats before fewer (until `accept_fewer_after_s`). Once a ticket that
allows bots has waited `bot_fill_after_s`, the seats nobody fills go to bots.

Tickets sit in a doubly linked list in rating order, so each anchor walks outward from
its own position past no taken ticket: one cycle over n tickets costs O(n log n).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from warroom.matchmaking.model import (
    MatchConfig,
    MatchOutcome,
    Proposal,
    Ticket,
    VariantLayout,
    default_variants,
)
from warroom.matchmaking.seating import seat_match


def acceptable_variants(ticket: Ticket, layouts: Mapping[str, VariantLayout]) -> tuple[str, ...]:
    """The variants a ticket accepts and fits, in the order they are tried."""
    if ticket.variants:
        names = tuple(v for v in ticket.variants if v in layouts)
    else:
        names = tuple(
            sorted(default_variants(list(layouts.values())), key=lambda v: -layouts[v].humans)
        )
    return tuple(v for v in names if fits(ticket, layouts[v]))


def fits(ticket: Ticket, layout: VariantLayout) -> bool:
    """Whether the ticket's players can all sit in the variant (a party within one team)."""
    if ticket.size > layout.humans:
        return False
    return not layout.has_teams or ticket.size <= max(layout.capacities())


def validate(ticket: Ticket, layouts: Mapping[str, VariantLayout]) -> str | None:
    """Why a ticket can never be matched in these layouts, or None when it can."""
    unknown = [v for v in ticket.variants if v not in layouts]
    if unknown:
        known = ", ".join(sorted(layouts))
        return f"unknown variants {unknown} (known: {known})"
    if len(set(ticket.player_ids)) != len(ticket.player_ids):
        return "a party lists a player twice"
    if not acceptable_variants(ticket, layouts):
        return f"no acceptable variant seats a party of {ticket.size} on one side or bloc"
    return None


class _Pool:
    """Tickets in rating order with unlink-on-take neighbours."""

    def __init__(self, tickets: Sequence[Ticket]) -> None:
        rating = [t.rating for t in tickets]
        # a stable sort by rating: ties keep index order, as a (rating, index) key would
        self.order = order = sorted(range(len(tickets)), key=rating.__getitem__)
        self.position = position = [0] * len(tickets)
        for pos, index in enumerate(order):
            position[index] = pos
        n = len(tickets)
        self.prev = list(range(-1, n - 1))
        self.next = [*range(1, n), -1] if n else []
        self.taken = [False] * n
        self.ratings = [rating[i] for i in order]

    def take(self, index: int) -> None:
        pos = self.position[index]
        self.taken[index] = True
        before, after = self.prev[pos], self.next[pos]
        if before >= 0:
            self.next[before] = after
        if after >= 0:
            self.prev[after] = before


class _Near:
    """The untaken tickets within `window` of one anchor, nearest rating first: walked from
    the pool on demand (at most `limit`) and replayable (each variant tried re-reads them)."""

    def __init__(self, pool: _Pool, index: int, window: float, limit: int) -> None:
        pos = pool.position[index]
        self._pool = pool
        self._centre = pool.ratings[pos]
        self._left, self._right = pool.prev[pos], pool.next[pos]
        self._window = window
        self._left_over = limit
        self._seen: list[int] = []

    def __iter__(self) -> Iterator[int]:
        yield from self._seen
        pool, seen, window, centre = self._pool, self._seen, self._window, self._centre
        ratings, order, prev, next_ = pool.ratings, pool.order, pool.prev, pool.next
        while self._left_over > 0:
            left, right = self._left, self._right
            left_gap = centre - ratings[left] if left >= 0 else window + 1.0
            right_gap = ratings[right] - centre if right >= 0 else window + 1.0
            if left_gap > window and right_gap > window:
                self._left_over = 0
                return
            self._left_over -= 1
            if left_gap <= right_gap:
                item = order[left]
                self._left = prev[left]
            else:
                item = order[right]
                self._right = next_[right]
            seen.append(item)
            yield item


def make_matches(
    tickets: Sequence[Ticket],
    layouts: Mapping[str, VariantLayout],
    now: float,
    config: MatchConfig | None = None,
) -> MatchOutcome:
    """Form disjoint match proposals from one pool (one game) of tickets at time `now`."""
    rejected: dict[str, str] = {}
    proposals = tuple(iter_matches(tickets, layouts, now, config, rejected))
    taken_ids = {t for p in proposals for t in p.ticket_ids}
    unmatched = tuple(
        t.ticket_id for t in tickets if t.ticket_id not in taken_ids and t.ticket_id not in rejected
    )
    return MatchOutcome(proposals, unmatched, rejected)


def iter_matches(
    tickets: Sequence[Ticket],
    layouts: Mapping[str, VariantLayout],
    now: float,
    config: MatchConfig | None = None,
    rejected: dict[str, str] | None = None,
) -> Iterator[Proposal]:
    """`make_matches`'s proposals one by one, in the same order, as each anchor forms its
    match (a caller can act on the first ones while the rest are formed); tickets that can
    never match go into `rejected` (ticket id -> reason) before the first proposal."""
    config = config or MatchConfig()
    rejected = {} if rejected is None else rejected
    accepts, accept_sets, sizes = _acceptance(tickets, layouts, rejected)
    allow = [t.allow_bots for t in tickets]
    pool = _Pool(tickets)
    for index, ticket_accepts in enumerate(accepts):
        if not ticket_accepts:
            pool.take(index)
    most_humans: dict[tuple[str, ...], int] = {}
    created = [t.created_at for t in tickets]
    anchors = sorted(range(len(tickets)), key=created.__getitem__)  # stable: ties by index
    for anchor in anchors:
        if pool.taken[anchor]:
            continue
        ticket = tickets[anchor]
        waited = ticket.waited(now)
        window = config.window(waited)
        near = _Near(pool, anchor, window, config.max_scan)
        most = most_humans.get(accepts[anchor])
        if most is None:
            most = most_humans[accepts[anchor]] = max(layouts[v].humans for v in accepts[anchor])
        proposal: Proposal | None = None
        chosen: list[int] | None = None
        for variant in accepts[anchor]:
            layout = layouts[variant]
            if layout.humans < most and waited < config.accept_fewer_after_s:
                continue
            chosen = _fill(layout, anchor, near, sizes, allow, accept_sets, bots=False)
            if chosen is not None:
                proposal = _propose(layout, chosen, tickets, config, window, bots=False)
                if proposal is not None:
                    break
        if proposal is None and ticket.allow_bots and waited >= ticket.bot_fill_after_s:
            for variant in accepts[anchor]:
                layout = layouts[variant]
                chosen = _fill(layout, anchor, near, sizes, allow, accept_sets, bots=True)
                if chosen is not None:
                    proposal = _propose(layout, chosen, tickets, config, window, bots=True)
                    if proposal is not None:
                        break
        if proposal is None:
            continue
        for index in chosen or ():
            pool.take(index)
        yield proposal


def _acceptance(
    tickets: Sequence[Ticket], layouts: Mapping[str, VariantLayout], rejected: dict[str, str]
) -> tuple[list[tuple[str, ...]], list[frozenset[str]], list[int]]:
    """Per ticket: the variants it accepts (in order, and as a set) and its size; the
    tickets no variant fits go into `rejected` with the reason."""
    accepts: list[tuple[str, ...]] = []
    accept_sets: list[frozenset[str]] = []
    sizes: list[int] = []
    memo: dict[tuple[tuple[str, ...], int, bool], tuple[tuple[str, ...], frozenset[str]]] = {}
    for ticket in tickets:
        players = ticket.player_ids
        size = len(players)
        key = (ticket.variants, size, size == 1 or len(set(players)) == size)
        known = memo.get(key)
        if known is None:
            reason = validate(ticket, layouts)
            if reason is not None:
                rejected[ticket.ticket_id] = reason
                known = memo[key] = ((), frozenset())
            else:
                names = acceptable_variants(ticket, layouts)
                known = memo[key] = (names, frozenset(names))
        elif not known[0]:
            rejected[ticket.ticket_id] = validate(ticket, layouts) or "not acceptable"
        accepts.append(known[0])
        accept_sets.append(known[1])
        sizes.append(size)
    return accepts, accept_sets, sizes


def _best_bin(remaining: list[int], size: int) -> int:
    """The fullest bin that still takes `size` (best fit), or -1."""
    best = -1
    for b, room in enumerate(remaining):
        if room >= size and (best < 0 or room < remaining[best]):
            best = b
    return best


def _fill(
    layout: VariantLayout,
    anchor: int,
    near: Iterable[int],
    sizes: Sequence[int],
    allow_bots: Sequence[bool],
    accept_sets: Sequence[frozenset[str]],
    bots: bool,
) -> list[int] | None:
    """Tickets (indices, anchor first) that fill the layout; with bots, as many as fit.

    Parties are packed best-fit into teams (one bin for all seats when the game has no teams).
    """
    remaining = list(layout.capacities())
    first = _best_bin(remaining, sizes[anchor])
    if first < 0:
        return None
    remaining[first] -= sizes[anchor]
    needed = layout.humans - sizes[anchor]
    chosen = [anchor]
    variant = layout.variant
    for index in near:
        if needed == 0:
            break
        size = sizes[index]
        if size > needed or variant not in accept_sets[index]:
            continue
        if bots and not allow_bots[index]:
            continue
        b = _best_bin(remaining, size)
        if b < 0:
            continue
        remaining[b] -= size
        chosen.append(index)
        needed -= size
    if needed and not bots:
        return None
    return chosen


def _propose(
    layout: VariantLayout,
    chosen: Sequence[int],
    tickets: Sequence[Ticket],
    config: MatchConfig,
    window: float,
    bots: bool,
) -> Proposal | None:
    members = sorted((tickets[i] for i in chosen), key=lambda t: (t.created_at, t.ticket_id))
    fill_bot = tickets[chosen[0]].fill_bot if bots else None
    seating = seat_match(layout, members, config.side_weight, fill_bot)
    if seating is None:
        return None
    return Proposal(
        game_id=layout.game_id,
        variant=layout.variant,
        ticket_ids=tuple(t.ticket_id for t in members),
        seats=seating.seats,
        bot_filled=bots
        and any(s.bot is not None and not _automated(layout, s.seat) for s in seating.seats),
        rating_spread=seating.rating_spread,
        window=window,
    )


def _automated(layout: VariantLayout, seat: int) -> bool:
    return layout.seats[seat].automated
