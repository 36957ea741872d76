"""SQL reads behind "my games" and "games to watch".

A player's games are the lobby tables they sit at; what the authority knows of each game
(its last change, version, status and the player's running clock) is read from the
authority's own tables in the same database (`games`, `seats`: read-only here, through
the few columns named below), so one query answers a page. Whose turn it is comes from the
authority's view (see `services.lobby.my_games`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy import (
    DateTime,
    Integer,
    Select,
    String,
    and_,
    case,
    column,
    func,
    or_,
    select,
    table,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import selectinload

from services.common.db import session_factory
from services.lobby.models import SeatRow, TableRow
from services.lobby.store import FINISHED, STARTED, now

T = TypeVar("T")
# The authority's tables, as far as the lobby reads them.
GAMES = table(
    "games",
    column("id", String),
    column("status", String),
    column("version", Integer),
    column("updated_at", DateTime(timezone=True)),
    column("finished_at", DateTime(timezone=True)),
)
GAME_SEATS = table(
    "seats",
    column("game_id", String),
    column("seat", Integer),
    column("clock_deadline", DateTime(timezone=True)),
)


@dataclass(frozen=True, slots=True)
class MyGameRow:
    """One of a player's games: the table, the player's seat, and the authority's record."""

    table: TableRow
    seat: int
    side: str
    game_status: str | None
    version: int | None
    updated_at: datetime | None
    finished_at: datetime | None
    clock_deadline: datetime | None


def watchable(query: Select[T]) -> Select[T]:
    """Restrict a TableRow query to games anyone may watch: spectators allowed, a public
    custom table or a matchmade game (private tables never)."""
    return query.where(
        TableRow.game_id.is_not(None),
        TableRow.allow_spectators.is_(True),
        TableRow.spectator_token.is_not(None),
        or_(TableRow.private.is_(False), TableRow.source == "match"),
    )


class Listings:
    """My games and watchable games (synchronous; called from worker threads)."""

    def __init__(self, engine: Engine, recent_days: int) -> None:
        self.sessions = session_factory(engine)
        self.recent = timedelta(days=recent_days)

    def my_games(
        self, player_id: str, include_finished: bool, game: str, offset: int, limit: int
    ) -> list[MyGameRow]:
        """The player's started games (and those finished recently when asked): active
        first, then by last activity, newest first."""
        active = TableRow.status == STARTED
        shown = active
        if include_finished:
            shown = or_(
                active,
                and_(TableRow.status == FINISHED, TableRow.finished_at > now() - self.recent),
            )
        activity = func.coalesce(GAMES.c.updated_at, TableRow.started_at)
        query = (
            select(
                TableRow,
                SeatRow.index,
                SeatRow.side,
                GAMES.c.status,
                GAMES.c.version,
                GAMES.c.updated_at,
                GAMES.c.finished_at,
                GAME_SEATS.c.clock_deadline,
            )
            .join(SeatRow, SeatRow.table_id == TableRow.id)
            .outerjoin(GAMES, GAMES.c.id == TableRow.game_id)
            .outerjoin(
                GAME_SEATS,
                and_(GAME_SEATS.c.game_id == TableRow.game_id, GAME_SEATS.c.seat == SeatRow.index),
            )
            .where(SeatRow.player_id == player_id, shown)
            .options(selectinload(TableRow.seats))
            .order_by(case((active, 0), else_=1), activity.desc(), TableRow.id)
            .offset(offset)
            .limit(limit)
        )
        if game:
            query = query.where(TableRow.game == game)
        with self.sessions() as session:
            return [MyGameRow(*row) for row in session.execute(query)]

    def live_games(self, game: str, variant: str, offset: int, limit: int) -> list[TableRow]:
        """Watchable games still running, newest first."""
        query = (
            select(TableRow)
            .outerjoin(GAMES, GAMES.c.id == TableRow.game_id)
            .where(TableRow.status == STARTED)
            .where(func.coalesce(GAMES.c.status, "active") == "active")
            .options(selectinload(TableRow.seats))
            .order_by(TableRow.started_at.desc(), TableRow.id)
            .offset(offset)
            .limit(limit)
        )
        query = watchable(query)
        if game:
            query = query.where(TableRow.game == game)
        if variant:
            query = query.where(TableRow.variant == variant)
        with self.sessions() as session:
            return list(session.scalars(query))

    def table_of(self, game_id: str, table_id: str) -> TableRow | None:
        """The lobby table of a game (by game id, else by table id)."""
        query = select(TableRow).options(selectinload(TableRow.seats))
        if game_id:
            query = query.where(TableRow.game_id == game_id)
        else:
            query = query.where(TableRow.id == table_id)
        with self.sessions() as session:
            return session.scalar(query)

    def is_watchable(self, table_id: str) -> bool:
        """Whether anyone may watch the table's game."""
        query = watchable(select(TableRow.id).where(TableRow.id == table_id))
        with self.sessions() as session:
            return session.scalar(query) is not None
