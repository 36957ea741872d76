"""A lost bot turn is sent again by the periodic sweep (real Redis); duplicates stay harmless."""

from __future__ import annotations

from datetime import datetime

import redis

from services.common.auth import bot_seat_token
from services.common.settings import Settings
from services.game import tasks
from services.game.scheduler import RESEND_TASK, SWEEP_TASK
from services.game.tasks import resend
from services.game.tests.helpers import create, start_replica
from warroom.v1 import common_pb2, game_pb2


class Recorder:
    """A scheduler that only records what it was asked to send (a lost task: never run)."""

    def __init__(self) -> None:
        self.bots: list[tuple[str, int, int]] = []

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        self.bots.append((game_id, seat, version))

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        raise AssertionError("no clocks in these games")


SEATS = [
    game_pb2.SeatSpec(player_id="alice"),
    game_pb2.SeatSpec(bot=common_pb2.BotSpec(kind="random")),
]


def _waiting(client: redis.Redis, settings: Settings) -> list[bytes]:
    return list(client.zrange(f"{settings.redis_prefix}game:botwait", 0, -1))


async def test_unanswered_bot_turn_is_sent_again_after_the_bound(
    settings: Settings, redis_client: redis.Redis
) -> None:
    patient = settings.model_copy(update={"game_bot_resend_seconds": 3600.0})
    due = settings.model_copy(update={"game_bot_resend_seconds": 0.0})
    first = Recorder()
    replica = await start_replica(settings, first)
    try:
        created = await create(replica.stub, settings, seats=SEATS)
        gid = created.game_id
        assert first.bots == [(gid, 1, 0)], "the bot owes the opening (simultaneous) decision"
        assert _waiting(redis_client, settings) == [f"{gid}:1".encode()]

        sweep = Recorder()
        assert await resend(patient, sweep) == 0, "not older than the bound yet"
        assert sweep.bots == []
        assert await resend(due, sweep) == 1
        assert sweep.bots == [(gid, 1, 0)]
        assert await resend(patient, sweep) == 0, "sending again restarts the wait"
        assert sweep.bots == [(gid, 1, 0)]

        # the original task and the duplicate both answer: one action is applied
        token = bot_seat_token(settings.secret(), gid, 1)
        view = (await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))).view
        request = game_pb2.SubmitActionRequest(
            game_id=gid,
            token=token,
            expected_version=0,
            decision_id=view.decision.decision_id,
            option_id=view.decision.options[0].id,
            idempotency_key=f"{gid}:1:0",
        )
        answers = [await replica.stub.SubmitAction(request) for _ in range(2)]
        assert [a.version for a in answers] == [1, 1]
        assert _waiting(redis_client, settings) == [], "an answered bot turn no longer waits"
        assert await resend(due, sweep) == 0
        assert sweep.bots == [(gid, 1, 0)]
    finally:
        await replica.stop()


async def test_sweep_drops_turns_no_longer_owed(
    settings: Settings, redis_client: redis.Redis
) -> None:
    quick = settings.model_copy(update={"game_bot_resend_seconds": 0.0})
    replica = await start_replica(quick, Recorder())
    try:
        created = await create(replica.stub, quick, seats=SEATS)
        gid = created.game_id
        await replica.stub.Resign(game_pb2.ResignRequest(game_id=gid, token=created.seat_tokens[0]))
        assert _waiting(redis_client, quick) == [f"{gid}:1".encode()]
        sweep = Recorder()
        assert await resend(quick, sweep) == 0
        assert sweep.bots == [], "the game is over: nothing is owed"
        assert _waiting(redis_client, quick) == []
    finally:
        await replica.stop()


def test_beat_runs_the_sweep() -> None:
    entry = tasks.app.conf.beat_schedule["game-resend-bot-turns"]
    assert entry["task"] == RESEND_TASK
    assert RESEND_TASK in tasks.app.tasks
    # and the SQL sweep of owed work (also run by every authority replica)
    assert tasks.app.conf.beat_schedule["game-sweep-owed"]["task"] == SWEEP_TASK
    assert SWEEP_TASK in tasks.app.tasks
