"""PostgreSQL group commit in ONE round trip: one statement on a dedicated autocommit connection.

A batch of appends that carries no snapshot and no result (nearly every move) is written
by a single statement: the log rows (each inserted only while its game is at `seq - 1`),
the games' heads advanced, and the seat changes (turn, clock, control) of the games that
advanced, as data-modifying CTEs over column arrays. A single statement in autocommit mode
is its own transaction: it is atomic, and the driver returns only after the server has
committed it (its ReadyForQuery follows the commit), so "acknowledged only after the
commit" holds. Compared with `BEGIN; pool ping; statement; one UPDATE per seat; COMMIT`
this saves every round trip but one, and the pool's checkout and reset.

The connections are taken from the engine's pool once and kept (detached); one that fails
is closed and never reused (the caller then retries each append through the pool).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Engine
from sqlalchemy.pool import PoolProxiedConnection

from services.game.models import GameSeatRow

# The seat columns a write may change here; a change of any other column takes the
# transaction path.
SEAT_COLUMNS = (
    "controller",
    "reclaim",
    "clock_remaining_ms",
    "clock_deadline",
    "clock_version",
    "turn_version",
)
_SEATS = cast(Table, GameSeatRow.__table__)


def _seat_sql() -> tuple[str, str]:
    """The unnest of the seat-change arrays and the SET list (a column keeps its value unless
    its `<column>_set` flag is true)."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    arrays = ["CAST(%(u_game_id)s AS VARCHAR[])", "CAST(%(u_seat)s AS INTEGER[])"]
    names = ["game_id", "seat"]
    sets = []
    for name in SEAT_COLUMNS:
        kind = _SEATS.columns[name].type.compile(dialect=dialect)
        arrays += [f"CAST(%(u_{name})s AS {kind}[])", f"CAST(%(u_{name}_set)s AS BOOLEAN[])"]
        names += [name, f"{name}_set"]
        sets.append(f"{name} = CASE WHEN u.{name}_set THEN u.{name} ELSE s.{name} END")
    return f"unnest({', '.join(arrays)}) AS u({', '.join(names)})", ", ".join(sets)


_UNNEST_SEATS, _SET_SEATS = _seat_sql()

# The log rows of a group commit (column arrays unnested), each inserted only while its game
# is at the row's seq - 1 and still active (`store._PG_BATCH` continues it as well).
ROWS = """
WITH d AS (
  SELECT * FROM unnest(
    CAST(%(game_id)s AS VARCHAR[]), CAST(%(seq)s AS BIGINT[]), CAST(%(seat)s AS INTEGER[]),
    CAST(%(kind)s AS VARCHAR[]), CAST(%(decision_id)s AS VARCHAR[]),
    CAST(%(option_id)s AS VARCHAR[]), CAST(%(expected_version)s AS BIGINT[]),
    CAST(%(key)s AS VARCHAR[]), CAST(%(finish)s AS BOOLEAN[])
  ) AS d(game_id, seq, seat, kind, decision_id, option_id, expected_version, idempotency_key,
         finish)),
ins AS (
  INSERT INTO actions (game_id, seq, seat, kind, decision_id, option_id, expected_version,
                       idempotency_key, created_at)
  SELECT d.game_id, d.seq, d.seat, d.kind, d.decision_id, d.option_id, d.expected_version,
         d.idempotency_key, CAST(%(stamp)s AS TIMESTAMPTZ)
  FROM d JOIN games g ON g.id = d.game_id AND g.version = d.seq - 1 AND g.status = 'active'
  ON CONFLICT DO NOTHING
  RETURNING game_id, seq)
"""

# Log rows, heads and seat changes in one statement; returns the ids of the games advanced.
STATEMENT = (
    ROWS
    + f""",
adv AS (
  UPDATE games AS g SET version = ins.seq, updated_at = CAST(%(stamp)s AS TIMESTAMPTZ)
  FROM ins WHERE g.id = ins.game_id AND g.version = ins.seq - 1
  RETURNING g.id),
seats_set AS (
  UPDATE seats AS s SET {_SET_SEATS}
  FROM {_UNNEST_SEATS} JOIN adv ON adv.id = u.game_id
  WHERE s.game_id = u.game_id AND s.seat = u.seat
  RETURNING 1)
SELECT id FROM adv
"""
)


def fits(seat_updates: Mapping[int, Mapping[str, Any]]) -> bool:
    """Whether these seat changes can go in the one statement."""
    return all(key in SEAT_COLUMNS for changes in seat_updates.values() for key in changes)


def seat_params(
    games: Sequence[tuple[str, Mapping[int, Mapping[str, Any]]]],
) -> dict[str, list[Any]]:
    """Column arrays of the seat changes of several games (`u_*` parameters)."""
    out: dict[str, list[Any]] = {"u_game_id": [], "u_seat": []}
    for name in SEAT_COLUMNS:
        out[f"u_{name}"] = []
        out[f"u_{name}_set"] = []
    for game_id, updates in games:
        for seat, changes in updates.items():
            if not changes:
                continue
            out["u_game_id"].append(game_id)
            out["u_seat"].append(seat)
            for name in SEAT_COLUMNS:
                present = name in changes
                out[f"u_{name}"].append(_bind(changes[name]) if present else None)
                out[f"u_{name}_set"].append(present)
    return out


def _bind(value: Any) -> Any:
    """A value as the column expects it (instants as aware UTC, like `models.UTCDateTime`)."""
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


class Direct:
    """Dedicated autocommit connections for the one-statement commit (no checkout, no ping)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._free: list[PoolProxiedConnection] = []
        self._lock = threading.Lock()

    def run(self, params: Mapping[str, Any]) -> set[str]:
        """Execute the statement; the ids of the games it advanced (committed on return)."""
        with self._lock:
            connection = self._free.pop() if self._free else None
        if connection is None:
            connection = self._open()
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(STATEMENT, params)
                written = {row[0] for row in cursor.fetchall()}
            finally:
                cursor.close()
        except BaseException:
            connection.close()  # its state is unknown: never reused
            raise
        with self._lock:
            self._free.append(connection)
        return written

    def _open(self) -> PoolProxiedConnection:
        connection = self.engine.raw_connection()
        connection.detach()
        connection.rollback()  # the pool's ping may have opened a transaction
        driver: Any = connection.dbapi_connection
        driver.autocommit = True
        return connection

    def close(self) -> None:
        """Close the kept connections."""
        with self._lock:
            free, self._free = self._free, []
        for connection in free:
            connection.close()
