"""A Redis that cannot be reached makes an RPC UNAVAILABLE (with a reason), never UNKNOWN."""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.common.redisio import async_redis, client_options, sync_redis
from services.common.server import start_server
from services.common.settings import Settings


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _dead_redis_settings() -> Settings:
    return Settings(
        redis_url=f"redis://127.0.0.1:{_closed_port()}/0",
        redis_retries=2,
        redis_retry_cap_seconds=0.05,
    )


def _reason(error: grpc.aio.AioRpcError) -> tuple[str, bool]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    reason, retry = "", False
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reason = info.reason
        retry = retry or detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR)
    return reason, retry


async def test_unary_and_streaming_calls_on_a_lost_redis_are_unavailable() -> None:
    settings = _dead_redis_settings()
    client = async_redis(settings)

    async def unary(request: bytes, context: Any) -> bytes:
        await client.get("k")
        return b""

    async def stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
        yield b"first"
        await client.get("k")
        yield b"never"

    handler = grpc.method_handlers_generic_handler(
        "test.Store",
        {
            "Unary": grpc.unary_unary_rpc_method_handler(unary),
            "Stream": grpc.unary_stream_rpc_method_handler(stream),
        },
    )
    running = await start_server(
        settings,
        port=0,
        service_names=["test.Store"],
        register=[lambda server: server.add_generic_rpc_handlers((handler,))],
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as raw:
            channel: Any = raw
            started = time.perf_counter()
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await channel.unary_unary("/test.Store/Unary")(b"", timeout=10)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert _reason(caught.value) == ("REDIS_UNAVAILABLE", True)
            assert time.perf_counter() - started < 5, "the retries are bounded"
            call = channel.unary_stream("/test.Store/Stream")(b"", timeout=10)
            received: list[bytes] = []

            async def drain() -> None:
                async for item in call:
                    received.append(item)

            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await drain()
            assert received == [b"first"]
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert _reason(caught.value)[0] == "REDIS_UNAVAILABLE"
    finally:
        await running.stop(0)
        await client.aclose()  # type: ignore[attr-defined,unused-ignore]


def test_clients_retry_and_check_connection_health(redis_url: str) -> None:
    settings = Settings(redis_url=redis_url)
    options = client_options(settings)
    assert options["health_check_interval"] == settings.redis_health_check_seconds > 0
    assert options["retry"].get_retries() == settings.redis_retries > 0
    client = sync_redis(settings)
    try:
        assert client.ping()
        pool_kwargs = client.connection_pool.connection_kwargs
        assert pool_kwargs["health_check_interval"] == settings.redis_health_check_seconds
        assert pool_kwargs["retry"].get_retries() == settings.redis_retries
    finally:
        client.close()
