"""Fixtures of the bot-service tests: the toy game registered, settings, a running BotService."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import pytest
import pytest_asyncio

from services.bots.server import serve
from services.bots.settings import BotSettings
from services.common.auth import service_metadata
from warroom.engine.registry import register
from warroom.v1 import bots_pb2_grpc

register("toy", "tests.engine.toy_game:ToyRules")
BENCH = Path(__file__).resolve().parents[3] / "bench"


def load_bench(name: str) -> ModuleType:
    """A script of bench/ (`name`.py) loaded as the module `bench_<name>`."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bench_{name}"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def bot_settings() -> BotSettings:
    """Settings with small default budgets (the service's budget overrides)."""
    return BotSettings(
        service_secret="test-service-secret",
        bot_budgets={"ismcts": {"ms": 0, "iterations": 60}},
        bot_concurrency=2,
    )


class Credential(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Adds `authorization: Bearer <credential>` to every unary call."""

    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.metadata = metadata

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        metadata = tuple(details.metadata or ()) + self.metadata
        return await continuation(details._replace(metadata=metadata), request)


@pytest_asyncio.fixture
async def bot_stub(bot_settings: BotSettings) -> AsyncIterator[bots_pb2_grpc.BotServiceAsyncStub]:
    """A BotService on a free port, and a stub calling it with the service credential."""
    running, servicer = await serve(bot_settings, port=0, metrics_port=0)
    channel = grpc.aio.insecure_channel(
        f"127.0.0.1:{running.port}", interceptors=[Credential(service_metadata(bot_settings))]
    )
    try:
        yield bots_pb2_grpc.BotServiceStub(channel)  # type: ignore[misc]
    finally:
        await channel.close()
        await running.stop(0)
        await servicer.close()
