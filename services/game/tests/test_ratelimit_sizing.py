"""The default rate limit fits an honest client, RetryInfo carries the real wait, and the
GameService edge validates names before they reach the rules or SQL (issue 17, issue 20)."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
import redis.asyncio as aioredis
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.common.auth import service_metadata
from services.common.settings import Settings
from services.game.ratelimit import SharedRateLimiter
from services.game.tests.helpers import Replica, create, start_replica, status_of, toy_request
from warroom.v1 import common_pb2, game_pb2


async def _throttled(limiter: SharedRateLimiter, calls: int, spacing_s: float) -> int:
    """How many of `calls` takes, one every `spacing_s`, were refused."""
    refused = 0
    next_at = time.monotonic()
    for _ in range(calls):
        if await limiter.take("wr.honest-client-token") > 0:
            refused += 1
        next_at += spacing_s
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    return refused


async def test_default_limit_never_throttles_a_client_answering_back_to_back(
    redis_url: str, redis_prefix: str
) -> None:
    defaults = Settings()
    client = aioredis.Redis.from_url(redis_url)
    try:
        # 500 calls at 4 ms (250 calls/s, the fastest honest client measured): never throttled
        sized = SharedRateLimiter(
            client,
            redis_prefix,
            defaults.game_rate_per_second,
            defaults.game_rate_burst,
            defaults.game_rate_lease,
        )
        assert await _throttled(sized, 500, 0.004) == 0
        # the old default (50/s, burst 100) throttled the same client: the test can fail
        old = SharedRateLimiter(client, redis_prefix + "old:", 50.0, 100, defaults.game_rate_lease)
        assert await _throttled(old, 500, 0.004) > 100
    finally:
        await client.aclose()  # type: ignore[attr-defined]


@pytest.fixture
def slow(settings: Settings) -> Settings:
    """Settings with a bucket of 2 refilled at 2 tokens a second."""
    return settings.model_copy(update={"game_rate_per_second": 2.0, "game_rate_burst": 2})


async def test_retry_info_carries_the_real_wait(slow: Settings) -> None:
    replica: Replica = await start_replica(slow)
    try:
        created = await create(replica.stub, slow)
        request = game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[0])
        for _ in range(2):
            await replica.stub.GetView(request)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await replica.stub.GetView(request)
        assert status_of(info.value) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        status = rpc_status.from_call(info.value)  # type: ignore[arg-type]
        assert status is not None
        retry = error_details_pb2.RetryInfo()
        assert any(d.Unpack(retry) for d in status.details)
        wait = retry.retry_delay.seconds + retry.retry_delay.nanos / 1e9
        # one token refills in 0.5 s at 2/s: the wait says so (not "0.00s")
        assert 0.3 <= wait <= 0.51, wait
        assert f"retry in {round(wait * 1000)} ms" in (info.value.details() or "")
        await asyncio.sleep(wait + 0.02)
        await replica.stub.GetView(request)  # waiting that long is enough
    finally:
        await replica.stop()


@pytest.mark.parametrize(
    ("seat", "reason", "field"),
    [
        (
            game_pb2.SeatSpec(bot=common_pb2.BotSpec(kind="oracle")),
            "UNKNOWN_BOT_KIND",
            "seats[1].bot.kind",
        ),
        (
            game_pb2.SeatSpec(bot=common_pb2.BotSpec(kind="random", difficulty="expert")),
            "UNKNOWN_DIFFICULTY",
            "seats[1].bot.difficulty",
        ),
        (
            game_pb2.SeatSpec(bot=common_pb2.BotSpec(kind="ncw-official")),
            "BOT_CANNOT_PLAY",
            "seats[1].bot.kind",
        ),
        (game_pb2.SeatSpec(player_id="p\x00nul"), "BAD_TEXT", "seats[1].player_id"),
        (
            game_pb2.SeatSpec(
                player_id="p2",
                clock=common_pb2.ClockSpec(
                    mode=common_pb2.ClockSpec.MODE_LIVE,
                    initial_seconds=60,
                    fallback=common_pb2.ClockSpec.FALLBACK_BOT,
                    fallback_bot=common_pb2.BotSpec(kind="oracle"),
                ),
            ),
            "UNKNOWN_BOT_KIND",
            "seats[1].clock.fallback_bot.kind",
        ),
    ],
)
async def test_create_game_refuses_a_seat_nothing_can_play(
    replica: Replica, settings: Settings, seat: game_pb2.SeatSpec, reason: str, field: str
) -> None:
    request = toy_request()
    request.seats[1].CopyFrom(seat)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await replica.stub.CreateGame(request, metadata=service_metadata(settings))
    assert status_of(info.value) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    status = rpc_status.from_call(info.value)  # type: ignore[arg-type]
    assert status is not None
    bad = error_details_pb2.BadRequest()
    assert any(d.Unpack(bad) for d in status.details)
    assert bad.field_violations[0].field == field


async def test_list_games_checks_rules_id_against_the_registry(
    replica: Replica, settings: Settings
) -> None:
    for rules_id, reason in (
        ("chess", "UNKNOWN_GAME"),
        ("toy\x00", "BAD_TEXT"),
        ("n" * 500, "TOO_LONG"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await replica.stub.ListGames(
                game_pb2.ListGamesRequest(rules_id=rules_id), metadata=service_metadata(settings)
            )
        assert status_of(info.value) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
        if reason == "UNKNOWN_GAME":
            assert "known:" in (info.value.details() or "")
    listed = await replica.stub.ListGames(
        game_pb2.ListGamesRequest(rules_id="toy"), metadata=service_metadata(settings)
    )
    assert listed is not None


async def test_undecodable_game_requests_are_invalid_argument(replica: Replica) -> None:
    raw = replica.channel.unary_unary(
        "/warroom.v1.GameService/SubmitAction",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await raw(b"\xff\xfe\xfd")
    assert status_of(info.value) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert "not a valid warroom.v1.SubmitActionRequest" in (info.value.details() or "")


async def test_idempotency_key_with_control_characters_is_refused(
    replica: Replica, settings: Settings
) -> None:
    created = await create(replica.stub, settings)
    view = (
        await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[0])
        )
    ).view
    seat = 0 if view.decision.options else 1
    if seat:
        view = (
            await replica.stub.GetView(
                game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[1])
            )
        ).view
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await replica.stub.SubmitAction(
            game_pb2.SubmitActionRequest(
                game_id=created.game_id,
                token=created.seat_tokens[seat],
                expected_version=view.version,
                decision_id=view.decision.decision_id,
                option_id=view.decision.options[0].id,
                idempotency_key="key\x00nul",
            )
        )
    assert status_of(info.value) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_TEXT")
    after = (
        await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[seat])
        )
    ).view
    assert after.version == view.version
