"""The one-statement group commit (`services/game/quickcommit.py`) on PostgreSQL.

A plain move is written by one autocommit statement: the log row, the head and the seat
changes together, and nothing at all when the game is no longer at the expected head.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from services.game.store import Append
from services.game.tests.helpers import Replica, create


def _move(seat: int, updates: dict[int, dict[str, object]], key: str) -> Append:
    action = {
        "seat": seat,
        "kind": "option",
        "decision_id": "d1",
        "option_id": "o1",
        "expected_version": 0,
        "idempotency_key": key,
    }
    return Append(action=action, seat_updates=updates)  # type: ignore[arg-type]


async def test_one_statement_writes_row_head_and_seats_or_nothing(replica: Replica) -> None:
    store = replica.authority.core.store
    game_id = (await create(replica.stub, replica.settings)).game_id
    deadline = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    updates: dict[int, dict[str, object]] = {
        0: {"turn_version": None, "clock_remaining_ms": 1500},
        1: {"turn_version": 1, "clock_deadline": deadline, "clock_version": 1},
    }
    items = [(game_id, 0, _move(0, updates, "k1"))]
    params = store.quick_params(items)
    assert params is not None
    assert store.outcomes(items, store.direct.run(params)) == [None]

    def read() -> tuple[Any, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        with replica.engine.connect() as connection:
            version = connection.execute(
                text("SELECT version FROM games WHERE id = :g"), {"g": game_id}
            ).scalar_one()
            rows = connection.execute(
                text("SELECT seq, idempotency_key FROM actions WHERE game_id = :g"), {"g": game_id}
            ).all()
            seats = connection.execute(
                text(
                    "SELECT seat, turn_version, clock_remaining_ms, clock_deadline, clock_version,"
                    " controller FROM seats WHERE game_id = :g ORDER BY seat"
                ),
                {"g": game_id},
            ).all()
        return version, [tuple(r) for r in rows], [tuple(s) for s in seats]

    version, rows, seats = read()
    assert version == 1
    assert rows == [(1, "k1")]
    assert seats[0][1:3] == (None, 1500)
    assert seats[1][1] == 1 and seats[1][3] == deadline and seats[1][4] == 1
    assert seats[0][5] == seats[1][5] == "human"  # columns not named are kept

    # a second writer at the old head: refused, and none of its changes land
    stale = [(game_id, 0, _move(1, {1: {"turn_version": 99}}, "k2"))]
    params = store.quick_params(stale)
    assert params is not None
    outcome = store.outcomes(stale, store.direct.run(params))
    assert outcome[0] is not None
    assert read() == (version, rows, seats)


async def test_snapshot_result_or_other_columns_take_the_transaction(replica: Replica) -> None:
    store = replica.authority.core.store
    plain = _move(0, {0: {"turn_version": None}}, "a")
    assert store.quick_params([("g" * 32, 0, plain)]) is not None
    snap = Append(action=plain.action, snapshot=b"x")
    other = _move(0, {0: {"display_name": "x"}}, "b")
    for write in (snap, other):
        assert store.quick_params([("g" * 32, 0, write)]) is None
    assert store.quick_params([("g" * 32, 0, plain), ("g" * 32, 1, plain)]) is None
