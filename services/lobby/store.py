"""SQL access of the lobby (synchronous; the service calls it from worker threads).

Players, credentials, ratings, tables with their seats, and rated results. Table changes
lock the table row (SELECT ... FOR UPDATE) so concurrent joins never overfill a seat.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg
from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from services.common.auth import token_digest
from services.common.db import session_factory
from services.common.validation import check_text
from services.lobby.auth import hash_password, verify_password
from services.lobby.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from services.lobby.models import (
    CredentialRow,
    MatchResultRow,
    PlayerRow,
    RatingRow,
    SeatRow,
    TableRow,
)
from warroom.engine.registry import get_rules
from warroom.matchmaking import BotChoice, VariantLayout
from warroom.ratings import RatedSeat, SkillRating, rate, rating_team

OPEN = "open"
STARTED = "started"
FINISHED = "finished"
CLOSED = "closed"
NAME_MAX = 32
PASSWORD_MAX = 256


def now() -> datetime:
    """The current UTC time."""
    return datetime.now(UTC)


def _clean_name(name: str) -> str:
    check_text(name, "name", 4 * NAME_MAX)
    name = " ".join(name.split())
    if not name:
        raise InvalidArgument("MISSING_FIELD", "name is empty", "name")
    check_text(name, "name", NAME_MAX)
    if name.lower().startswith("bot:"):
        raise InvalidArgument(
            "RESERVED_NAME", "names starting with 'bot:' are reserved for bots", "name"
        )
    return name


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """A seat to create at a table: side, team, and who plays it."""

    index: int
    side: str
    team: str
    player_id: str | None = None
    display_name: str | None = None
    bot: BotChoice | None = None
    automated: bool = False


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """The fields of a player the enqueue path needs."""

    id: str
    display_name: str
    bot: bool


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A matchmade game to record: match id, game, variant, authority game id, seats, tokens."""

    match_id: str
    game: str
    variant: str
    game_id: str
    seats: Sequence[SeatPlan]
    tokens: Sequence[str]
    spectator_token: str = ""


class LobbyStore:
    """Typed SQL access for the lobby."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)

    # ------------------------------------------------------------------ players

    def login(self, name: str, password: str, register: bool) -> PlayerRow:
        """A guest (no password) or a registered player, created on `register`."""
        display = _clean_name(name)
        if not password:
            if register:
                raise InvalidArgument(
                    "PASSWORD_REQUIRED", "registering needs a password", "password"
                )
            with self.sessions.begin() as session:
                player = PlayerRow(
                    id=f"g-{uuid.uuid4().hex[:16]}",
                    display_name=display,
                    guest=True,
                    bot=False,
                    created_at=now(),
                )
                session.add(player)
            return player
        if len(password) < 8:
            raise InvalidArgument(
                "WEAK_PASSWORD", "password must have at least 8 characters", "password"
            )
        check_text(password, "password", PASSWORD_MAX)
        account = display.lower()
        with self.sessions() as session:
            existing = session.scalar(select(PlayerRow).where(PlayerRow.account == account))
            credential = session.get(CredentialRow, existing.id) if existing is not None else None
        if existing is None:
            if not register:
                raise Unauthenticated(
                    "NO_SUCH_ACCOUNT", f"no account named {display!r}; set register to create it"
                )
            digest = hash_password(password)
            try:
                with self.sessions.begin() as session:
                    player = PlayerRow(
                        id=f"p-{uuid.uuid4().hex[:16]}",
                        display_name=display,
                        account=account,
                        guest=False,
                        bot=False,
                        created_at=now(),
                    )
                    session.add(player)
                    session.flush()
                    session.add(
                        CredentialRow(player_id=player.id, password_hash=digest, updated_at=now())
                    )
                return player
            except IntegrityError:
                raise FailedPrecondition(
                    "ACCOUNT_TAKEN", f"account {display!r} was just taken"
                ) from None
        if credential is None or not verify_password(credential.password_hash, password):
            raise Unauthenticated("WRONG_PASSWORD", f"wrong password for {display!r}")
        return existing

    def player(self, player_id: str) -> tuple[PlayerRow, list[RatingRow]]:
        """A player and their ratings; NotFound when unknown."""
        with self.sessions() as session:
            player = session.get(PlayerRow, player_id)
            if player is None:
                raise NotFound("PLAYER_NOT_FOUND", f"unknown player {player_id}")
            ratings = list(
                session.scalars(
                    select(RatingRow)
                    .where(RatingRow.player_id == player_id)
                    .order_by(RatingRow.game)
                )
            )
            return player, ratings

    def players(self, player_ids: Sequence[str]) -> dict[str, PlayerRow]:
        """The known players among `player_ids`."""
        with self.sessions() as session:
            rows = session.scalars(select(PlayerRow).where(PlayerRow.id.in_(list(player_ids))))
            return {row.id: row for row in rows}

    def players_with_ratings(
        self, game: str, player_ids: Sequence[str]
    ) -> tuple[dict[str, PlayerInfo], dict[str, SkillRating]]:
        """The known players among `player_ids` and their ratings in `game` (one Core query,
        the enqueue hot path)."""
        query = (
            select(
                PlayerRow.id,
                PlayerRow.display_name,
                PlayerRow.bot,
                RatingRow.mu,
                RatingRow.sigma,
                RatingRow.games,
            )
            .outerjoin(RatingRow, (RatingRow.player_id == PlayerRow.id) & (RatingRow.game == game))
            .where(PlayerRow.id.in_(list(player_ids)))
        )
        players: dict[str, PlayerInfo] = {}
        ratings: dict[str, SkillRating] = {}
        with self.engine.connect() as connection:
            for pid, name, bot, mu, sigma, games in connection.execute(query):
                players[pid] = PlayerInfo(pid, name, bool(bot))
                if mu is not None:
                    ratings[pid] = SkillRating(mu, sigma, games)
        return players, ratings

    def means(self, player_id: str) -> dict[str, float]:
        """A player's rating mean per game."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(RatingRow.game, RatingRow.mu).where(RatingRow.player_id == player_id)
            )
            return {game: float(mu) for game, mu in rows}

    def ratings(self, game: str, rater_ids: Sequence[str]) -> dict[str, SkillRating]:
        """Current ratings in one game (raters without one are left out)."""
        with self.sessions() as session:
            rows = session.scalars(
                select(RatingRow).where(
                    RatingRow.game == game, RatingRow.player_id.in_(list(rater_ids))
                )
            )
            return {r.player_id: SkillRating(r.mu, r.sigma, r.games) for r in rows}

    def leaderboard(self, game: str, offset: int, limit: int) -> list[tuple[PlayerRow, RatingRow]]:
        """Ratings of one game by ordinal, best first (guests are not listed)."""
        with self.sessions() as session:
            rows = session.execute(
                select(PlayerRow, RatingRow)
                .join(RatingRow, RatingRow.player_id == PlayerRow.id)
                .where(RatingRow.game == game, PlayerRow.guest.is_(False))
                .order_by(RatingRow.ordinal.desc(), PlayerRow.id)
                .offset(offset)
                .limit(limit)
            )
            return [(p, r) for p, r in rows]

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

    # ------------------------------------------------------------------ tables

    def create_table(
        self,
        *,
        game: str,
        variant: str,
        options: Mapping[str, str],
        host: PlayerRow,
        seats: Sequence[SeatPlan],
        private: bool,
        allow_spectators: bool,
        clock: dict[str, Any],
        fill_bot: dict[str, Any],
    ) -> TableRow:
        """A new open table with the host seated."""
        table = TableRow(
            id=f"tb-{uuid.uuid4().hex[:16]}",
            game=game,
            variant=variant,
            options=dict(options),
            host_player_id=host.id,
            source="custom",
            private=private,
            invite_code=secrets.token_urlsafe(6) if private else None,
            allow_spectators=allow_spectators,
            clock=clock,
            fill_bot=fill_bot,
            status=OPEN,
            created_at=now(),
            version=0,
        )
        with self.sessions.begin() as session:
            session.add(table)
            for plan in seats:
                table.seats.append(_seat_row(plan))
        return self.table(table.id)

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

    def list_tables(
        self, game: str | None, variant: str, open_only: bool, offset: int, limit: int
    ) -> list[TableRow]:
        """Public open tables, newest first."""
        with self.sessions() as session:
            query = (
                select(TableRow)
                .where(TableRow.status == OPEN, TableRow.private.is_(False))
                .options(selectinload(TableRow.seats))
                .order_by(TableRow.created_at.desc(), TableRow.id)
            )
            if game:
                query = query.where(TableRow.game == game)
            if variant:
                query = query.where(TableRow.variant == variant)
            if open_only:
                open_seat = (
                    select(SeatRow.id)
                    .where(
                        SeatRow.table_id == TableRow.id,
                        SeatRow.player_id.is_(None),
                        SeatRow.bot_kind.is_(None),
                        SeatRow.automated.is_(False),
                    )
                    .exists()
                )
                query = query.where(open_seat)
            return list(session.scalars(query.offset(offset).limit(limit)))

    def _locked(self, session: Session, table_id: str) -> TableRow:
        table = session.scalar(
            select(TableRow)
            .where(TableRow.id == table_id)
            .with_for_update()
            .options(selectinload(TableRow.seats))
        )
        if table is None:
            raise NotFound("TABLE_NOT_FOUND", f"unknown table {table_id}")
        return table

    def join_table(
        self, table_id: str, player: PlayerRow, side: str, invite_code: str
    ) -> tuple[TableRow, bool]:
        """Seat a player (preferred side if free); returns the table and whether they were seated
        before. Joining a table one already sits at changes nothing."""
        with self.sessions.begin() as session:
            table = self._locked(session, table_id)
            if any(s.player_id == player.id for s in table.seats):
                return table, True
            if table.private and not secrets.compare_digest(
                (invite_code or "").encode(), (table.invite_code or "").encode()
            ):
                raise PermissionDenied(
                    "WRONG_INVITE_CODE" if invite_code else "INVITE_CODE_REQUIRED",
                    f"table {table_id} is private: "
                    + ("wrong invite code" if invite_code else "an invite code is required"),
                )
            _check_open(table)
            free = [s for s in table.seats if _open(s)]
            if not free:
                raise FailedPrecondition("TABLE_FULL", f"table {table_id} is full")
            if side and not any(s.side == side for s in table.seats):
                sides = ", ".join(s.side for s in table.seats)
                raise InvalidArgument(
                    "UNKNOWN_SIDE",
                    f"table {table_id} has no side {side!r} (sides: {sides})",
                    "side_preference",
                )
            seat = next((s for s in free if s.side == side), free[0])
            seat.player_id = player.id
            seat.display_name = player.display_name
            table.version += 1
        return self.table(table_id), False

    def leave_table(self, table_id: str, player_id: str) -> TableRow:
        """Free the player's seat; a leaving host hands the table on, or closes it when alone."""
        with self.sessions.begin() as session:
            table = self._locked(session, table_id)
            seat = next((s for s in table.seats if s.player_id == player_id), None)
            if seat is None:
                raise FailedPrecondition("NOT_SEATED", f"you do not sit at table {table_id}")
            if table.status == STARTED:
                raise FailedPrecondition(
                    "TABLE_STARTED", f"table {table_id} has started; resign in the game instead"
                )
            _check_open(table)
            seat.player_id = None
            seat.display_name = None
            if table.host_player_id == player_id:
                others = [s.player_id for s in table.seats if s.player_id]
                if others:
                    table.host_player_id = others[0]
                else:
                    table.status = CLOSED
            table.version += 1
        return self.table(table_id)

    def check_start(self, table_id: str, player_id: str) -> TableRow:
        """The table if `player_id` may start it now."""
        table = self.table(table_id)
        check_startable(table, player_id)
        return table

    def mark_started(
        self,
        table_id: str,
        version: int,
        game_id: str,
        fill: BotChoice,
        tokens: Sequence[str],
        spectator_token: str,
        request_id: str = "",
    ) -> TableRow:
        """Record a started game: empty seats become `fill` bots, every seat keeps its
        token's digest, the table the CreateGame request id (to recover the tokens).

        ABORTED TABLE_CHANGED when the table changed since `version` was read.
        """
        with self.sessions.begin() as session:
            table = self._locked(session, table_id)
            if table.status != OPEN or table.version != version:
                raise Aborted(
                    "TABLE_CHANGED",
                    f"table {table_id} changed while starting ({table.status}); start it again",
                )
            for seat, token in zip(table.seats, tokens, strict=True):
                if _open(seat):
                    seat.bot_kind, seat.bot_difficulty = fill.kind, fill.difficulty
                seat.seat_token_digest = _digest(token)
            table.status = STARTED
            table.game_id = game_id
            table.game_request_id = request_id or None
            table.spectator_token = spectator_token or None
            table.started_at = now()
            table.version += 1
        return self.table(table_id)

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
                row = _seat_row(plan)
                row.seat_token_digest = _digest(token)
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

    def count_players(self) -> int:
        with self.sessions() as session:
            return int(session.scalar(select(func.count()).select_from(PlayerRow)) or 0)


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
                f"\t{_text(_digest(token))}\n"
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
            "seat_token_digest": _digest(token),
        }
        for r in records
        for p, token in zip(r.seats, r.tokens, strict=True)
    ]
    return tables, seats


def _digest(token: str | None) -> str | None:
    """The stored digest of a seat token (None for a seat without one, e.g. a bot's)."""
    return token_digest(token) if token else None


def match_request_id(match_id: str) -> str:
    """The CreateGame request id of a matchmade game."""
    return f"match:{match_id}"


def check_startable(table: TableRow, player_id: str) -> None:
    """NOT_HOST unless `player_id` hosts the table; TABLE_STARTED/TABLE_CLOSED unless open."""
    if table.host_player_id != player_id:
        raise PermissionDenied("NOT_HOST", f"only the host may start table {table.id}")
    _check_open(table)


def _check_open(table: TableRow) -> None:
    if table.status in (STARTED, FINISHED):
        raise FailedPrecondition("TABLE_STARTED", f"table {table.id} is already {table.status}")
    if table.status != OPEN:
        raise FailedPrecondition("TABLE_CLOSED", f"table {table.id} is {table.status}")


def _open(seat: SeatRow) -> bool:
    return seat.player_id is None and seat.bot_kind is None and not seat.automated


def _seat_row(plan: SeatPlan) -> SeatRow:
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
