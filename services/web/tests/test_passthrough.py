"""Binary calls cross the gateway as bytes; Connect JSON is converted; small answers are not
deflated. Against the real services (the `stack` fixture) and against a canned gRPC server
whose answers are bytes a re-encoding would change."""

from __future__ import annotations

import asyncio
import gzip
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf import descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from services.game.tests.helpers import create
from services.web import metrics
from services.web.passthrough import MIN_COMPRESS_BYTES, SmallGzip
from services.web.server import RunningGateway, start_gateway
from services.web.settings import WebSettings
from services.web.tests.conftest import Stack, streams_back_to
from warroom.v1 import game_pb2
from warroom.v1.game_connect import GameServiceClient

GAME = "warroom.v1.GameService"
# SubmitActionResponse{version: 1, version: 5} (the last one wins): parsing and writing it
# again gives b"\x08\x05"; only a pass-through keeps all four bytes.
TWICE = b"\x08\x01\x08\x05"
# A GetViewResponse over MIN_COMPRESS_BYTES (the view's game id padded).
LARGE = game_pb2.GetViewResponse(
    view=game_pb2.SeatView(game_id="g" * 3000, variant="duel")
).SerializeToString()


class Canned:
    """A gRPC server answering GameService calls with fixed bytes (and one slow method)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, bytes, dict[str, Any], float | None]] = []

    def handler(self, method: str) -> Any:
        async def answer(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            metadata = dict(context.invocation_metadata() or ())
            self.seen.append((method, request, metadata, context.time_remaining()))
            if method == "Resign":
                await asyncio.sleep(10)
            return LARGE if method == "GetView" else TWICE

        return grpc.unary_unary_rpc_method_handler(answer)


@pytest_asyncio.fixture
async def canned(dist: Any) -> AsyncIterator[tuple[Canned, RunningGateway]]:
    """The canned server and a gateway forwarding GameService to it."""
    canned = Canned()

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            service, _, method = details.method.strip("/").partition("/")
            return canned.handler(method) if service == GAME else None

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((Handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    settings = WebSettings(web_dist_dir=dist, web_upstreams={GAME: f"127.0.0.1:{port}"})
    gateway = await start_gateway(settings, port=0, metrics_port=-1)
    try:
        yield canned, gateway
    finally:
        await gateway.stop()
        await server.stop(0)


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


async def test_binary_bytes_pass_through_untouched(
    canned: tuple[Canned, RunningGateway],
) -> None:
    server, gateway = canned
    request = game_pb2.SubmitActionRequest(game_id="g1", option_id="o").SerializeToString()
    request += b"\xa0\x06\x01"  # field 100 (unknown to every schema), varint 1
    status, headers, body = await asyncio.to_thread(
        post,
        f"{gateway.url}/{GAME}/SubmitAction",
        request,
        {"content-type": "application/proto", "authorization": "Bearer tok", "x-other": "no"},
    )
    assert status == 200, body
    assert headers["content-type"] == "application/proto"
    assert body == TWICE
    method, seen, metadata, _ = server.seen[-1]
    assert (method, seen) == ("SubmitAction", request)
    assert metadata["authorization"] == "Bearer tok" and "x-other" not in metadata


async def test_json_is_converted(canned: tuple[Canned, RunningGateway]) -> None:
    server, gateway = canned
    status, headers, body = await asyncio.to_thread(
        post,
        f"{gateway.url}/{GAME}/SubmitAction",
        b'{"gameId": "g1", "expectedVersion": "3"}',
        {"content-type": "application/json"},
    )
    assert status == 200, body
    assert headers["content-type"] == "application/json"
    assert body.replace(b" ", b"").replace(b"\n", b"") == b'{"version":"5"}'
    sent = game_pb2.SubmitActionRequest.FromString(server.seen[-1][1])
    assert (sent.game_id, sent.expected_version) == ("g1", 3)


async def test_small_answers_are_stored_large_deflated(
    canned: tuple[Canned, RunningGateway],
) -> None:
    _server, gateway = canned
    accept = {"content-type": "application/proto", "accept-encoding": "gzip, deflate, br"}
    small = await asyncio.to_thread(post, f"{gateway.url}/{GAME}/SubmitAction", b"", accept)
    large = await asyncio.to_thread(post, f"{gateway.url}/{GAME}/GetView", b"", accept)
    for status, headers, _ in (small, large):
        assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(small[2]) == TWICE
    assert gzip.decompress(large[2]) == LARGE
    assert len(large[2]) < len(LARGE) // 10
    # Below the threshold the member is stored: the bytes appear as they are.
    assert TWICE in small[2]
    stored = SmallGzip().compress(b"x" * (MIN_COMPRESS_BYTES - 1))
    assert b"x" * (MIN_COMPRESS_BYTES - 1) in stored


async def test_client_deadline_reaches_upstream(canned: tuple[Canned, RunningGateway]) -> None:
    server, gateway = canned
    async with GameServiceClient(gateway.url) as game:
        began = time.monotonic()
        with pytest.raises(ConnectError) as caught:
            await game.resign(game_pb2.ResignRequest(game_id="g1"), timeout_ms=400)
    assert caught.value.code is Code.DEADLINE_EXCEEDED
    assert time.monotonic() - began < 5
    remaining = server.seen[-1][3]
    # gRPC's wire timeout is rounded up to its unit, so the upstream may see a hair over 0.4 s
    # (0.4007 seen); the gateway's own 30 s default would be far above this bound.
    assert remaining is not None and remaining <= 0.41


async def test_json_stream(stack: Stack) -> None:
    """WatchGame in Connect JSON: the first view, then the move made through the gateway;
    the upstream stream ends when the client closes it."""
    gauge = metrics.STREAMS.labels(GAME, "WatchGame")
    before = gauge._value.get()
    created = await create(stack.authority.stub, stack.settings)
    gid, tokens = created.game_id, list(created.seat_tokens)
    async with GameServiceClient(stack.url, proto_json=True) as game:
        stream = game.watch_game(game_pb2.WatchGameRequest(game_id=gid, token=tokens[1]))
        first = await asyncio.wait_for(anext(stream), 10)
        assert first.view.game_id == gid and first.view.view.type_url
        view = (await game.get_view(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
        move = game_pb2.SubmitActionRequest(
            game_id=gid,
            token=tokens[0],
            expected_version=view.version,
            decision_id=view.decision.decision_id,
            option_id=view.decision.options[0].id,
        )
        answer = await game.submit_action(move)
        second = await asyncio.wait_for(anext(stream), 10)
        assert second.version == answer.version == view.version + 1
        assert gauge._value.get() == before + 1
        await stream.aclose()  # type: ignore[attr-defined]
    await streams_back_to(gauge, before)


async def test_json_game_view_of_a_real_game(stack: Stack) -> None:
    """A New Cold War view (`google.protobuf.Any` of the game's own message) as JSON."""
    created = await create(
        stack.authority.stub,
        stack.settings,
        rules_id="ncw",
        variant="2p-us-russia",
        seats=[game_pb2.SeatSpec(player_id=f"p{i}") for i in range(4)],
    )
    request = game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[0])
    async with GameServiceClient(stack.url, proto_json=True) as game:
        view = (await game.get_view(request)).view
    direct = (await stack.authority.stub.GetView(request)).view
    assert view.view.type_url == direct.view.type_url and "ncw" in view.view.type_url
    kind = GetMessageClass(
        descriptor_pool.Default().FindMessageTypeByName(view.view.type_url.split("/")[-1])
    )
    assert kind.FromString(view.view.value) == kind.FromString(direct.view.value)
