"""PostgreSQL group commit in ONE round trip: one statement on a dedicated autocommit connection.

A batch of appends is written by a single statement: the log rows (each inserted only
while its game is at `seq - 1`), the games' heads advanced (and finished where the row ends
the game), the seat changes (turn, clock, control), snapshots and results of the games that
advanced, as data-modifying CTEs over JSON parameters (one per kind of row). Only a seat
change of another column takes the transaction path (`store.Store._append_batch`). A single
statement in autocommit mode is its own transaction: it is atomic, and the driver returns only after the server has
committed it (its ReadyForQuery follows the commit), so "acknowledged only after the
commit" holds. Compared with `BEGIN; pool ping; statement; one UPDATE per seat; COMMIT`
this saves every round trip but one, and the pool's checkout and reset.

The connections are taken from the engine's pool once and kept (detached); one that fails
is closed and never reused (the caller then retries each append through the pool).
"""

from __future__ import annotations

import json
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


def _seat_sets() -> str:
    """The SET list of a seat change: a column keeps its value unless the change names it
    (`e.u->'c'` holds the changed columns of one seat)."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    sets = []
    for name in SEAT_COLUMNS:
        kind = _SEATS.columns[name].type.compile(dialect=dialect)
        sets.append(
            f"{name} = CASE WHEN e.u->'c' ? '{name}' "
            f"THEN CAST(e.u->'c'->>'{name}' AS {kind}) ELSE s.{name} END"
        )
    return ", ".join(sets)


_SET_SEATS = _seat_sets()

# The log rows of a group commit (one JSON array of rows: psycopg dumps one text parameter
# instead of a dozen typed arrays), each inserted only while its game is at the row's
# seq - 1 and still active (`store._PG_BATCH` continues it as well).
ROWS = """
WITH d AS (
  SELECT * FROM jsonb_to_recordset(CAST(%(rows)s AS JSONB)) AS d(
    game_id VARCHAR, seq BIGINT, seat INTEGER, kind VARCHAR, decision_id VARCHAR,
    option_id VARCHAR, expected_version BIGINT, idempotency_key VARCHAR, finish BOOLEAN)),
ins AS (
  INSERT INTO actions (game_id, seq, seat, kind, decision_id, option_id, expected_version,
                       idempotency_key, created_at)
  SELECT d.game_id, d.seq, d.seat, d.kind, d.decision_id, d.option_id, d.expected_version,
         d.idempotency_key, CAST(%(stamp)s AS TIMESTAMPTZ)
  FROM d JOIN games g ON g.id = d.game_id AND g.version = d.seq - 1 AND g.status = 'active'
  ON CONFLICT DO NOTHING
  RETURNING game_id, seq)
"""

# The heads of the games whose log row went in (finished where the row ends the game); the
# ids of the games advanced.
ADVANCE = """
UPDATE games AS g
SET version = ins.seq, updated_at = CAST(%(stamp)s AS TIMESTAMPTZ),
    status = CASE WHEN d.finish THEN 'finished' ELSE g.status END,
    finished_at = CASE WHEN d.finish THEN CAST(%(stamp)s AS TIMESTAMPTZ) ELSE g.finished_at END
FROM ins JOIN d ON d.game_id = ins.game_id AND d.seq = ins.seq
WHERE g.id = ins.game_id AND g.version = ins.seq - 1
RETURNING g.id
"""

# Log rows, heads, seat changes, snapshots and results in one statement; returns the ids of
# the games advanced.
STATEMENT = (
    ROWS
    + f""",
adv AS ({ADVANCE}),
seats_set AS (
  UPDATE seats AS s SET {_SET_SEATS}
  FROM jsonb_array_elements(CAST(%(seats)s AS JSONB)) AS e(u) JOIN adv ON adv.id = e.u->>'game_id'
  WHERE s.game_id = e.u->>'game_id' AND s.seat = CAST(e.u->>'seat' AS INTEGER)
  RETURNING 1),
snapshots_in AS (
  INSERT INTO snapshots (game_id, version, data, created_at)
  SELECT n.game_id, n.version, decode(n.data, 'hex'), CAST(%(stamp)s AS TIMESTAMPTZ)
  FROM jsonb_to_recordset(CAST(%(snapshots)s AS JSONB)) AS n(
    game_id VARCHAR, version BIGINT, data TEXT)
  JOIN adv ON adv.id = n.game_id
  RETURNING 1),
results_in AS (
  INSERT INTO results (game_id, reason, scores, ranks, winners, finished_at)
  SELECT r.game_id, r.reason, CAST(r.scores AS JSON), CAST(r.ranks AS JSON),
         CAST(r.winners AS JSON), CAST(%(stamp)s AS TIMESTAMPTZ)
  FROM jsonb_to_recordset(CAST(%(results)s AS JSONB)) AS r(
    game_id VARCHAR, reason VARCHAR, scores TEXT, ranks TEXT, winners TEXT)
  JOIN adv ON adv.id = r.game_id
  RETURNING 1)
SELECT id FROM adv
"""
)


def fits(seat_updates: Mapping[int, Mapping[str, Any]]) -> bool:
    """Whether these seat changes can go in the one statement."""
    return all(key in SEAT_COLUMNS for changes in seat_updates.values() for key in changes)


def rows_param(rows: Sequence[Mapping[str, Any]]) -> str:
    """The `rows` parameter: the log rows (keys as `ROWS` names its columns) as JSON."""
    return json.dumps(rows, separators=(",", ":"))


def seats_param(games: Sequence[tuple[str, Mapping[int, Mapping[str, Any]]]]) -> str:
    """The `seats` parameter: the seat changes of several games as JSON."""
    out = [
        {"game_id": game_id, "seat": seat, "c": {k: json_value(v) for k, v in changes.items()}}
        for game_id, updates in games
        for seat, changes in updates.items()
        if changes
    ]
    return json.dumps(out, separators=(",", ":"))


def extra_params(
    items: Sequence[tuple[str, int, bytes | None, Mapping[str, Any] | None]],
) -> dict[str, str]:
    """The `snapshots` and `results` parameters of a batch: per game, its new version's
    snapshot bytes and its result row, each None when there is none."""
    snapshots, results = [], []
    for game_id, version, snapshot, result in items:
        if snapshot is not None:
            snapshots.append({"game_id": game_id, "version": version, "data": snapshot.hex()})
        if result is not None:
            results.append(
                {"game_id": game_id, "reason": result["reason"]}
                | {name: json.dumps(result[name]) for name in ("scores", "ranks", "winners")}
            )
    return {"snapshots": json.dumps(snapshots), "results": json.dumps(results)}


def json_value(value: Any) -> Any:
    """A value as JSON carries it to its column (instants as ISO text in UTC, like
    `models.UTCDateTime`)."""
    if isinstance(value, datetime):
        return (value.replace(tzinfo=UTC) if value.tzinfo is None else value).isoformat()
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
