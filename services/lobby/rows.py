"""The lobby's row-level vocabulary shared by its SQL modules: table statuses, the seats to
create, matchmade games to record, seat-token digests and request ids."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from services.common.auth import token_digest
from services.lobby.models import SeatRow
from warroom.matchmaking import BotChoice, VariantLayout

OPEN = "open"
STARTED = "started"
FINISHED = "finished"
CLOSED = "closed"


def now() -> datetime:
    """The current UTC time."""
    return datetime.now(UTC)


class SeatPlan(NamedTuple):
    """A seat to create at a table: side, team, and who plays it (a named tuple: a
    matchmaking cycle builds tens of thousands)."""

    index: int  # type: ignore[assignment]  # the seat number (shadows tuple.index)
    side: str
    team: str
    player_id: str | None = None
    display_name: str | None = None
    bot: BotChoice | None = None
    automated: bool = False


class MatchRecord(NamedTuple):
    """A matchmade game to record: match id, game, variant, authority game id, seats, tokens."""

    match_id: str
    game: str
    variant: str
    game_id: str
    seats: Sequence[SeatPlan]
    tokens: Sequence[str]
    spectator_token: str = ""


def seat_digest(token: str | None) -> str | None:
    """The stored digest of a seat token (None for a seat without one, e.g. a bot's)."""
    return token_digest(token) if token else None


def match_request_id(match_id: str) -> str:
    """The CreateGame request id of a matchmade game."""
    return f"match:{match_id}"


def seat_row(plan: SeatPlan) -> SeatRow:
    return SeatRow(
        index=plan.index,
        side=plan.side,
        team=plan.team,
        player_id=plan.player_id,
        display_name=plan.display_name,
        bot_kind=plan.bot.kind if plan.bot else None,
        bot_difficulty=plan.bot.difficulty if plan.bot else None,
        automated=plan.automated,
    )


def plan_seats(layout: VariantLayout, official: BotChoice | None = None) -> list[SeatPlan]:
    """Empty seats of a layout; automated seats get `official` (default: the layout's
    official bot, e.g. New Cold War's rulebook bots)."""
    return [
        SeatPlan(
            s.index,
            s.side,
            s.team,
            bot=(official or layout.official_bot) if s.automated else None,
            automated=s.automated,
        )
        for s in layout.seats
    ]
