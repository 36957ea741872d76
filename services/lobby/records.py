"""Matchmade games and results in SQL: recording matches (COPY on PostgreSQL), closing
tables, walking started tables, and rating finished games once.

A mixin of `services.lobby.store.LobbyStore` (which holds the engine and sessions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import psycopg
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload, sessionmaker

from services.lobby.errors import NotFound
from services.lobby.models import MatchResultRow, PlayerRow, RatingRow, SeatRow, TableRow
from services.lobby.rows import (
    CLOSED,
    FINISHED,
    STARTED,
    MatchRecord,
    SeatPlan,
    match_request_id,
    now,
    seat_digest,
    seat_row,
)
from warroom.engine.registry import get_rules
from warroom.matchmaking import BotChoice
from warroom.ratings import RatedSeat, SkillRating, rate, rating_team


class MatchRecords:
    """Tables by id or game, matchmade games, closing, settlement."""

    engine: Engine
    sessions: sessionmaker[Session]

    def table(self, table_id: str) -> TableRow:
        """A table with its seats; NotFound when unknown."""
        with self.sessions() as session:
            table = session.scalar(
                select(TableRow)
                .where(TableRow.id == table_id)
                .options(selectinload(TableRow.seats))
            )
            if table is None:
                raise NotFound("TABLE_NOT_FOUND", f"unknown table {table_id}")
            return table

    def table_by_game(self, game_id: str) -> TableRow | None:
        """The table that started a game, if the lobby made it."""
        with self.sessions() as session:
            return session.scalar(
                select(TableRow)
                .where(TableRow.game_id == game_id)
                .options(selectinload(TableRow.seats))
            )

    def _ensure_bot(self, session: Session, bot: BotChoice) -> str:
        pid = bot.pseudo_player_id
        if session.get(PlayerRow, pid) is None:
            session.add(
                PlayerRow(
                    id=pid,
                    display_name=f"{bot.kind} bot ({bot.difficulty})",
                    guest=False,
                    bot=True,
                    created_at=now(),
                )
            )
            session.flush()
        return pid

    def record_match(
        self,
        match_id: str,
        game: str,
        variant: str,
        game_id: str,
        seats: Sequence[SeatPlan],
        tokens: Sequence[str],
        spectator_token: str = "",
        watchable: bool = True,
    ) -> TableRow:
        """A matchmade game as a started private table, watchable unless `watchable` is
        off (idempotent on the match id)."""
        with self.sessions() as session:
            existing = session.get(TableRow, match_id)
        if existing is not None:
            return self.table(match_id)
        with self.sessions.begin() as session:
            table = TableRow(
                id=match_id,
                game=game,
                variant=variant,
                options={},
                host_player_id=None,
                source="match",
                private=True,
                allow_spectators=watchable,
                clock={},
                fill_bot={},
                status=STARTED,
                game_id=game_id,
                game_request_id=match_request_id(match_id),
                spectator_token=spectator_token or None,
                created_at=now(),
                started_at=now(),
                version=1,
            )
            session.add(table)
            for plan, token in zip(seats, tokens, strict=True):
                row = seat_row(plan)
                row.seat_token_digest = seat_digest(token)
                table.seats.append(row)
        return self.table(match_id)

    def record_matches(self, records: Sequence[MatchRecord], watchable: bool = True) -> None:
        """Many matchmade games in one transaction (each as a started private table).

        On PostgreSQL the tables and seats go in as two COPY streams built as text; a
        match recorded before (a retried cycle) falls back to the idempotent per-match path.
        """
        if not records:
            return
        try:
            with self.sessions.begin() as session:
                connection = session.connection()
                if connection.dialect.name == "postgresql":
                    tables, seats = _match_copy_text(records, now(), watchable)
                    raw: Any = connection.connection.driver_connection
                    with raw.cursor() as cursor:
                        with cursor.copy(_COPY_TABLES) as copy:
                            copy.write(tables)
                        with cursor.copy(_COPY_SEATS) as copy:
                            copy.write(seats)
                else:
                    table_rows, seat_rows = _match_rows(records, now(), watchable)
                    session.execute(insert(TableRow), table_rows)
                    session.execute(insert(SeatRow), seat_rows)
        except (IntegrityError, psycopg.IntegrityError):
            for r in records:
                self.record_match(
                    r.match_id,
                    r.game,
                    r.variant,
                    r.game_id,
                    r.seats,
                    r.tokens,
                    r.spectator_token,
                    watchable,
                )

    def close(self, table_id: str, reason: str) -> None:
        """Close a table that will not be played (e.g. a match aborted by a cancellation)."""
        self.close_many([(table_id, reason)])

    def close_many(self, reasons: Sequence[tuple[str, str]]) -> None:
        """`close` for many tables (table id, reason) in one transaction."""
        with self.sessions.begin() as session:
            for table_id, reason in reasons:
                table = session.get(TableRow, table_id)
                if table is not None and table.status != FINISHED:
                    table.status = CLOSED
                    table.options = {**table.options, "closed_reason": reason}
                    table.version += 1

    def started_tables(
        self, limit: int = 500, after: tuple[datetime, str] | None = None
    ) -> list[TableRow]:
        """Started tables whose result is not recorded yet, in (started_at, id) order, after
        `after` when given."""
        with self.sessions() as session:
            query = (
                select(TableRow)
                .where(TableRow.status == STARTED)
                .options(selectinload(TableRow.seats))
                .order_by(TableRow.started_at, TableRow.id)
                .limit(limit)
            )
            if after is not None:
                stamp, table_id = after
                query = query.where(
                    (TableRow.started_at > stamp)
                    | ((TableRow.started_at == stamp) & (TableRow.id > table_id))
                )
            return list(session.scalars(query))

    # ------------------------------------------------------------------ results

    def settle(
        self, game_id: str, ranks: Mapping[int, int], result: dict[str, Any]
    ) -> dict[str, float] | None:
        """Rate a finished game once: every seat's player or bot pseudo-player moves.

        Returns the raters' new means, or None when the game is unknown to the lobby or
        already rated.
        """
        with self.sessions.begin() as session:
            table = session.scalar(
                select(TableRow)
                .where(TableRow.game_id == game_id)
                .with_for_update()
                .options(selectinload(TableRow.seats))
            )
            if table is None or session.get(MatchResultRow, game_id) is not None:
                return None
            rated: list[RatedSeat] = []
            team_victory = get_rules(table.game).team_victory
            for seat in table.seats:
                if seat.player_id:
                    rater = seat.player_id
                else:
                    bot = BotChoice(seat.bot_kind or "official", seat.bot_difficulty or "default")
                    rater = self._ensure_bot(session, bot)
                team = rating_team(seat.team, seat.index, team_victory)
                rated.append(RatedSeat(rater, team, ranks.get(seat.index, len(ranks))))
            changes: dict[str, Any] = {}
            if len({r.team for r in rated}) >= 2:
                ids = sorted({r.rater_id for r in rated})
                rows = {
                    r.player_id: r
                    for r in session.scalars(
                        select(RatingRow)
                        .where(RatingRow.game == table.game, RatingRow.player_id.in_(ids))
                        .with_for_update()
                    )
                }
                current = {k: SkillRating(r.mu, r.sigma, r.games) for k, r in rows.items()}
                for rater, new in rate(rated, current).items():
                    row = rows.get(rater)
                    before = current.get(rater, SkillRating()).mu
                    if row is None:
                        row = RatingRow(player_id=rater, game=table.game)
                        session.add(row)
                    row.mu, row.sigma, row.games = new.mu, new.sigma, new.games
                    row.ordinal, row.updated_at = new.ordinal, now()
                    changes[rater] = [before, new.mu]
            session.add(
                MatchResultRow(
                    game_id=game_id,
                    table_id=table.id,
                    game=table.game,
                    result=result,
                    changes=changes,
                    finished_at=now(),
                )
            )
            table.status = FINISHED
            table.finished_at = now()
            table.version += 1
        return {rater: float(after) for rater, (_before, after) in changes.items()}


_TABLE_COLUMNS = (
    "id, game, variant, options, host_player_id, source, private, invite_code,"
    " allow_spectators, clock, fill_bot, status, game_id, game_request_id, spectator_token,"
    " created_at, started_at, version"
)
_SEAT_COLUMNS = (
    'table_id, "index", side, team, player_id, display_name, bot_kind, bot_difficulty,'
    " automated, seat_token_digest"
)
_COPY_TABLES = f"COPY {TableRow.__tablename__} ({_TABLE_COLUMNS}) FROM STDIN"
_COPY_SEATS = f"COPY {SeatRow.__tablename__} ({_SEAT_COLUMNS}) FROM STDIN"
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _text(value: str | None) -> str:
    """A value in PostgreSQL COPY text format (\\N for NULL)."""
    if value is None:
        return "\\N"
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        return value.translate(_COPY_ESCAPES)
    return value


def _match_copy_text(
    records: Sequence[MatchRecord], stamp: datetime, watchable: bool
) -> tuple[str, str]:
    """The COPY text of matchmade tables and their seats."""
    when = stamp.isoformat()
    spectators = "t" if watchable else "f"
    tables: list[str] = []
    seats: list[str] = []
    for r in records:
        mid = _text(r.match_id)
        request = _text(match_request_id(r.match_id))
        tables.append(
            f"{mid}\t{_text(r.game)}\t{_text(r.variant)}\t{{}}\t\\N\tmatch\tt\t\\N"
            f"\t{spectators}\t{{}}\t{{}}\t{STARTED}\t{_text(r.game_id)}\t{request}"
            f"\t{_text(r.spectator_token or None)}\t{when}\t{when}\t1\n"
        )
        for p, token in zip(r.seats, r.tokens, strict=True):
            bot = p.bot
            seats.append(
                f"{mid}\t{p.index}\t{_text(p.side)}\t{_text(p.team)}\t{_text(p.player_id)}"
                f"\t{_text(p.display_name)}\t{_text(bot.kind if bot else None)}"
                f"\t{_text(bot.difficulty if bot else None)}\t{'t' if p.automated else 'f'}"
                f"\t{_text(seat_digest(token))}\n"
            )
    return "".join(tables), "".join(seats)


def _match_rows(
    records: Sequence[MatchRecord], stamp: datetime, watchable: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Matchmade tables and their seats as row dicts (the portable bulk INSERT)."""
    tables: list[dict[str, Any]] = [
        {
            "id": r.match_id,
            "game": r.game,
            "variant": r.variant,
            "options": {},
            "host_player_id": None,
            "source": "match",
            "private": True,
            "invite_code": None,
            "allow_spectators": watchable,
            "clock": {},
            "fill_bot": {},
            "status": STARTED,
            "game_id": r.game_id,
            "game_request_id": match_request_id(r.match_id),
            "spectator_token": r.spectator_token or None,
            "created_at": stamp,
            "started_at": stamp,
            "version": 1,
        }
        for r in records
    ]
    seats: list[dict[str, Any]] = [
        {
            "table_id": r.match_id,
            "index": p.index,
            "side": p.side,
            "team": p.team,
            "player_id": p.player_id,
            "display_name": p.display_name,
            "bot_kind": p.bot.kind if p.bot else None,
            "bot_difficulty": p.bot.difficulty if p.bot else None,
            "automated": p.automated,
            "seat_token_digest": seat_digest(token),
        }
        for r in records
        for p, token in zip(r.seats, r.tokens, strict=True)
    ]
    return tables, seats
