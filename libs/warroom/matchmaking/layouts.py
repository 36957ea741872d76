"""Variant seat layouts read from the rules registry (seats, sides, teams, automated seats)."""

from __future__ import annotations

from functools import cache

from warroom.engine.registry import get_rules
from warroom.matchmaking.model import BotChoice, SeatSlot, VariantLayout

OFFICIAL_BOTS: dict[str, BotChoice] = {
    "ncw": BotChoice("ncw-official", "intermediate"),
}


@cache
def layouts_for(game_id: str) -> dict[str, VariantLayout]:
    """Every variant of a registered game as a layout, in the rules' order.

    Teams come from the seats of a game set up with seed 0 (the rules describe seats
    only for a state). Raises RulesError for an unknown game.
    """
    rules = get_rules(game_id)
    official = OFFICIAL_BOTS.get(game_id, BotChoice())
    layouts: dict[str, VariantLayout] = {}
    for info in rules.variants():
        try:
            seats = list(rules.seats(rules.setup(0, info.id, {})))
        except Exception:
            seats = []
        if len(seats) != info.seats:
            slots = tuple(
                SeatSlot(i, info.sides[i] if i < len(info.sides) else f"seat {i}", str(i))
                for i in range(info.seats)
            )
        else:
            slots = tuple(SeatSlot(s.index, s.side, s.team) for s in seats)
        automated = set(info.bot_seats)
        slots = tuple(SeatSlot(s.index, s.side, s.team, s.index in automated) for s in slots)
        layouts[info.id] = VariantLayout(game_id, info.id, slots, official)
    return layouts
