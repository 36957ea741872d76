"""SubmitAction's `omit_view`: the answer carries the version only, and nothing else changes."""

from __future__ import annotations

from services.game.tests.helpers import Replica, create
from warroom.v1 import game_pb2


async def test_omit_view_answers_the_version_only(replica: Replica) -> None:
    stub = replica.stub
    created = await create(stub, replica.settings)
    gid, tokens = created.game_id, list(created.seat_tokens)
    stream = stub.WatchGame(game_pb2.WatchGameRequest(game_id=gid, token=tokens[0]))
    first = await stream.read()
    assert isinstance(first, game_pb2.WatchGameResponse) and first.version == 0
    view0 = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
    request = game_pb2.SubmitActionRequest(
        game_id=gid,
        token=tokens[0],
        expected_version=0,
        decision_id=view0.decision.decision_id,
        option_id=view0.decision.options[0].id,
        idempotency_key="lean",
        omit_view=True,
    )
    answer = await stub.SubmitAction(request)
    assert answer.version == 1 and not answer.HasField("view")
    # the action was applied and committed as usual: the stream and GetView show version 1
    update = await stream.read()
    stream.cancel()
    assert isinstance(update, game_pb2.WatchGameResponse)
    assert update.version == 1 and update.view.version == 1
    now = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
    assert now.version == 1
    # a retry with the same key is the same answer: lean when asked lean, else with the view
    again = await stub.SubmitAction(request)
    assert again.version == 1 and not again.HasField("view")
    request.omit_view = False
    full = await stub.SubmitAction(request)
    assert full.version == 1 and full.view.version == 1 and full.view.seat == 0
    assert full.view.view == update.view.view
