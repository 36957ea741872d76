"""CatalogService on a real in-process gRPC server (as the lobby process registers it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from services.catalog.service import SERVICE_NAME, register
from services.common.server import start_server
from services.common.settings import Settings
from warroom import catalog
from warroom.v1 import catalog_pb2, catalog_pb2_grpc, common_pb2


@pytest_asyncio.fixture
async def channel() -> AsyncIterator[grpc.aio.Channel]:
    running = await start_server(
        Settings(), port=0, service_names=[SERVICE_NAME], register=[register()], host="127.0.0.1"
    )
    chan = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield chan
    finally:
        await chan.close()
        await running.stop(0)


def _reason(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason
    raise AssertionError("no ErrorInfo")


async def test_list_and_get_with_caching(channel: grpc.aio.Channel) -> None:
    stub = catalog_pb2_grpc.CatalogServiceStub(channel)
    kinds = await stub.ListGameKinds(catalog_pb2.ListGameKindsRequest())
    assert [g.rules_id for g in kinds.games] == ["ncw", "qmg_cw", "qmg_sf"]
    ncw = next(g for g in kinds.games if g.rules_id == "ncw")
    assert ncw.min_players == 1 and ncw.max_players == 4 and ncw.variant_ids[0] == "4p"
    for game in kinds.games:
        got = await stub.GetCatalog(catalog_pb2.GetCatalogRequest(game=game.game))
        assert not got.not_modified
        assert got.content_version == game.content_version == got.catalog.content_version
        assert got.catalog == catalog.catalog(game.rules_id)
        again = await stub.GetCatalog(
            catalog_pb2.GetCatalogRequest(rules_id=game.rules_id, if_none_match=got.content_version)
        )
        assert again.not_modified and not again.HasField("catalog")
        assert again.content_version == got.content_version
        stale = await stub.GetCatalog(
            catalog_pb2.GetCatalogRequest(rules_id=game.rules_id, if_none_match="0" * 16)
        )
        assert not stale.not_modified and stale.catalog.rules_id == game.rules_id


async def test_errors_carry_reasons(channel: grpc.aio.Channel) -> None:
    stub = catalog_pb2_grpc.CatalogServiceStub(channel)
    cases = [
        (catalog_pb2.GetCatalogRequest(), grpc.StatusCode.INVALID_ARGUMENT, "GAME_REQUIRED"),
        (
            catalog_pb2.GetCatalogRequest(game=common_pb2.GameKind.ValueType(99)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_GAME_KIND",
        ),
        (
            catalog_pb2.GetCatalogRequest(rules_id="chess"),
            grpc.StatusCode.NOT_FOUND,
            "UNKNOWN_GAME",
        ),
    ]
    for request, code, reason in cases:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.GetCatalog(request)
        assert caught.value.code() == code
        assert _reason(caught.value) == reason
        assert "qmg_sf" in (caught.value.details() or "") or "GAME_KIND_QMG_SOUTH_FRONT" in (
            caught.value.details() or ""
        )


async def test_health_and_kind_lookup(channel: grpc.aio.Channel) -> None:
    health: Any = health_pb2_grpc.HealthStub(channel)
    answer = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    stub = catalog_pb2_grpc.CatalogServiceStub(channel)
    got = await stub.GetCatalog(
        catalog_pb2.GetCatalogRequest(game=common_pb2.GAME_KIND_QMG_SOUTH_FRONT)
    )
    assert got.catalog.rules_id == "qmg_sf" and len(got.catalog.cards) == 72
