"""The expected_version contract (docs/api.md): a stale view is refused with ABORTED, an answer
to a decision still open for the seat is accepted, and a version that never existed is invalid."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.game.store import Store
from services.game.tests.helpers import Replica, create
from warroom.v1 import game_pb2


async def refusal(call: object) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """The code, ErrorInfo reason and metadata of a refused call."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    status = rpc_status.from_call(caught.value)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return caught.value.code(), info.reason, dict(info.metadata)
    raise AssertionError("no ErrorInfo")


async def test_expected_version_contract(replica: Replica) -> None:
    stub = replica.stub
    created = await create(stub, replica.settings, seed=11)
    gid, tokens = created.game_id, list(created.seat_tokens)

    async def view(seat: int) -> game_pb2.SeatView:
        request = game_pb2.GetViewRequest(game_id=gid, token=tokens[seat])
        return (await stub.GetView(request)).view

    def answer(seat: int, seen: game_pb2.SeatView, version: int) -> game_pb2.SubmitActionRequest:
        return game_pb2.SubmitActionRequest(
            game_id=gid,
            token=tokens[seat],
            expected_version=version,
            decision_id=seen.decision.decision_id,
            option_id=seen.decision.options[0].id,
        )

    first = [await view(0), await view(1)]
    assert first[0].decision.decision_id == first[1].decision.decision_id  # simultaneous
    # versions that never existed are invalid, whatever the decision
    for bad in (-1, 5):
        code, reason, meta = await refusal(stub.SubmitAction(answer(0, first[0], bad)))
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_EXPECTED_VERSION")
        assert meta["current_version"] == "0"
    assert (await view(0)).version == 0, "a refusal changes nothing"

    # seat 0 answers; seat 1's turn in the same simultaneous decision stays open since 0
    assert (await stub.SubmitAction(answer(0, first[0], 0))).version == 1
    store = Store(replica.engine)
    turns = [row.turn_version for row in store.seats(gid)]
    assert turns == [None, 0], "the owed turns are in SQL"
    # seat 0 owes nothing now: its view at 0 is stale
    code, reason, meta = await refusal(stub.SubmitAction(answer(0, first[0], 0)))
    assert (code, reason, meta["current_version"]) == (
        grpc.StatusCode.ABORTED,
        "STALE_VERSION",
        "1",
    )
    # seat 1 answers the decision still open for it, on its view at version 0: accepted
    accepted = await stub.SubmitAction(answer(1, first[1], 0))
    assert accepted.version == 2

    # the round resolved: a new decision opened at version 2 for one seat
    views = [await view(0), await view(1)]
    seat = next(s for s in (0, 1) if views[s].decision.options)
    assert [row.turn_version for row in store.seats(gid)][seat] == 2
    # an answer made at version 1 (before the decision changed) is stale, even with the
    # current decision id and a legal option
    code, reason, meta = await refusal(stub.SubmitAction(answer(seat, views[seat], 1)))
    assert (code, reason, meta["current_version"]) == (
        grpc.StatusCode.ABORTED,
        "STALE_VERSION",
        "2",
    )
    assert (await stub.SubmitAction(answer(seat, views[seat], 2))).version == 3
