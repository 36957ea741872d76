"""Server reflection answers as grpc.reflection.v1 and v1alpha on a real server (issue 17 s6).

The v1 client is built from the published proto/third_party/grpc/reflection/v1/reflection.proto,
not from the server's packages, as a third-party client (grpcurl, Postman) would be.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest_asyncio
from google.protobuf import descriptor_pb2

from services.common.reflection import V1_FILE, V1_SERVICE, V1ALPHA_SERVICE
from services.common.server import RunningServer, start_server
from services.common.settings import Settings
from tests.docs.protoset import THIRD_PARTY, message_classes
from warroom.v1 import lobby_pb2

LOBBY = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
V1 = message_classes(V1_FILE, THIRD_PARTY)
V1_REQUEST = V1["grpc.reflection.v1.ServerReflectionRequest"]
V1_RESPONSE = V1["grpc.reflection.v1.ServerReflectionResponse"]


@pytest_asyncio.fixture
async def server() -> AsyncIterator[RunningServer]:
    running = await start_server(
        Settings(), port=0, service_names=[LOBBY], register=[], host="127.0.0.1"
    )
    try:
        yield running
    finally:
        await running.stop(0)


async def _ask(port: int, service: str, requests: list[dict[str, Any]]) -> list[Any]:
    """One ServerReflectionInfo stream to `service`, v1 messages both ways."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call: Any = channel.stream_stream(
            f"/{service}/ServerReflectionInfo",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=V1_RESPONSE.FromString,
        )
        replies: list[Any] = []
        async for reply in call(iter([V1_REQUEST(**r) for r in requests]), timeout=10):
            replies.append(reply)
        return replies


def _file_names(reply: Any) -> list[str]:
    protos = reply.file_descriptor_response.file_descriptor_proto
    return [descriptor_pb2.FileDescriptorProto.FromString(b).name for b in protos]


async def test_v1_and_v1alpha_both_answer(server: RunningServer) -> None:
    asks = [
        {"list_services": ""},
        {"file_containing_symbol": LOBBY},
        {"file_containing_symbol": V1_SERVICE},
        {"file_containing_symbol": "warroom.v1.NoSuchService"},
    ]
    for service in (V1_SERVICE, V1ALPHA_SERVICE):
        listed, lobby, own, missing = await _ask(server.port, service, asks)
        names = {s.name for s in listed.list_services_response.service}
        assert {LOBBY, "grpc.health.v1.Health", V1_SERVICE, V1ALPHA_SERVICE} <= names, service
        assert "warroom/v1/lobby.proto" in _file_names(lobby), service
        assert _file_names(own)[0] == V1_FILE, service
        assert missing.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
        assert missing.original_request.file_containing_symbol == "warroom.v1.NoSuchService"


async def test_v1_describes_every_message_of_a_service(server: RunningServer) -> None:
    """What grpcurl `describe` does: a file by name, with its services and methods."""
    (reply,) = await _ask(server.port, V1_SERVICE, [{"file_by_filename": "warroom/v1/lobby.proto"}])
    files = {
        descriptor_pb2.FileDescriptorProto.FromString(b).name: b
        for b in reply.file_descriptor_response.file_descriptor_proto
    }
    assert "warroom/v1/lobby.proto" in files
    lobby = descriptor_pb2.FileDescriptorProto.FromString(files["warroom/v1/lobby.proto"])
    assert "Login" in {m.name for m in lobby.service[0].method}
