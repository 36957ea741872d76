"""SQL storage of the authority (synchronous; the service calls it from a thread pool).

`append` is the durability point of an action: it inserts the log row and
advances `games.version` with a compare-and-set in one transaction, so of two
writers on one version exactly one commits (the other gets `Conflict`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import JSON, Table, func, insert, inspect, select, text, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from services.common.db import session_factory
from services.game import quickcommit
from services.game.models import (
    ACTIVE,
    FINISHED,
    ActionRow,
    GameRow,
    GameSeatRow,
    ResultRow,
    SnapshotRow,
)

# One round trip on PostgreSQL: insert the log row only while the game is at `head` (ON
# CONFLICT DO NOTHING covers a concurrent writer of the same seq and a reused idempotency
# key), then advance the head only if the row went in.
_PG_CTE = """
WITH ins AS (
  INSERT INTO actions (game_id, seq, seat, kind, decision_id, option_id, expected_version,
                       idempotency_key, created_at)
  SELECT CAST(:game_id AS VARCHAR), CAST(:seq AS BIGINT), CAST(:seat AS INTEGER),
         CAST(:kind AS VARCHAR), CAST(:decision_id AS VARCHAR), CAST(:option_id AS VARCHAR),
         CAST(:expected_version AS BIGINT), CAST(:key AS VARCHAR),
         CAST(:stamp AS TIMESTAMPTZ)
  WHERE EXISTS (SELECT 1 FROM games WHERE id = CAST(:game_id AS VARCHAR)
                AND version = CAST(:head AS BIGINT) AND status = 'active')
  ON CONFLICT DO NOTHING
  RETURNING seq)
UPDATE games SET version = CAST(:seq AS BIGINT), updated_at = CAST(:stamp AS TIMESTAMPTZ){finish}
WHERE id = CAST(:game_id AS VARCHAR) AND version = CAST(:head AS BIGINT)
  AND EXISTS (SELECT 1 FROM ins)
RETURNING version
"""
_PG_APPEND = text(_PG_CTE.format(finish=""))
_PG_FINISH = text(
    _PG_CTE.format(finish=", status = 'finished', finished_at = CAST(:stamp AS TIMESTAMPTZ)")
)


# Group commit on PostgreSQL: the log rows of many games in ONE statement (a JSON array),
# each inserted only while its game is at the row's seq - 1 and advancing that game's head
# only if the row went in (as `_PG_CTE`, per row). Returns the ids of the games written.
_PG_BATCH = quickcommit.ROWS + quickcommit.ADVANCE


def _json_insert(table: Table, param: str) -> str:
    """PostgreSQL: insert many rows of `table` in ONE statement from one JSON array parameter
    (one text value for psycopg to send, where an array per column costs ~10 us each to dump);
    JSON columns travel as JSON text, so their values are stored exactly as serialized."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    names = [column.name for column in table.columns]
    kinds = [
        "TEXT" if isinstance(column.type, JSON) else column.type.compile(dialect=dialect)
        for column in table.columns
    ]
    values = [
        f"CAST(d.{name} AS JSON)" if isinstance(column.type, JSON) else f"d.{name}"
        for name, column in zip(names, table.columns, strict=True)
    ]
    record = ", ".join(f"{name} {kind}" for name, kind in zip(names, kinds, strict=True))
    return (
        f"INSERT INTO {table.name} ({', '.join(names)}) SELECT {', '.join(values)} "
        f"FROM jsonb_to_recordset(CAST(%({param})s AS JSONB)) AS d({record})"
    )


def _json_rows(table: Table, rows: Sequence[Any]) -> str:
    """ORM objects as the JSON array `_json_insert` reads (instants as ISO text in UTC)."""
    columns = [(column.name, column.key, isinstance(column.type, JSON)) for column in table.columns]
    out = []
    for row in rows:
        record: dict[str, Any] = {}
        for name, key, is_json in columns:
            value = getattr(row, key)
            record[name] = json.dumps(value) if is_json else quickcommit.json_value(value)
        out.append(record)
    return json.dumps(out, separators=(",", ":"))


_GAMES = cast(Table, GameRow.__table__)
_SEATS = cast(Table, GameSeatRow.__table__)
# The games and their seats in ONE statement (one round trip; the seats' foreign keys are
# checked at its end, when the games are in).
_PG_CREATE = f"WITH games_in AS ({_json_insert(_GAMES, 'games')} RETURNING 1) {_json_insert(_SEATS, 'seats')}"


def _params(game_id: str, head: int, write: Append, stamp: datetime) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seq": head + 1,
        "head": head,
        "stamp": stamp,
        "seat": write.action["seat"],
        "kind": write.action.get("kind", "option"),
        "decision_id": write.action.get("decision_id", ""),
        "option_id": write.action.get("option_id", ""),
        "expected_version": write.action.get("expected_version", 0),
        "key": write.action.get("idempotency_key"),
    }


def _update_seats(
    executor: Session | Connection, game_id: str, updates: Mapping[int, Mapping[str, Any]]
) -> None:
    """Change seat fields (control, clock) of one game."""
    for seat, changes in updates.items():
        if changes:
            executor.execute(
                update(GameSeatRow)
                .where(GameSeatRow.game_id == game_id, GameSeatRow.seat == seat)
                .values(**changes)
            )


def _action_rows(items: Sequence[tuple[str, int, Append]]) -> str:
    """The log rows of a group commit (`quickcommit.ROWS`'s `rows` parameter)."""
    return quickcommit.rows_param(
        [
            {
                "game_id": game_id,
                "seq": head + 1,
                "seat": write.action["seat"],
                "kind": write.action.get("kind", "option"),
                "decision_id": write.action.get("decision_id", ""),
                "option_id": write.action.get("option_id", ""),
                "expected_version": write.action.get("expected_version", 0),
                "idempotency_key": write.action.get("idempotency_key"),
                "finish": write.result is not None,
            }
            for game_id, head, write in items
        ]
    )


def _outcomes(
    items: Sequence[tuple[str, int, Append]], written: set[str], stamp: datetime
) -> list[Exception | datetime]:
    return [
        stamp
        if game_id in written
        else Conflict(f"game {game_id} is no longer at version {head} (or the key is used)")
        for game_id, head, _w in items
    ]


class Conflict(Exception):
    """Another writer advanced the game first, or an idempotency key is already used."""


def now() -> datetime:
    """The current UTC time."""
    return datetime.now(UTC)


@dataclass
class Loaded:
    """Everything needed to rebuild a game: rows, the latest snapshot and the log after it."""

    game: GameRow
    seats: list[GameSeatRow]
    snapshot: SnapshotRow | None
    actions: list[ActionRow]
    result: ResultRow | None


@dataclass
class Append:
    """One durable write: the log row plus what changes with it."""

    action: dict[str, Any]
    snapshot: bytes | None = None
    seat_updates: dict[int, dict[str, Any]] = field(default_factory=dict)
    result: dict[str, Any] | None = None


_KEYS: dict[type, tuple[str, ...]] = {}


def _values(row: Any) -> dict[str, Any]:
    """The column values of an ORM object, for a Core insert."""
    keys = _KEYS.get(type(row))
    if keys is None:
        keys = _KEYS[type(row)] = tuple(attr.key for attr in inspect(type(row)).column_attrs)
    return {key: getattr(row, key) for key in keys}


class Store:
    """Typed SQL access for the game authority."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)
        self.direct = quickcommit.Direct(engine)

    def create(self, game: GameRow, seats: Sequence[GameSeatRow]) -> GameRow:
        """Insert a game and its seats; with a used request_id, return the existing game.

        Core inserts in one transaction: the objects passed in stay plain (transient) and
        describe the stored rows exactly.
        """
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(GameRow), [_values(game)])
                connection.execute(insert(GameSeatRow), [_values(seat) for seat in seats])
            return game
        except IntegrityError:
            if game.request_id is None:
                raise
            existing = self.by_request_id(game.request_id)
            if existing is None:
                raise
            return existing

    def create_many(
        self, items: Sequence[tuple[GameRow, Sequence[GameSeatRow]]]
    ) -> list[GameRow | Exception]:
        """Insert several games and their seats in ONE transaction (group commit).

        Returns, per item, the stored game (the existing one for a used request_id) or the
        error that refused it. On PostgreSQL every row goes in with one statement. When the
        batch fails (a used request_id, say) it is rolled back and each item is created on
        its own.
        """
        try:
            games = [game for game, _s in items]
            seats = [seat for _g, rows in items for seat in rows]
            with self.engine.begin() as connection:
                if self.engine.dialect.name == "postgresql":
                    params = {
                        "games": _json_rows(_GAMES, games),
                        "seats": _json_rows(_SEATS, seats),
                    }
                    connection.exec_driver_sql(_PG_CREATE, params)
                else:
                    connection.execute(insert(GameRow), [_values(game) for game in games])
                    connection.execute(insert(GameSeatRow), [_values(seat) for seat in seats])
            return list[GameRow | Exception](games)
        except Exception:
            return [self._create_one(*item) for item in items]

    def _create_one(self, game: GameRow, seats: Sequence[GameSeatRow]) -> GameRow | Exception:
        try:
            return self.create(game, seats)
        except Exception as exc:
            return exc

    def by_request_id(self, request_id: str) -> GameRow | None:
        """The game created with a caller reference."""
        with self.sessions() as session:
            return session.scalars(select(GameRow).where(GameRow.request_id == request_id)).first()

    def head(self, game_id: str) -> int | None:
        """The committed version of a game (None when unknown)."""
        with self.sessions() as session:
            return session.scalar(select(GameRow.version).where(GameRow.id == game_id))

    def load(self, game_id: str, at_most: int | None = None) -> Loaded | None:
        """A game's rows, its latest snapshot (at or before `at_most`) and the log after it."""
        with self.sessions() as session:
            game = session.get(GameRow, game_id)
            if game is None:
                return None
            seats = list(
                session.scalars(
                    select(GameSeatRow)
                    .where(GameSeatRow.game_id == game_id)
                    .order_by(GameSeatRow.seat)
                )
            )
            snap_query = select(SnapshotRow).where(SnapshotRow.game_id == game_id)
            if at_most is not None:
                snap_query = snap_query.where(SnapshotRow.version <= at_most)
            snapshot = session.scalars(snap_query.order_by(SnapshotRow.version.desc())).first()
            after = snapshot.version if snapshot else 0
            act_query = select(ActionRow).where(ActionRow.game_id == game_id, ActionRow.seq > after)
            if at_most is not None:
                act_query = act_query.where(ActionRow.seq <= at_most)
            actions = list(session.scalars(act_query.order_by(ActionRow.seq)))
            result = session.get(ResultRow, game_id)
            return Loaded(game, seats, snapshot, actions, result)

    def seats(self, game_id: str) -> list[GameSeatRow]:
        """A game's seats in order."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(GameSeatRow)
                    .where(GameSeatRow.game_id == game_id)
                    .order_by(GameSeatRow.seat)
                )
            )

    def actions_after(self, game_id: str, seq: int, upto: int | None = None) -> list[ActionRow]:
        """Log rows with seq > `seq` (and <= `upto`), in order."""
        with self.sessions() as session:
            query = select(ActionRow).where(ActionRow.game_id == game_id, ActionRow.seq > seq)
            if upto is not None:
                query = query.where(ActionRow.seq <= upto)
            return list(session.scalars(query.order_by(ActionRow.seq)))

    def find_key(self, game_id: str, seat: int, key: str) -> ActionRow | None:
        """The log row written with an idempotency key by a seat."""
        with self.sessions() as session:
            return session.scalars(
                select(ActionRow).where(
                    ActionRow.game_id == game_id,
                    ActionRow.seat == seat,
                    ActionRow.idempotency_key == key,
                )
            ).first()

    def result(self, game_id: str) -> ResultRow | None:
        """A finished game's result row."""
        with self.sessions() as session:
            return session.get(ResultRow, game_id)

    def append(self, game_id: str, head: int, write: Append) -> datetime:
        """Durably append one log row at seq head+1; raises Conflict if the head moved.
        Returns the instant recorded with the row (a result's `finished_at`)."""
        stamp = now()
        try:
            with self.sessions.begin() as session:
                if not self._append_in(session, game_id, head, write, stamp):
                    raise Conflict(f"game {game_id} is no longer at version {head}")
        except IntegrityError as exc:
            raise Conflict(f"game {game_id}: log row {head + 1} or its key exists") from exc
        return stamp

    def append_many(self, items: Sequence[tuple[str, int, Append]]) -> list[Exception | datetime]:
        """Append the rows of several games in ONE transaction (group commit).

        Returns, per item, the instant recorded with its row when written, or the Conflict
        that refused it. An unexpected error rolls the batch back and retries each item on
        its own.
        """
        games = [game_id for game_id, _h, _w in items]
        if self.engine.dialect.name != "postgresql" or len(set(games)) != len(games):
            return [self._one(*item) for item in items]
        try:
            params = self.quick_params(items)
            if params is not None:
                return self.outcomes(items, self.direct.run(params), params["stamp"])
            return self._append_batch(items)
        except Exception:
            return [self._one(*item) for item in items]

    def quick_params(self, items: Sequence[tuple[str, int, Append]]) -> dict[str, Any] | None:
        """The parameters of `quickcommit.STATEMENT` for a batch of different games (PostgreSQL,
        known seat columns only); None when it must take a transaction."""
        if self.engine.dialect.name != "postgresql" or any(
            not quickcommit.fits(w.seat_updates) for _g, _h, w in items
        ):
            return None
        if len({game_id for game_id, _h, _w in items}) != len(items):
            return None
        params: dict[str, Any] = {
            "stamp": now(),
            "rows": _action_rows(items),
            "seats": quickcommit.seats_param([(g, w.seat_updates) for g, _h, w in items]),
        }
        params |= quickcommit.extra_params([(g, h + 1, w.snapshot, w.result) for g, h, w in items])
        return params

    @staticmethod
    def outcomes(
        items: Sequence[tuple[str, int, Append]], written: set[str], stamp: datetime
    ) -> list[Exception | datetime]:
        """Per item: the batch's instant when written, else the Conflict that refused it."""
        return _outcomes(items, written, stamp)

    def _append_batch(self, items: Sequence[tuple[str, int, Append]]) -> list[Exception | datetime]:
        """PostgreSQL: every log row in one statement, then the snapshots, seat changes and
        results of the rows written, all in one transaction (SQLAlchemy Core, no ORM)."""
        stamp = now()
        rows = _action_rows(items)
        with self.engine.begin() as connection:
            written = {
                row[0]
                for row in connection.exec_driver_sql(_PG_BATCH, {"rows": rows, "stamp": stamp})
            }
            snapshots, results = [], []
            for game_id, head, write in items:
                if game_id not in written:
                    continue
                if write.snapshot is not None:
                    snapshots.append(
                        {
                            "game_id": game_id,
                            "version": head + 1,
                            "data": write.snapshot,
                            "created_at": stamp,
                        }
                    )
                if write.result is not None:
                    results.append({"game_id": game_id, "finished_at": stamp, **write.result})
                _update_seats(connection, game_id, write.seat_updates)
            if snapshots:
                connection.execute(insert(SnapshotRow), snapshots)
            if results:
                connection.execute(insert(ResultRow), results)
        return _outcomes(items, written, stamp)

    def _one(self, game_id: str, head: int, write: Append) -> Exception | datetime:
        try:
            return self.append(game_id, head, write)
        except Conflict as exc:
            return exc

    def _append_in(
        self, session: Session, game_id: str, head: int, write: Append, stamp: datetime
    ) -> bool:
        seq = head + 1
        finished = write.result is not None
        if self.engine.dialect.name == "postgresql":
            params = _params(game_id, head, write, stamp)
            written = session.execute(_PG_FINISH if finished else _PG_APPEND, params).first()
            if written is None:
                return False
        else:
            values: dict[str, Any] = {"version": seq, "updated_at": stamp}
            if finished:
                values.update(status=FINISHED, finished_at=stamp)
            moved = session.execute(
                update(GameRow)
                .where(GameRow.id == game_id, GameRow.version == head, GameRow.status == ACTIVE)
                .values(**values)
            )
            if moved.rowcount != 1:  # type: ignore[attr-defined]
                return False
            session.execute(
                insert(ActionRow).values(game_id=game_id, seq=seq, created_at=stamp, **write.action)
            )
        if write.snapshot is not None:
            session.execute(
                insert(SnapshotRow).values(
                    game_id=game_id, version=seq, data=write.snapshot, created_at=stamp
                )
            )
        _update_seats(session, game_id, write.seat_updates)
        if write.result is not None:
            session.execute(
                insert(ResultRow).values(game_id=game_id, finished_at=stamp, **write.result)
            )
        return True

    def update_seats(self, game_id: str, updates: dict[int, dict[str, Any]]) -> None:
        """Change seat control or clock fields without a new version."""
        with self.sessions.begin() as session:
            _update_seats(session, game_id, updates)

    def list_games(
        self, status: str | None, rules_id: str | None, offset: int, limit: int
    ) -> tuple[list[tuple[GameRow, list[GameSeatRow], ResultRow | None]], bool]:
        """A page of games (newest first) and whether more follow."""
        with self.sessions() as session:
            query = select(GameRow)
            if status:
                query = query.where(GameRow.status == status)
            if rules_id:
                query = query.where(GameRow.rules_id == rules_id)
            rows = list(
                session.scalars(
                    query.order_by(GameRow.created_at.desc(), GameRow.id)
                    .offset(offset)
                    .limit(limit + 1)
                )
            )
            more = len(rows) > limit
            rows = rows[:limit]
            out = []
            for game in rows:
                seats = list(
                    session.scalars(
                        select(GameSeatRow)
                        .where(GameSeatRow.game_id == game.id)
                        .order_by(GameSeatRow.seat)
                    )
                )
                out.append((game, seats, session.get(ResultRow, game.id)))
            return out, more

    def owed_work(
        self, idle_before: datetime, due_before: datetime, limit: int
    ) -> tuple[list[tuple[str, int]], list[tuple[str, int, int]]]:
        """Owed work read from SQL alone: the bot turns owed in active games idle since
        `idle_before` as (game, seat), and the clocks of active games past their deadline
        by `due_before` as (game, seat, clock version), oldest first."""
        with self.sessions() as session:
            bots = session.execute(
                select(GameSeatRow.game_id, GameSeatRow.seat)
                .join(GameRow, GameRow.id == GameSeatRow.game_id)
                .where(
                    GameRow.status == ACTIVE,
                    GameRow.updated_at < idle_before,
                    GameSeatRow.controller == "bot",
                    GameSeatRow.turn_version.is_not(None),
                )
                .order_by(GameRow.updated_at)
                .limit(limit)
            ).all()
            clocks = session.execute(
                select(GameSeatRow.game_id, GameSeatRow.seat, GameSeatRow.clock_version)
                .join(GameRow, GameRow.id == GameSeatRow.game_id)
                .where(
                    GameRow.status == ACTIVE,
                    GameSeatRow.clock_deadline.is_not(None),
                    GameSeatRow.clock_deadline <= due_before,
                    GameSeatRow.clock_version.is_not(None),
                )
                .order_by(GameSeatRow.clock_deadline)
                .limit(limit)
            ).all()
        return [(g, int(s)) for g, s in bots], [(g, int(s), int(v or 0)) for g, s, v in clocks]

    def count_active(self) -> int:
        """How many games are active."""
        with self.sessions() as session:
            return int(session.scalar(select(func.count()).where(GameRow.status == ACTIVE)) or 0)
