"""The one-statement group commit (`services/game/quickcommit.py`) on PostgreSQL.

A move is written by one autocommit statement: the log row, the head, the seat changes, a
snapshot and a finished game's result together, and nothing at all when the game is no
longer at the expected head.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from services.game.store import Append, Conflict
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
    assert store.outcomes(items, store.direct.run(params), params["stamp"]) == [params["stamp"]]

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
    outcome = store.outcomes(stale, store.direct.run(params), params["stamp"])
    assert isinstance(outcome[0], Exception)
    assert read() == (version, rows, seats)


async def test_finish_and_snapshot_in_the_one_statement(replica: Replica) -> None:
    store = replica.authority.core.store
    game_id = (await create(replica.stub, replica.settings)).game_id
    result = {"reason": "done", "scores": {"0": 2.0, "1": 1.0}, "ranks": {"0": 1, "1": 2},
              "winners": [0]}  # fmt: skip
    write = Append(action=_move(0, {}, "f").action, snapshot=b"\x00snap", result=result)
    items = [(game_id, 0, write)]
    params = store.quick_params(items)
    assert params is not None
    assert store.outcomes(items, store.direct.run(params), params["stamp"]) == [params["stamp"]]
    with replica.engine.connect() as connection:
        game = connection.execute(
            text("SELECT version, status, finished_at FROM games WHERE id = :g"), {"g": game_id}
        ).one()
        snap = connection.execute(
            text("SELECT version, data FROM snapshots WHERE game_id = :g"), {"g": game_id}
        ).all()
    assert tuple(game) == (1, "finished", params["stamp"])
    assert [tuple(r) for r in snap] == [(1, b"\x00snap")]
    row = store.result(game_id)
    assert row is not None
    assert (row.reason, row.scores, row.ranks, row.winners) == (
        "done", {"0": 2.0, "1": 1.0}, {"0": 1, "1": 2}, [0]
    )  # fmt: skip
    assert row.finished_at == params["stamp"]

    # a stale writer's snapshot and result land nowhere
    again = [(game_id, 0, Append(action=_move(1, {}, "g").action, snapshot=b"x", result=result))]
    params = store.quick_params(again)
    assert params is not None
    assert isinstance(store.outcomes(again, store.direct.run(params), params["stamp"])[0], Conflict)
    with replica.engine.connect() as connection:
        count = connection.execute(
            text("SELECT count(*) FROM snapshots WHERE game_id = :g"), {"g": game_id}
        ).scalar_one()
    assert count == 1


async def test_other_seat_columns_or_one_game_twice_take_the_transaction(
    replica: Replica,
) -> None:
    store = replica.authority.core.store
    plain = _move(0, {0: {"turn_version": None}}, "a")
    assert store.quick_params([("g" * 32, 0, plain)]) is not None
    other = _move(0, {0: {"display_name": "x"}}, "b")
    assert store.quick_params([("g" * 32, 0, other)]) is None
    assert store.quick_params([("g" * 32, 0, plain), ("g" * 32, 1, plain)]) is None


async def test_the_transaction_path_writes_rows_and_other_seat_columns(replica: Replica) -> None:
    store = replica.authority.core.store
    first = (await create(replica.stub, replica.settings)).game_id
    second = (await create(replica.stub, replica.settings)).game_id
    items = [
        (first, 0, _move(0, {1: {"display_name": "Renamed"}}, "t1")),
        (second, 0, _move(1, {0: {"turn_version": 7}}, "t2")),
    ]
    assert store.quick_params(items) is None
    outcomes = store.append_many(items)
    assert all(not isinstance(o, Exception) for o in outcomes)
    with replica.engine.connect() as connection:
        heads = connection.execute(
            text("SELECT id, version FROM games WHERE id IN (:a, :b)"), {"a": first, "b": second}
        ).all()
        names = connection.execute(
            text("SELECT display_name FROM seats WHERE game_id = :g AND seat = 1"), {"g": first}
        ).scalar_one()
        turn = connection.execute(
            text("SELECT turn_version FROM seats WHERE game_id = :g AND seat = 0"), {"g": second}
        ).scalar_one()
    assert dict(heads) == {first: 1, second: 1}
    assert (names, turn) == ("Renamed", 7)
