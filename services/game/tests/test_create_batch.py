"""Group commit of CreateGame: concurrent creations share SQL transactions and stay durable."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

from prometheus_client import REGISTRY
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from services.game.models import GameRow, GameSeatRow
from services.game.store import Store
from services.game.tests.helpers import Replica, toy_request


def _stored(replica: Replica, game_id: str) -> tuple[GameRow | None, int]:
    with Session(replica.engine) as session:
        game = session.get(GameRow, game_id)
        seats = session.scalar(
            select(func.count()).select_from(GameSeatRow).where(GameSeatRow.game_id == game_id)
        )
        return game, int(seats or 0)


async def test_concurrent_creates_are_group_committed(replica: Replica) -> None:
    """16 concurrent creations take fewer transactions than games, and every game is stored."""
    creator = replica.authority.creator
    batches, items = creator.batches, creator.items
    sample = {"batcher": "create"}
    counted = REGISTRY.get_sample_value("warroom_game_batch_size_count", sample) or 0.0
    summed = REGISTRY.get_sample_value("warroom_game_batch_size_sum", sample) or 0.0
    answers = await asyncio.gather(
        *(replica.authority.create(toy_request(seed=100 + i)) for i in range(16))
    )
    assert creator.items - items == 16
    assert creator.batches - batches < 16
    # the batch-size metric saw the same batches and rows
    assert REGISTRY.get_sample_value("warroom_game_batch_size_sum", sample) == summed + 16
    after = REGISTRY.get_sample_value("warroom_game_batch_size_count", sample)
    assert after == counted + creator.batches - batches
    assert len({answer.game_id for answer in answers}) == 16
    for answer in answers:
        game, seats = _stored(replica, answer.game_id)
        assert game is not None and game.version == 0
        assert seats == 2


async def test_used_request_id_in_a_batch(replica: Replica) -> None:
    """Two concurrent creations with one request_id answer one game; the others still land."""
    key = f"req-{uuid.uuid4().hex}"
    answers = await asyncio.gather(
        replica.authority.create(toy_request(seed=1, request_id=key)),
        *(replica.authority.create(toy_request(seed=2 + i)) for i in range(6)),
        replica.authority.create(toy_request(seed=9, request_id=key)),
    )
    assert answers[0].game_id == answers[-1].game_id
    assert len({answer.game_id for answer in answers}) == 7
    with Session(replica.engine) as session:
        assert (
            session.scalar(
                select(func.count()).select_from(GameRow).where(GameRow.request_id == key)
            )
            == 1
        )
    for answer in answers:
        game, seats = _stored(replica, answer.game_id)
        assert game is not None and seats == 2


async def test_retried_request_id_answers_the_stored_game(replica: Replica) -> None:
    """A retry after the first creation committed gets the same game and seat tokens."""
    key = f"req-{uuid.uuid4().hex}"
    first = await replica.authority.create(toy_request(seed=3, request_id=key))
    batches = replica.authority.creator.batches
    again = await replica.authority.create(toy_request(seed=4, request_id=key))
    assert again.game_id == first.game_id and again.seed == first.seed == 3
    assert list(again.seat_tokens) == list(first.seat_tokens)
    assert replica.authority.creator.batches == batches + 1
    with Session(replica.engine) as session:
        count = session.scalar(
            select(func.count()).select_from(GameRow).where(GameRow.request_id == key)
        )
    assert count == 1


def _rows(game_id: str, request_id: str | None) -> tuple[GameRow, list[GameSeatRow]]:
    stamp = datetime.now(UTC)
    game = GameRow(
        id=game_id,
        rules_id="toy",
        variant="duel",
        options={},
        seed="1",
        salt="salt",
        status="active",
        version=0,
        allow_spectators=False,
        spectator_delay_versions=0,
        spectator_token_digest=None,
        request_id=request_id,
        created_at=stamp,
        updated_at=stamp,
    )
    seats = [
        GameSeatRow(
            game_id=game_id,
            seat=i,
            player_id=f"p{i}",
            display_name=f"P{i}",
            token_digest="0" * 64,
            bot=None,
            clock=None,
            controller="human",
            reclaim=False,
            clock_remaining_ms=None,
        )
        for i in range(2)
    ]
    return game, seats


async def test_create_many_falls_back_per_item(replica: Replica) -> None:
    """A batch refused as a whole is retried item by item: each gets its own outcome."""
    store = Store(replica.engine)
    key = f"req-{uuid.uuid4().hex}"
    first = uuid.uuid4().hex
    (stored,) = store.create_many([_rows(first, key)])
    assert isinstance(stored, GameRow) and stored.id == first
    taken = uuid.uuid4().hex
    fresh = uuid.uuid4().hex
    clash = first  # same primary key as a stored game, no request_id: an error for that item
    outcomes = store.create_many([_rows(taken, key), _rows(fresh, None), _rows(clash, None)])
    existing, created, refused = outcomes
    assert isinstance(existing, GameRow) and existing.id == first
    assert isinstance(created, GameRow) and created.id == fresh
    assert isinstance(refused, Exception)
    game, seats = _stored(replica, fresh)
    assert game is not None and seats == 2
    assert _stored(replica, taken)[0] is None


async def test_batched_rows_read_back_like_single_ones(replica: Replica) -> None:
    """The one-statement batch insert stores exactly what the per-game insert stores."""
    store = Store(replica.engine)

    stamp = datetime.now(UTC)

    def rows(game_id: str) -> tuple[GameRow, list[GameSeatRow]]:
        game, seats = _rows(game_id, None)
        game.created_at = game.updated_at = stamp
        game.options = {"difficulty": "expert"}
        seats[0].bot = {"kind": "heuristic", "level": 2}
        seats[1].clock = {"mode": 1, "initial_seconds": 60}
        seats[1].clock_remaining_ms = 60_000
        seats[1].clock_deadline = game.created_at
        seats[1].clock_version = 0
        return game, seats

    single = uuid.uuid4().hex
    batched = [uuid.uuid4().hex, uuid.uuid4().hex]
    store.create(*rows(single))
    assert all(isinstance(out, GameRow) for out in store.create_many([rows(g) for g in batched]))

    def read(game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[tuple[Any, ...]]]:
        loaded = store.load(game_id)
        assert loaded is not None
        game = {k: v for k, v in vars(loaded.game).items() if k not in ("_sa_instance_state", "id")}
        seats = [
            {k: v for k, v in vars(s).items() if k not in ("_sa_instance_state", "game_id")}
            for s in loaded.seats
        ]
        with Session(replica.engine) as session:
            nulls = session.execute(
                text(
                    "SELECT seat, bot IS NULL, clock IS NULL FROM seats WHERE game_id = :g ORDER BY seat"
                ),
                {"g": game_id},
            ).all()
        return game, seats, [tuple(n) for n in nulls]

    expected = read(single)
    assert expected[1][0]["bot"] == {"kind": "heuristic", "level": 2}
    for game_id in batched:
        assert read(game_id) == expected
