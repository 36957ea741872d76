"""The gateway forwards Connect and gRPC-Web calls to the real services: answers, metadata,
errors with their google.rpc details, and server streams."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2

from services.game.tests.helpers import create, status_of
from services.web import metrics
from services.web.methods import services
from services.web.tests.conftest import Stack, streams_back_to
from warroom.v1 import bots_pb2, catalog_pb2, game_pb2, lobby_pb2
from warroom.v1.bots_connect import BotServiceClient
from warroom.v1.catalog_connect import CatalogServiceClient
from warroom.v1.game_connect import GameServiceClient
from warroom.v1.lobby_connect import LobbyServiceClient


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def reason_of(error: ConnectError) -> str:
    for detail in error.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def test_every_service_in_the_protos_is_found() -> None:
    found = services()
    assert {
        "warroom.v1.LobbyService",
        "warroom.v1.GameService",
        "warroom.v1.BotService",
        "warroom.v1.CatalogService",
    } <= set(found)
    game = {m.name: m for m in found["warroom.v1.GameService"]}
    assert game["SubmitAction"].input is game_pb2.SubmitActionRequest
    assert game["SubmitAction"].output is game_pb2.SubmitActionResponse
    assert game["WatchGame"].server_streaming and not game["GetView"].server_streaming


async def test_lobby_login_and_authorized_call(stack: Stack) -> None:
    async with LobbyServiceClient(stack.url) as lobby:
        login = await lobby.login(lobby_pb2.LoginRequest(name="web-alice"))
        assert login.token and login.player_id
        me = await lobby.get_player(lobby_pb2.GetPlayerRequest(), headers=bearer(login.token))
        assert me.player.player_id == login.player_id
        assert me.player.display_name == "web-alice"
        # Without the bearer metadata the lobby refuses: the header is what carried it.
        with pytest.raises(ConnectError) as caught:
            await lobby.get_player(lobby_pb2.GetPlayerRequest())
        assert caught.value.code is Code.UNAUTHENTICATED


@pytest.mark.parametrize("proto_json", [False, True], ids=["binary", "json"])
async def test_game_calls_and_errors_with_details(stack: Stack, proto_json: bool) -> None:
    created = await create(stack.authority.stub, stack.settings)
    gid, tokens = created.game_id, list(created.seat_tokens)
    async with GameServiceClient(stack.url, proto_json=proto_json) as game:
        view = (await game.get_view(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
        assert view.game_id == gid and view.seat == 0
        decision = view.decision
        bad = game_pb2.SubmitActionRequest(
            game_id=gid,
            token=tokens[0],
            expected_version=view.version,
            decision_id=decision.decision_id,
            option_id="no-such-option",
        )
        # The same refusal through the gateway and directly: code, message and reason.
        with pytest.raises(grpc.aio.AioRpcError) as direct:
            await stack.authority.stub.SubmitAction(bad)
        with pytest.raises(ConnectError) as via:
            await game.submit_action(bad)
        direct_code, direct_reason = status_of(direct.value)
        assert via.value.code.name == direct_code.name == "INVALID_ARGUMENT"
        assert reason_of(via.value) == direct_reason != ""
        assert via.value.message == direct.value.details()
        good = game_pb2.SubmitActionRequest(
            game_id=gid,
            token=tokens[0],
            expected_version=view.version,
            decision_id=decision.decision_id,
            option_id=decision.options[0].id,
        )
        answer = await game.submit_action(good)
        assert answer.version == view.version + 1
        after = (await game.get_view(game_pb2.GetViewRequest(game_id=gid, token=tokens[1]))).view
        assert after.version == answer.version
        with pytest.raises(ConnectError) as denied:
            await game.get_view(game_pb2.GetViewRequest(game_id=gid, token="forged"))
        assert denied.value.code in (Code.UNAUTHENTICATED, Code.PERMISSION_DENIED)
        assert reason_of(denied.value)


async def test_grpc_web_protocol(stack: Stack) -> None:
    created = await create(stack.authority.stub, stack.settings)
    async with GameServiceClient(stack.url, protocol=ProtocolType.GRPC_WEB) as game:
        view = (
            await game.get_view(
                game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[1])
            )
        ).view
        assert view.seat == 1
        with pytest.raises(ConnectError) as caught:
            await game.get_view(game_pb2.GetViewRequest(game_id="nope", token="x"))
        assert caught.value.code is not Code.UNKNOWN
        assert reason_of(caught.value)


async def test_watch_game_stream_through_gateway(stack: Stack) -> None:
    created = await create(stack.authority.stub, stack.settings)
    gid, tokens = created.game_id, list(created.seat_tokens)
    async with GameServiceClient(stack.url) as game:
        stream = game.watch_game(game_pb2.WatchGameRequest(game_id=gid, token=tokens[1]))
        first = await asyncio.wait_for(anext(stream), 10)
        assert first.view.game_id == gid and first.version == 0
        view = (await game.get_view(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
        await game.submit_action(
            game_pb2.SubmitActionRequest(
                game_id=gid,
                token=tokens[0],
                expected_version=view.version,
                decision_id=view.decision.decision_id,
                option_id=view.decision.options[0].id,
            )
        )
        second = await asyncio.wait_for(anext(stream), 10)
        assert second.version == 1 and second.view.version == 1
        gauge = metrics.STREAMS.labels("warroom.v1.GameService", "WatchGame")
        assert gauge._value.get() >= 1
        await stream.aclose()  # type: ignore[attr-defined]


async def test_stream_closed_by_the_browser_ends_upstream(stack: Stack) -> None:
    """An idle stream the client drops is cancelled upstream at once, not at its next event."""
    created = await create(stack.authority.stub, stack.settings)
    gauge = metrics.STREAMS.labels("warroom.v1.GameService", "WatchGame")
    before = gauge._value.get()
    async with GameServiceClient(stack.url) as game:
        stream = game.watch_game(
            game_pb2.WatchGameRequest(game_id=created.game_id, token=created.seat_tokens[0])
        )
        await asyncio.wait_for(anext(stream), 10)
        assert gauge._value.get() == before + 1
        await stream.aclose()  # type: ignore[attr-defined]
    await streams_back_to(gauge, before)


async def test_stream_error_passes_through(stack: Stack) -> None:
    request = game_pb2.WatchGameRequest(game_id="0" * 32, token="forged")
    with pytest.raises(grpc.aio.AioRpcError) as direct:
        await stack.authority.stub.WatchGame(request).read()
    async with GameServiceClient(stack.url) as game:
        stream = game.watch_game(request)
        with pytest.raises(ConnectError) as caught:
            await asyncio.wait_for(anext(stream), 10)
    direct_code, direct_reason = status_of(direct.value)
    assert caught.value.code.name == direct_code.name
    assert reason_of(caught.value) == direct_reason != ""


async def test_watch_ticket_stream(stack: Stack) -> None:
    async with LobbyServiceClient(stack.url) as lobby:
        login = await lobby.login(lobby_pb2.LoginRequest(name="web-queuer"))
        ticket = (
            await lobby.enqueue_ticket(
                lobby_pb2.EnqueueTicketRequest(rules_id="toy"), headers=bearer(login.token)
            )
        ).ticket
        stream = lobby.watch_ticket(
            lobby_pb2.WatchTicketRequest(ticket_id=ticket.ticket_id), headers=bearer(login.token)
        )
        first = await asyncio.wait_for(anext(stream), 10)
        assert first.ticket_id == ticket.ticket_id
        assert first.status == lobby_pb2.TICKET_STATUS_SEARCHING
        await lobby.cancel_ticket(
            lobby_pb2.CancelTicketRequest(ticket_id=ticket.ticket_id), headers=bearer(login.token)
        )
        statuses = [first.status]
        async for message in stream:
            statuses.append(message.status)
            if message.status != lobby_pb2.TICKET_STATUS_SEARCHING:
                break
        assert statuses[-1] == lobby_pb2.TICKET_STATUS_CANCELLED


async def test_bot_service_forwarded(stack: Stack) -> None:
    async with BotServiceClient(stack.url) as bots:
        listed = await bots.list_bots(bots_pb2.ListBotsRequest())
    assert any(bot.kind == "random" for bot in listed.bots)


async def test_catalog_forwarded(stack: Stack) -> None:
    async with CatalogServiceClient(stack.url) as catalog:
        kinds = await catalog.list_game_kinds(catalog_pb2.ListGameKindsRequest())
        assert {k.rules_id for k in kinds.games} >= {"ncw", "qmg_cw", "qmg_sf"}
        ncw = next(k for k in kinds.games if k.rules_id == "ncw")
        full = await catalog.get_catalog(catalog_pb2.GetCatalogRequest(rules_id="ncw"))
        assert full.content_version == ncw.content_version and full.HasField("catalog")
        again = await catalog.get_catalog(
            catalog_pb2.GetCatalogRequest(rules_id="ncw", if_none_match=ncw.content_version)
        )
        assert again.not_modified


async def test_upstream_down_is_unavailable(stack: Stack) -> None:
    await stack.bots.stop(0)
    async with BotServiceClient(stack.url) as bots:
        with pytest.raises(ConnectError) as caught:
            await bots.list_bots(bots_pb2.ListBotsRequest(), timeout_ms=3000)
    assert caught.value.code in (Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED)
    assert "127.0.0.1" not in caught.value.message


def _service_descriptors() -> list[Any]:
    import importlib
    import pkgutil

    import warroom.v1

    found = []
    for info in pkgutil.iter_modules(warroom.v1.__path__):
        if info.name.endswith("_pb2"):
            module = importlib.import_module(f"warroom.v1.{info.name}")
            found.extend(module.DESCRIPTOR.services_by_name.values())
    return found


async def test_every_rpc_in_the_protos_is_forwarded(stack: Stack) -> None:
    """Each method of each service in proto/warroom/v1 reaches its upstream (no gateway code
    per RPC: a method missing here would be a 404 or `unimplemented`)."""
    import urllib.error
    import urllib.request

    def post(path: str, streaming: bool) -> tuple[int, bytes]:
        content_type = "application/connect+json" if streaming else "application/json"
        body = b"\x00\x00\x00\x00\x02{}" if streaming else b"{}"
        request = urllib.request.Request(
            f"{stack.url}{path}", data=body, headers={"content-type": content_type}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, reply.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    methods = [
        (f"/{service.full_name}/{method.name}", method.server_streaming)
        for service in _service_descriptors()
        for method in service.methods
    ]
    assert len(methods) >= 30, methods
    for path, streaming in methods:
        status, body = await asyncio.to_thread(post, path, streaming)
        assert status != 404, f"{path} is not served"
        assert b"unimplemented" not in body, f"{path}: {body[:200]!r}"
