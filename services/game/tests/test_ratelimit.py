"""The per-token rate limit is one budget across replicas (buckets in Redis, local leases)."""

from __future__ import annotations

import asyncio

import grpc
import redis.asyncio as aioredis

from services.common.settings import Settings
from services.game.ratelimit import SharedRateLimiter
from services.game.tests.helpers import Replica, create, start_replica, status_of
from warroom.v1 import game_pb2


async def _admitted(replicas: list[Replica], game_id: str, token: str, calls: int) -> list[bool]:
    outcomes = []
    refusals: list[grpc.aio.AioRpcError] = []
    for i in range(calls):
        replica = replicas[i % len(replicas)]
        try:
            await replica.stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token))
            outcomes.append(True)
        except grpc.aio.AioRpcError as error:
            refusals.append(error)
            outcomes.append(False)
    for refusal in refusals:
        assert status_of(refusal) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert "retry in" in (refusal.details() or "")
    return outcomes


async def test_two_replicas_share_one_budget_per_token(settings: Settings) -> None:
    limited = settings.model_copy(update={"game_rate_per_second": 0.01, "game_rate_burst": 6})
    a = await start_replica(limited)
    b = await start_replica(limited)
    try:
        created = await create(a.stub, limited)
        token = created.seat_tokens[0]
        outcomes = await _admitted([a, b], created.game_id, token, 12)
        # one bucket of 6 for both replicas (per-replica buckets would admit all 12)
        assert outcomes == [True] * 6 + [False] * 6
        # another token has its own bucket, on either replica
        other = await _admitted([b, a], created.game_id, created.seat_tokens[1], 2)
        assert other == [True, True]
    finally:
        await a.stop()
        await b.stop()


async def test_leases_never_admit_more_than_the_shared_bucket(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"game_rate_per_second": 0.01, "game_rate_burst": 40, "game_rate_lease": 8}
    )
    a = await start_replica(limited)
    b = await start_replica(limited)
    try:
        created = await create(a.stub, limited)
        assert a.authority.limiter.lease == 4
        outcomes = await _admitted([a, b], created.game_id, created.seat_tokens[0], 60)
        # a lease that lapses unspent only makes the limit stricter (at most one per replica)
        assert 40 - 2 * 4 <= sum(outcomes) <= 40
        assert not any(outcomes[45:])
    finally:
        await a.stop()
        await b.stop()


async def test_bucket_refills_at_the_rate(redis_url: str, redis_prefix: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    try:
        limiter = SharedRateLimiter(client, redis_prefix, rate=2.0, burst=2, lease=8)
        assert limiter.lease == 1
        assert await limiter.take("wr.secret-token") == 0.0
        assert await limiter.take("wr.secret-token") == 0.0
        wait = await limiter.take("wr.secret-token")
        assert 0 < wait <= 0.5
        await asyncio.sleep(wait + 0.05)
        assert await limiter.take("wr.secret-token") == 0.0
        slow = SharedRateLimiter(client, redis_prefix + "slow:", rate=0.01, burst=2, lease=8)
        assert await slow.take("wr.other-secret") == 0.0
        keys = [k async for k in client.scan_iter(match=f"{redis_prefix}slow:ratelimit:*")]
        assert len(keys) == 1 and b"secret" not in keys[0], "the key is a digest"
    finally:
        await client.aclose()  # type: ignore[attr-defined]
