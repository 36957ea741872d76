"""Seat assignment for a proposed match: parties on one team, teams balanced, sides preferred.

Given the tickets of a match (oldest first) and a variant's layout, place every ticket on a
team (a party never splits across teams), choose the placement whose team mean ratings are
closest while honouring side preferences, then give each player a side within the team,
older tickets choosing first. Seats left over go to bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from warroom.matchmaking.model import BotChoice, SeatAssignment, SeatSlot, Ticket, VariantLayout

MAX_PLACEMENTS = 2048


@dataclass(frozen=True, slots=True)
class Seating:
    """The seats of a match and how good they are (lower cost is better)."""

    seats: tuple[SeatAssignment, ...]
    rating_spread: float
    side_misses: float


def _sides(
    group: Sequence[SeatSlot], tickets: Sequence[Ticket]
) -> tuple[list[tuple[SeatSlot, Ticket, str]], float]:
    """Give the players of `tickets` (oldest first) seats of `group`; return them and the misses.

    A player who gets their first preference costs 0, a later preference 0.5, none 1
    (players without preferences cost nothing).
    """
    free = list(group)
    placed: list[tuple[SeatSlot, Ticket, str]] = []
    misses = 0.0
    waiting: list[tuple[Ticket, str]] = []
    for ticket in tickets:
        for player in ticket.player_ids:
            chosen = None
            for rank, side in enumerate(ticket.side_preferences):
                chosen = next((s for s in free if s.side == side), None)
                if chosen is not None:
                    misses += 0.0 if rank == 0 else 0.5
                    break
            if chosen is None:
                if ticket.side_preferences:
                    misses += 1.0
                waiting.append((ticket, player))
                continue
            free.remove(chosen)
            placed.append((chosen, ticket, player))
    for (ticket, player), slot in zip(waiting, free, strict=False):
        placed.append((slot, ticket, player))
    return placed, misses


def _spread(groups: Sequence[Sequence[Ticket]]) -> float:
    means = []
    for group in groups:
        ratings = [r for t in group for r in t.ratings]
        if ratings:
            means.append(sum(ratings) / len(ratings))
    return max(means) - min(means) if len(means) > 1 else 0.0


def _placements(
    tickets: Sequence[Ticket], capacities: Sequence[int], symmetric: bool
) -> list[tuple[tuple[int, ...], ...]]:
    """Every way (up to MAX_PLACEMENTS) to put tickets into bins: per bin, the ticket indices.

    With `symmetric`, empty bins of equal capacity are interchangeable and tried once.
    """
    order = sorted(range(len(tickets)), key=lambda i: -tickets[i].size)
    results: list[tuple[tuple[int, ...], ...]] = []
    bins: list[list[int]] = [[] for _ in capacities]
    remaining = list(capacities)

    def place(k: int) -> None:
        if len(results) >= MAX_PLACEMENTS:
            return
        if k == len(order):
            results.append(tuple(tuple(b) for b in bins))
            return
        index = order[k]
        size = tickets[index].size
        tried_empty: set[int] = set()
        for b, room in enumerate(remaining):
            if room < size:
                continue
            if symmetric and not bins[b]:
                if capacities[b] in tried_empty:
                    continue
                tried_empty.add(capacities[b])
            bins[b].append(index)
            remaining[b] -= size
            place(k + 1)
            remaining[b] += size
            bins[b].pop()

    place(0)
    return results


def _greedy_teams(
    teams: Sequence[Sequence[SeatSlot]], tickets: Sequence[Ticket]
) -> tuple[list[tuple[SeatSlot, Ticket, str]], float]:
    """Solo players without side preferences: strongest first onto the team with the lowest
    mean so far (that still has room), which is optimal for two teams of two."""
    totals = [0.0] * len(teams)
    counts = [0] * len(teams)
    rooms = [len(seats) for seats in teams]
    placed: list[tuple[SeatSlot, Ticket, str]] = []
    for ticket in sorted(tickets, key=_strongest_first):
        best = -1
        lowest = 0.0
        for b, room in enumerate(rooms):
            count = counts[b]
            if count < room:
                mean = totals[b] / count if count else 0.0
                if best < 0 or mean < lowest:
                    best, lowest = b, mean
        rating = ticket.ratings[0]
        placed.append((teams[best][counts[best]], ticket, ticket.player_ids[0]))
        totals[best] += rating
        counts[best] += 1
    means = [totals[b] / counts[b] for b in range(len(teams)) if counts[b]]
    return placed, (max(means) - min(means)) if len(means) > 1 else 0.0


def _strongest_first(ticket: Ticket) -> float:
    return -ticket.ratings[0]


def seat_match(
    layout: VariantLayout,
    tickets: Sequence[Ticket],
    side_weight: float,
    fill_bot: BotChoice | None = None,
) -> Seating | None:
    """Seat `tickets` (oldest first) in `layout`; None when they cannot all be seated.

    Human seats left empty go to `fill_bot`; with no `fill_bot` every human seat must be
    taken. Seats the variant automates get the layout's official bot.
    """
    players = 0
    plain = True
    for t in tickets:
        size = len(t.player_ids)
        players += size
        if size != 1 or t.side_preferences:
            plain = False
    if players > layout.humans or (fill_bot is None and players != layout.humans):
        return None
    placed: list[tuple[SeatSlot, Ticket, str]]
    if layout.has_teams and plain:
        placed, spread = _greedy_teams(layout.team_groups, tickets)
        misses = 0.0
    elif layout.has_teams:
        teams = list(layout.team_groups)
        best: tuple[float, float, list[tuple[SeatSlot, Ticket, str]]] | None = None
        symmetric = not any(t.side_preferences for t in tickets)
        for placement in _placements(tickets, [len(t) for t in teams], symmetric):
            groups = [[tickets[i] for i in sorted(indices)] for indices in placement]
            spread = _spread(groups)
            if best is not None and spread >= best[0] + side_weight * best[1]:
                continue
            misses = 0.0
            placed = []
            for team_seats, group in zip(teams, groups, strict=True):
                team_placed, team_misses = _sides(team_seats, group)
                placed += team_placed
                misses += team_misses
            cost = spread + side_weight * misses
            if best is None or cost < best[0] + side_weight * best[1]:
                best = (spread, misses, placed)
        if best is None:
            return None
        spread, misses, placed = best
    else:
        placed, misses = _sides(layout.human_seats, tickets)
        spread = _spread([[t] for t in tickets]) if len(tickets) > 1 else 0.0
    by_seat = {slot.index: (ticket, player) for slot, ticket, player in placed}
    seats = []
    for slot in layout.seats:
        index = slot.index
        if slot.automated:
            seats.append(
                SeatAssignment(index, slot.side, slot.team, None, None, layout.official_bot)
            )
        elif index in by_seat:
            ticket, player = by_seat[index]
            seats.append(SeatAssignment(index, slot.side, slot.team, player, ticket.ticket_id))
        else:
            seats.append(SeatAssignment(index, slot.side, slot.team, None, None, fill_bot))
    return Seating(tuple(seats), spread, misses)
