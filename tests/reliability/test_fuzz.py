"""Fuzz every RPC of every service: hypothesis-built requests and raw garbage bytes.

The lobby (with the catalogue), the authority and the bot service run as real processes.
Every RPC, enumerated from the service descriptors, gets requests generated from its
message descriptor (strings with NUL bytes, surrogates and control characters, huge and
negative numbers, nested messages, repeated fields), sent without a credential, with a
garbage bearer, or with a random token in the request; and raw random bytes that are not a
valid message at all. No call may crash a server, answer INTERNAL or UNKNOWN, or change
durable state (every SQL table but the lobby's players and credentials, which Login may
add to, is compared before and after).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor as pb_descriptor
from google.protobuf import symbol_database
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

from services.common.db import make_engine
from tests.reliability.procs import Procs, Stack, free_port
from warroom.v1 import bots_pb2, catalog_pb2, game_pb2, lobby_pb2

SERVICES = (
    ("LobbyService", lobby_pb2, "lobby"),
    ("CatalogService", catalog_pb2, "lobby"),
    ("GameService", game_pb2, "game"),
    ("BotService", bots_pb2, "bots"),
)
BAD = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
EXAMPLES_PER_RPC = 60
GARBAGE_PER_RPC = 20
FD = pb_descriptor.FieldDescriptor

nasty_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["", "\x00", "a\x00b", "\x7f\x1b[31m", "💥" * 50, "x" * 5000, "../../etc", "%s%n"]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
)
SCALARS: dict[int, st.SearchStrategy[Any]] = {
    FD.TYPE_STRING: nasty_text,
    FD.TYPE_BYTES: st.binary(max_size=64),
    FD.TYPE_BOOL: st.booleans(),
    FD.TYPE_DOUBLE: st.floats(allow_nan=True, allow_infinity=True),
    FD.TYPE_FLOAT: st.floats(width=32, allow_nan=True, allow_infinity=True),
    FD.TYPE_INT32: st.integers(-(2**31), 2**31 - 1),
    FD.TYPE_SINT32: st.integers(-(2**31), 2**31 - 1),
    FD.TYPE_SFIXED32: st.integers(-(2**31), 2**31 - 1),
    FD.TYPE_INT64: st.integers(-(2**63), 2**63 - 1),
    FD.TYPE_SINT64: st.integers(-(2**63), 2**63 - 1),
    FD.TYPE_SFIXED64: st.integers(-(2**63), 2**63 - 1),
    FD.TYPE_UINT32: st.integers(0, 2**32 - 1),
    FD.TYPE_FIXED32: st.integers(0, 2**32 - 1),
    FD.TYPE_UINT64: st.integers(0, 2**64 - 1),
    FD.TYPE_FIXED64: st.integers(0, 2**64 - 1),
}


def _value(field: pb_descriptor.FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.enum_type is not None:
        numbers = [v.number for v in field.enum_type.values]
        return st.one_of(st.sampled_from(numbers), st.integers(-5, 1000))
    if field.message_type is not None:
        return message_strategy(field.message_type, depth + 1)
    return SCALARS[field.type]


@st.composite
def _message(draw: Any, descriptor: pb_descriptor.Descriptor, depth: int) -> Message:
    cls = symbol_database.Default().GetSymbol(descriptor.full_name)
    message = cls()
    if depth > 2 or descriptor.full_name.startswith("google.protobuf."):
        return message  # Any, Struct, Timestamp...: left empty (garbage bytes cover them)
    for field in descriptor.fields:
        if not draw(st.booleans()):
            continue
        value = _value(field, depth)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key, val = (
                field.message_type.fields_by_name["key"],
                field.message_type.fields_by_name["value"],
            )
            entries = draw(st.dictionaries(_value(key, depth), _value(val, depth), max_size=3))
            target = getattr(message, field.name)
            for k, v in entries.items():
                if val.type == FD.TYPE_MESSAGE:
                    target[k].CopyFrom(v)
                else:
                    target[k] = v
        elif field.is_repeated:
            items = draw(st.lists(value, max_size=3))
            target = getattr(message, field.name)
            for item in items:
                if field.type == FD.TYPE_MESSAGE:
                    target.add().CopyFrom(item)
                else:
                    target.append(item)
        elif field.type == FD.TYPE_MESSAGE:
            getattr(message, field.name).CopyFrom(draw(value))
        else:
            setattr(message, field.name, draw(value))
    return message


def message_strategy(
    descriptor: pb_descriptor.Descriptor, depth: int = 0
) -> st.SearchStrategy[Message]:
    """Messages of `descriptor` with random fields set (nested messages two levels deep)."""
    return _message(descriptor, depth)


class Sender:
    """Sends one request to one method and tallies the answer's status."""

    def __init__(
        self, call: Any, path: str, streaming: bool, codes: Counter[str], bad: list[str]
    ) -> None:
        self.call, self.path, self.streaming = call, path, streaming
        self.codes, self.bad = codes, bad

    def __call__(self, request: Any, metadata: tuple[tuple[str, str], ...]) -> None:
        try:
            answer = self.call(request, metadata=metadata, timeout=10)
            if self.streaming:
                next(iter(answer), None)
                answer.cancel()
            self.codes["OK"] += 1
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
            self.codes[code.name] += 1
            if code in BAD:
                self.bad.append(f"{self.path}: {code.name} {error.details()}")  # type: ignore[attr-defined]


CREDENTIALS = st.sampled_from(
    [
        (),
        (("authorization", "Bearer garbage"),),
        (("authorization", "Basic Zm9vOmJhcg=="),),
        (("authorization", "Bearer wr.x.0.deadbeef"),),
    ]
)


def fuzz_method(send: Sender, strategy: st.SearchStrategy[Message]) -> None:
    """Send EXAMPLES_PER_RPC hypothesis-built requests with random credentials."""

    @settings(
        max_examples=EXAMPLES_PER_RPC,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(request=strategy, metadata=CREDENTIALS)
    def fuzz(request: Message, metadata: tuple[tuple[str, str], ...]) -> None:
        send(request, metadata)

    fuzz()


def durable_state(engine: Engine) -> dict[str, int]:
    """Row counts of every table of the schema but those Login may add to."""
    skip = {"lobby_players", "lobby_credentials", "alembic_version"}
    names = [t for t in inspect(engine).get_table_names() if t not in skip]
    with engine.connect() as conn:
        return {
            t: int(conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()) for t in names
        }


@pytest.mark.timeout(420)
def test_fuzzing_every_rpc_crashes_nothing_and_changes_nothing(stack: Stack, procs: Procs) -> None:
    ports = {"game": free_port(), "lobby": free_port(), "bots": free_port()}
    game_address = f"127.0.0.1:{ports['game']}"
    procs.game(ports["game"])
    endpoints = {
        "WARROOM_GAME_ENDPOINT": game_address,
        "WARROOM_LOBBY_PORT": str(ports["lobby"]),
        "WARROOM_LOBBY_METRICS_PORT": str(free_port()),
        "WARROOM_BOTS_PORT": str(ports["bots"]),
        "WARROOM_BOTS_METRICS_PORT": str(free_port()),
    }
    lobby = procs.module("lobby", "services.lobby", **endpoints)
    bots = procs.module("bots", "services.bots", **endpoints)
    channels = {name: grpc.insecure_channel(f"127.0.0.1:{port}") for name, port in ports.items()}
    for name, channel in channels.items():
        try:
            grpc.channel_ready_future(channel).result(timeout=120)
        except grpc.FutureTimeoutError:
            pytest.fail(f"{name} did not start:\n{procs.tails()}")
    engine = make_engine(stack.database_url, stack.schema)
    before = durable_state(engine)
    codes: Counter[str] = Counter()
    bad: list[str] = []
    started = time.monotonic()
    rng = random.Random(20)
    for service, module, where in SERVICES:
        for method in module.DESCRIPTOR.services_by_name[service].methods:
            path = f"/{method.containing_service.full_name}/{method.name}"
            channel = channels[where]
            streaming = method.server_streaming
            call: Any = (channel.unary_stream if streaming else channel.unary_unary)(
                path,
                request_serializer=lambda m: m if isinstance(m, bytes) else m.SerializeToString(),
            )

            send = Sender(call, path, streaming, codes, bad)
            strategy = message_strategy(method.input_type)

            fuzz_method(send, strategy)
            for _ in range(GARBAGE_PER_RPC):
                send(rng.randbytes(rng.randint(1, 200)), ())
    after = durable_state(engine)
    engine.dispose()
    elapsed = time.monotonic() - started
    for proc in (lobby, bots, *procs.started):
        assert proc.popen is not None and proc.popen.poll() is None, f"{proc.name} crashed"
    total = sum(codes.values())
    rpcs = sum(len(m.DESCRIPTOR.services_by_name[s].methods) for s, m, _ in SERVICES)
    print(
        f"fuzzed {rpcs} RPCs with {total} requests in {elapsed:.0f} s: "
        f"{len(bad)} INTERNAL/UNKNOWN, 0 crashes, codes {dict(codes.most_common())}"
    )
    for channel in channels.values():
        channel.close()
    assert not bad, "\n".join(bad[:30])
    assert after == before, f"durable state changed: {before} -> {after}"
