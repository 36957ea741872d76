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


async def test_simultaneous_opening_accepts_each_answer_on_the_view_it_was_made_on(
    replica: Replica,
) -> None:
    """QMG: The Cold War's opening hands (3 humans, one decision built card by card): every
    seat answers on the view it read at the start of each round, while the others answer
    too; none is refused (issue 17 s5: 12 of 27 were), and a seat's own older view is."""
    seats = [game_pb2.SeatSpec(player_id=f"p{i}") for i in range(3)]
    created = await create(
        replica.stub, replica.settings, rules_id="qmg_cw", variant="3p", seats=seats, seed=4
    )
    gid, tokens = created.game_id, list(created.seat_tokens)
    stub = replica.stub

    async def view(seat: int) -> game_pb2.SeatView:
        request = game_pb2.GetViewRequest(game_id=gid, token=tokens[seat])
        return (await stub.GetView(request)).view

    opening = (await view(0)).decision.decision_id
    accepted = rounds = 0
    stale: game_pb2.SubmitActionRequest | None = None
    while True:
        views = {s: await view(s) for s in range(3)}
        acting = {s: v for s, v in views.items() if v.decision.options}
        if not acting or any(v.decision.decision_id != opening for v in acting.values()):
            break
        rounds += 1
        for seat, seen in acting.items():
            option = next(o for o in seen.decision.options if o.id != "undo")
            request = game_pb2.SubmitActionRequest(
                game_id=gid,
                token=tokens[seat],
                expected_version=seen.version,
                decision_id=seen.decision.decision_id,
                option_id=option.id,
            )
            await stub.SubmitAction(request)  # refused would raise
            accepted += 1
            if stale is None:
                stale = request
    print(f"opening: {accepted} answers in {rounds} rounds, none refused")
    assert rounds >= 2 and accepted >= 6, (rounds, accepted)
    assert stale is not None
    code, reason, _meta = await refusal(stub.SubmitAction(stale))
    assert (code, reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
