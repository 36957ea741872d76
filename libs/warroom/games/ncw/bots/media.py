"""How a bot uses its bloc's media-track advantage before a global scoring (rulebook 6.7).

Regions: the first priority region without reinforced control, then the following ones,
wrapping round to the first; then (US and Russia) their ORBIT countries outside their regions
in the order of the 6.7 table. Within a region: 1. place influence in own ORBIT countries, 2. remove rivals'
control in own ORBIT countries, 3. eliminate rivals' control in other countries the media
position allows (4.3.2.5); ties by geopolitical importance, then the priority table.
"""

from __future__ import annotations

from warroom.games.ncw.bots.board import ALLY, BLOC, MEDIA_SIGN, Board
from warroom.games.ncw.bots.flowchart import Profile, profile, step7_regions


def media_level(board: Board, power: str) -> int:
    """The media position in favour of `power`'s bloc (0 when the bloc has no advantage)."""
    return max(0, board.media * MEDIA_SIGN[BLOC[power]])


def _own_orbit_ok(board: Board, country: str, power: str, level: int) -> bool:
    facts = board.facts[country]
    if facts.orbit != power:
        return False
    return level >= 3 or facts.lower <= 2


def _removable(board: Board, country: str, level: int) -> bool:
    facts = board.facts[country]
    if facts.kind == "regional_power":
        return False
    if level >= 5:
        return True
    if facts.kind == "geo":
        return False
    if level >= 3:
        return True
    return facts.orbit is None and facts.lower == 1


def _candidates(
    board: Board, power: str, countries: list[str], level: int
) -> list[tuple[str, str]]:
    ally = ALLY[power]
    usable = [
        c for c in countries if board.control.get(c) != ally and board.may_influence(power, c)
    ]
    own_free = [
        c for c in usable if c not in board.control and _own_orbit_ok(board, c, power, level)
    ]
    own_taken = [
        c
        for c in usable
        if board.control.get(c) not in (None, power) and _own_orbit_ok(board, c, power, level)
    ]
    others = [
        c
        for c in usable
        if board.control.get(c) not in (None, power)
        and board.facts[c].orbit != power
        and _removable(board, c, level)
    ]
    out: list[tuple[str, str]] = []
    for kind, group in (("place", own_free), ("remove", own_taken), ("remove", others)):
        ranked = sorted(group, key=lambda c: (-board.facts[c].vp, countries.index(c)))
        out.extend((kind, c) for c in ranked)
    return out


def media_benefit_targets(
    board: Board, power: str, prof: Profile | None = None, position: int | None = None
) -> list[tuple[str, str]]:
    """The bot's media-benefit moves in preference order: ("place"|"remove", country).

    `position` is the media position the benefit is granted for (default: the board's; 80-Fake
    News may count the marker elsewhere).
    """
    level = media_level(board, power) if position is None else position
    if level == 0:
        return []
    prof = prof or profile(power)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for table in step7_regions(board, prof):
        if not board.can_enter(power, table.region):
            continue
        listed = list(table.names) + [
            c for c in board.countries_in(table.region) if c not in table.names
        ]
        for move in _candidates(board, power, listed, level):
            if move[1] not in seen:
                seen.add(move[1])
                out.append(move)
    fallback = [c for c in prof.orbit_fallback if c in board.facts and c not in seen]
    out.extend(_fallback_moves(board, power, fallback, level))
    return out


def _fallback_moves(
    board: Board, power: str, countries: list[str], level: int
) -> list[tuple[str, str]]:
    """6.7's ORBIT countries outside the bot's regions, "based on the order of the following
    table": each in the table's order, placed when uncontrolled, removed when a rival holds it."""
    out: list[tuple[str, str]] = []
    for country in countries:
        holder = board.control.get(country)
        if holder in (power, ALLY[power]) or not board.may_influence(power, country):
            continue
        if _own_orbit_ok(board, country, power, level):
            out.append(("place" if holder is None else "remove", country))
    return out
