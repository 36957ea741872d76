"""SQL access of the lobby (synchronous; the service calls it from worker threads).

Players, credentials, ratings, custom tables with their seats; matchmade games and rated
results come from the `services.lobby.records` mixin, shared names from `rows`. Table changes
lock the table row (SELECT ... FOR UPDATE) so concurrent joins never overfill a seat.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

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
    PlayerRow,
    RatingRow,
    SeatRow,
    TableRow,
)
from services.lobby.records import MatchRecords
from services.lobby.rows import (
    CLOSED,
    FINISHED,
    OPEN,
    STARTED,
    MatchRecord,
    SeatPlan,
    match_request_id,
    now,
    plan_seats,
    seat_digest,
    seat_row,
)
from warroom.matchmaking import BotChoice
from warroom.ratings import SkillRating

NAME_MAX = 32
PASSWORD_MAX = 256


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
class PlayerInfo:
    """The fields of a player the enqueue path needs."""

    id: str
    display_name: str
    bot: bool


class LobbyStore(MatchRecords):
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
                table.seats.append(seat_row(plan))
        return self.table(table.id)

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
                seat.seat_token_digest = seat_digest(token)
            table.status = STARTED
            table.game_id = game_id
            table.game_request_id = request_id or None
            table.spectator_token = spectator_token or None
            table.started_at = now()
            table.version += 1
        return self.table(table_id)

    def count_players(self) -> int:
        with self.sessions() as session:
            return int(session.scalar(select(func.count()).select_from(PlayerRow)) or 0)


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


__all__ = [
    "CLOSED",
    "FINISHED",
    "OPEN",
    "STARTED",
    "LobbyStore",
    "MatchRecord",
    "PlayerInfo",
    "SeatPlan",
    "check_startable",
    "match_request_id",
    "now",
    "plan_seats",
]
