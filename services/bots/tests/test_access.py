"""BotService access: credentials, role caps, per-player quotas, the fair queue, the live lane."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.bots.fairqueue import FairQueue
from services.bots.server import serve
from services.bots.settings import BotSettings
from services.bots.tests.test_server import _given
from services.common.auth import service_metadata
from services.common.errors import RpcError
from services.lobby.auth import issue_token
from warroom.v1 import bots_pb2, bots_pb2_grpc, common_pb2


def _info(error: grpc.aio.AioRpcError) -> tuple[str, float | None]:
    """The ErrorInfo reason and the RetryInfo delay (seconds) of a refusal."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "the refusal carries no google.rpc.Status"
    reason, retry = "", None
    for detail in status.details:
        info, delay = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            reason = info.reason
        elif detail.Unpack(delay):
            retry = delay.retry_delay.seconds + delay.retry_delay.nanos / 1e9
    return reason, retry


class Service:
    """A BotService on a free port with helpers to call it as each role."""

    def __init__(self, settings: BotSettings, port: int) -> None:
        self.settings = settings
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        self.stub: Any = bots_pb2_grpc.BotServiceStub(self.channel)

    def player(self, player_id: str, guest: bool = False) -> tuple[tuple[str, str], ...]:
        key = self.settings.player_token_keys().current
        token, _ = issue_token(key, player_id, player_id, guest, 600)
        return (("authorization", f"Bearer {token}"),)

    def service(self) -> tuple[tuple[str, str], ...]:
        return service_metadata(self.settings)

    async def choose(
        self, metadata: tuple[tuple[str, str], ...], spec: common_pb2.BotSpec
    ) -> bots_pb2.ChooseActionResponse:
        given, _ = _given()
        request = bots_pb2.ChooseActionRequest(rules_id="toy", given=given, bot=spec)
        answer: bots_pb2.ChooseActionResponse = await self.stub.ChooseAction(
            request, metadata=metadata, timeout=60
        )
        return answer


def _settings(**overrides: Any) -> BotSettings:
    values: dict[str, Any] = {
        "service_secret": "test-service-secret",
        "bot_concurrency": 2,
        "bot_service_concurrency": 1,
        "bot_queue_max": 8,
        "bot_player_parallel": 1,
        "bot_role_caps": {
            "guest": {"ms": 400, "iterations": 5000, "samples": 4},
            "player": {"ms": 1500, "iterations": 50000, "samples": 8},
        },
        "bot_quota_ms_per_minute": {"guest": 1000, "player": 60_000},
    }
    values.update(overrides)
    return BotSettings(**values)


@pytest_asyncio.fixture
async def service() -> AsyncIterator[Service]:
    settings = _settings()
    running, servicer = await serve(settings, port=0, metrics_port=None)
    svc = Service(settings, running.port)
    try:
        yield svc
    finally:
        await svc.channel.close()
        await running.stop(0)
        await servicer.close()


ISMCTS_MS = common_pb2.BotSpec(kind="ismcts", budget_ms=300, seed=1)


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ((), "CREDENTIAL_REQUIRED"),
        ((("authorization", "Bearer nonsense"),), "INVALID_TOKEN"),
        ((("authorization", "Basic abc"),), "CREDENTIAL_REQUIRED"),
    ],
)
async def test_choose_action_needs_a_credential(
    service: Service, metadata: tuple[tuple[str, str], ...], reason: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await service.choose(metadata, common_pb2.BotSpec(kind="random"))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert _info(caught.value)[0] == reason


async def test_a_token_signed_with_another_key_is_refused(service: Service) -> None:
    forged, _ = issue_token(b"k" * 40, "mallory", "m", False, 600)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await service.choose((("authorization", f"Bearer {forged}"),), ISMCTS_MS)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert _info(caught.value)[0] == "INVALID_TOKEN"


async def test_players_and_the_service_are_answered(service: Service) -> None:
    for metadata in (service.player("p1"), service.player("g1", guest=True), service.service()):
        answer = await service.choose(metadata, common_pb2.BotSpec(kind="heuristic", seed=2))
        assert answer.option_id


async def test_budget_above_the_role_cap_is_permission_denied(service: Service) -> None:
    spec = common_pb2.BotSpec(kind="ismcts", budget_ms=1000)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await service.choose(service.player("g2", guest=True), spec)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert _info(caught.value)[0] == "BUDGET_ABOVE_ROLE_CAP"
    # The same budget is within a registered player's cap.
    assert (await service.choose(service.player("p2"), spec)).option_id


async def test_an_unset_budget_is_clamped_to_the_role_cap(service: Service) -> None:
    # ismcts:expert defaults to 1000 ms; a guest's search is cut to its 400 ms cap.
    started = time.perf_counter()
    answer = await service.choose(
        service.player("g3", guest=True), common_pb2.BotSpec(kind="ismcts", difficulty="expert")
    )
    assert answer.bot.budget_ms == 400
    assert time.perf_counter() - started < 2.0


async def test_a_guest_quota_runs_out_with_a_retry_delay(service: Service) -> None:
    guest = service.player("g4", guest=True)
    spec = common_pb2.BotSpec(kind="ismcts", budget_ms=400, seed=3)
    await service.choose(guest, spec)  # reserves 400 of 1000 ms, refunds what it did not use
    refusals = []
    for _ in range(6):
        try:
            await service.choose(guest, spec)
        except grpc.aio.AioRpcError as error:
            refusals.append(error)
            break
    assert refusals, "a guest's 1000 ms per minute should run out after a few 400 ms searches"
    refused = refusals[0]
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    reason, retry = _info(refused)
    assert reason == "SEARCH_QUOTA_EXHAUSTED"
    assert retry is not None and 0 < retry <= 60
    # Another guest is not affected.
    assert (await service.choose(service.player("g5", guest=True), spec)).option_id


async def test_one_player_may_not_hold_more_than_its_parallel_searches(service: Service) -> None:
    player = service.player("p3")
    spec = common_pb2.BotSpec(kind="ismcts", budget_ms=800, seed=4)
    first = asyncio.ensure_future(service.choose(player, spec))
    await asyncio.sleep(0.2)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await service.choose(player, spec)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    reason, retry = _info(caught.value)
    assert reason == "TOO_MANY_SEARCHES" and retry is not None
    assert (await first).option_id


async def test_the_live_lane_is_never_starved_by_analysis_traffic(service: Service) -> None:
    """6 player searches fill the analysis lane (2 run, 4 wait); a live request still answers."""
    analysis = common_pb2.BotSpec(kind="ismcts", budget_ms=1500, seed=5)
    searches = [
        asyncio.ensure_future(service.choose(service.player(f"analyst{i}"), analysis))
        for i in range(6)
    ]
    await asyncio.sleep(0.3)
    started = time.perf_counter()
    live = await service.choose(service.service(), common_pb2.BotSpec(kind="heuristic", seed=6))
    live_s = time.perf_counter() - started
    answers = await asyncio.gather(*searches)
    total_s = time.perf_counter() - started
    print(f"live decision answered in {live_s:.3f}s with 6 analysis searches in flight")
    print(f"the 6 analysis searches (1.5 s each, 2 at once) finished in {total_s:.2f}s")
    assert live.option_id
    assert live_s < 1.0, f"the live request waited {live_s:.2f}s behind analysis"
    assert all(a.option_id for a in answers)
    # The analysis lane really was saturated: 6 searches of 1.5 s, two at a time.
    assert total_s > 3.5


async def test_the_fair_queue_serves_callers_round_robin() -> None:
    queue = FairQueue("analysis", slots=1, per_caller=3, max_waiting=10)
    order: list[str] = []
    gate = asyncio.Event()

    async def search(caller: str, label: str) -> None:
        async with queue.slot(caller, 1.0):
            order.append(label)
            await gate.wait()

    first = asyncio.ensure_future(search("a", "a1"))
    await asyncio.sleep(0)
    tasks = [asyncio.ensure_future(search("a", "a2")), asyncio.ensure_future(search("a", "a3"))]
    await asyncio.sleep(0)
    tasks.append(asyncio.ensure_future(search("b", "b1")))
    await asyncio.sleep(0.01)
    gate.set()
    await asyncio.gather(first, *tasks)
    assert order == ["a1", "a2", "b1", "a3"], order


async def test_the_fair_queue_refuses_beyond_its_limits_and_forgets_cancelled_waiters() -> None:
    queue = FairQueue("analysis", slots=1, per_caller=1, max_waiting=1)
    hold = asyncio.Event()

    async def search(caller: str) -> None:
        async with queue.slot(caller, 1.0):
            await hold.wait()

    running = asyncio.ensure_future(search("a"))
    await asyncio.sleep(0)
    with pytest.raises(RpcError) as caught:
        await search("a")
    assert caught.value.reason == "TOO_MANY_SEARCHES"
    waiting = asyncio.ensure_future(search("b"))
    await asyncio.sleep(0)
    with pytest.raises(RpcError) as caught:
        await search("c")
    assert caught.value.reason == "BOT_SERVICE_BUSY" and caught.value.retry_after
    waiting.cancel()
    await asyncio.sleep(0)
    assert queue.waiting == 0
    hold.set()
    await running
    async with queue.slot("c", 1.0):
        pass  # the slot and the waiting room are free again
