"""Each rejection gives the right status and reason, and leaves the game unchanged."""

from __future__ import annotations

from collections.abc import Awaitable

import grpc
import pytest

from services.common.settings import Settings
from services.game.tests.helpers import Replica, create, start_replica, status_of
from warroom.v1 import game_pb2


async def expect(call: Awaitable[object], code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    got_code, got_reason = status_of(caught.value)
    assert (got_code, got_reason) == (code, reason), caught.value.details()
    assert caught.value.details(), "every error carries a message"


async def snapshot(replica: Replica, game_id: str, tokens: list[str]) -> list[bytes]:
    views = []
    for token in tokens:
        response = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token))
        view = response.view
        view.ClearField("clock_deadline")
        views.append(view.SerializeToString(deterministic=True))
    return views


async def test_error_table_leaves_state_unchanged(replica: Replica) -> None:
    stub = replica.stub
    created = await create(stub, replica.settings)
    other = await create(stub, replica.settings, seed=99)
    gid, tokens = created.game_id, list(created.seat_tokens)
    view0 = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
    option = view0.decision.options[0].id

    def submit(token: str, **kw: object) -> game_pb2.SubmitActionRequest:
        fields: dict[str, object] = {
            "game_id": gid,
            "token": token,
            "expected_version": 0,
            "decision_id": view0.decision.decision_id,
            "option_id": option,
        }
        fields.update(kw)
        return game_pb2.SubmitActionRequest(**fields)  # type: ignore[arg-type]

    # a first good action with an idempotency key; its retry returns the original answer
    first = await stub.SubmitAction(submit(tokens[0], idempotency_key="once"))
    assert first.version == 1
    before = await snapshot(replica, gid, tokens)
    retry = await stub.SubmitAction(submit(tokens[0], idempotency_key="once"))
    assert retry.version == 1
    assert retry.view.SerializeToString(deterministic=True) == first.view.SerializeToString(
        deterministic=True
    )
    # seat 1 still owes the simultaneous "place" decision: its stale expected_version is accepted
    # only later; every rejection below must leave the game at version 1
    cases = [
        (
            submit(tokens[0], idempotency_key="once", option_id="card-99"),
            grpc.StatusCode.ALREADY_EXISTS,
            "IDEMPOTENCY_KEY_REUSED",
        ),
        (
            submit(tokens[0], expected_version=1),
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOT_YOUR_DECISION",
        ),
        (
            submit(tokens[1], expected_version=1, option_id="card-99"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_OPTION",
        ),
        (
            submit(tokens[1], expected_version=1, decision_id="77"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_DECISION",
        ),
        (
            submit(tokens[1], expected_version=0, decision_id="77"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_DECISION",
        ),
        (
            submit(tokens[0], expected_version=0, option_id="card-5"),
            grpc.StatusCode.ABORTED,
            "STALE_VERSION",
        ),
        (
            submit(other.seat_tokens[1], expected_version=1),
            grpc.StatusCode.PERMISSION_DENIED,
            "FOREIGN_TOKEN",
        ),
        (submit("garbage", expected_version=1), grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN"),
        (
            submit(created.spectator_token, expected_version=1),
            grpc.StatusCode.PERMISSION_DENIED,
            "SPECTATOR",
        ),
        (
            submit(tokens[1], game_id="nothex"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_GAME_ID",
        ),
        (submit(tokens[1], game_id="0" * 32), grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"),
        (submit(tokens[1], option_id=""), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_ID"),
    ]
    for request, code, reason in cases:
        await expect(stub.SubmitAction(request), code, reason)
        assert await snapshot(replica, gid, tokens) == before, reason
    # the stale-but-same-simultaneous-decision case is accepted
    view1 = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[1]))).view
    accepted = await stub.SubmitAction(
        submit(tokens[1], expected_version=0, option_id=view1.decision.options[0].id)
    )
    assert accepted.version == 2
    # internal calls need the service credential
    await expect(
        stub.CreateGame(game_pb2.CreateGameRequest(rules_id="toy")),
        grpc.StatusCode.PERMISSION_DENIED,
        "SERVICE_CREDENTIAL_REQUIRED",
    )
    await expect(
        stub.ListGames(game_pb2.ListGamesRequest()),
        grpc.StatusCode.PERMISSION_DENIED,
        "SERVICE_CREDENTIAL_REQUIRED",
    )
    # the replay opens only at the end
    await expect(
        stub.GetReplay(game_pb2.GetReplayRequest(game_id=gid, token=tokens[0])),
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_OVER",
    )
    # an oversized message is refused by gRPC itself
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.SubmitAction(submit(tokens[1], idempotency_key="x" * 400_000))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # garbage bytes are rejected without harm
    raw: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = replica.channel.unary_unary(
        "/warroom.v1.GameService/SubmitAction"
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await raw(b"\xff\xff\xff\xffgarbage")
    after = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
    assert after.version == 2


async def test_rate_limit(settings: Settings) -> None:
    limited = settings.model_copy(update={"game_rate_per_second": 1.0, "game_rate_burst": 3})
    replica = await start_replica(limited)
    try:
        created = await create(replica.stub, limited)
        request = game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[0])
        for _ in range(3):
            await replica.stub.GetView(request)
        await expect(
            replica.stub.GetView(request), grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"
        )
        # another token has its own bucket
        await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[1])
        )
    finally:
        await replica.stop()


async def test_resign_ends_game_with_seat_last(replica: Replica) -> None:
    created = await create(replica.stub, replica.settings)
    response = await replica.stub.Resign(
        game_pb2.ResignRequest(game_id=created.game_id, token=created.seat_tokens[1])
    )
    assert response.version == 1
    ranks = {s.seat: (s.rank, s.winner) for s in response.result.seats}
    assert ranks == {0: (0, True), 1: (1, False)}
    assert response.result.reason == "resignation"
    await expect(
        replica.stub.Resign(
            game_pb2.ResignRequest(game_id=created.game_id, token=created.seat_tokens[0])
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_OVER",
    )
    listed = await replica.stub.ListGames(
        game_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_FINISHED, rules_id="toy"),
        metadata=(("authorization", "Bearer test-service-secret"),),
    )
    assert created.game_id in [g.game_id for g in listed.games]
