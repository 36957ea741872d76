"""Every BotService refusal carries an ErrorInfo (domain warroom.bots) with a stable reason,
and bot names are checked against the registry and the game (issue 17 s4)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tests.engine.toy_game import ToyRules
from warroom.api.convert import decision_message
from warroom.engine.match import Match
from warroom.v1 import bots_pb2, bots_pb2_grpc, common_pb2


def _given() -> bots_pb2.GivenPosition:
    rules = ToyRules()
    state = Match(rules).start(3, "duel", {})
    assert state.pending is not None
    packed = any_pb2.Any()
    packed.Pack(rules.view(state.game, 0))
    decision = decision_message(state.pending, state.version, 0)
    assert decision is not None
    return bots_pb2.GivenPosition(view=packed, seat=0, decision=decision, variant="duel")


def _info(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str, str, str]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "every refusal carries a google.rpc.Status"
    info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    field = ""
    for detail in status.details:
        if detail.Unpack(bad):
            field = bad.field_violations[0].field
        detail.Unpack(info)
    return error.code(), info.reason, info.domain, field


@pytest.mark.parametrize(
    ("change", "reason", "field"),
    [
        ({"bot": common_pb2.BotSpec(kind="oracle")}, "UNKNOWN_BOT_KIND", "bot.kind"),
        (
            {"bot": common_pb2.BotSpec(kind="random", difficulty="expert")},
            "UNKNOWN_DIFFICULTY",
            "bot.difficulty",
        ),
        ({"bot": common_pb2.BotSpec(kind="ncw-official")}, "BOT_CANNOT_PLAY", "bot.kind"),
        ({"bot": common_pb2.BotSpec(kind="ismcts", budget_ms=10**8)}, "BUDGET_TOO_LARGE", "bot"),
        ({"bot": common_pb2.BotSpec(kind="ismcts", budget_ms=-5)}, "BAD_BUDGET", "bot"),
        ({"rules_id": "chess"}, "UNKNOWN_GAME", "rules_id"),
        ({"rules_id": ""}, "MISSING_FIELD", "rules_id"),
        ({"given": bots_pb2.GivenPosition(seat=0)}, "BAD_POSITION", "given"),
        ({"rules_id": "ncw"}, "BAD_POSITION", "given"),  # the toy's view given for New Cold War
        (
            {"given": None, "live": bots_pb2.LivePosition(game_id="g\x00", seat_token="t")},
            "MALFORMED_ID",
            "live.game_id",
        ),
        ({"given": None, "live": bots_pb2.LivePosition()}, "MISSING_FIELD", "live"),
    ],
)
async def test_choose_action_refusals_have_reasons(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub, change: dict[str, Any], reason: str, field: str
) -> None:
    fields: dict[str, Any] = {
        "rules_id": "toy",
        "given": _given(),
        "bot": common_pb2.BotSpec(kind="random"),
    }
    fields.update(change)
    fields = {k: v for k, v in fields.items() if v is not None}
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await bot_stub.ChooseAction(bots_pb2.ChooseActionRequest(**fields))
    assert _info(caught.value) == (grpc.StatusCode.INVALID_ARGUMENT, reason, "warroom.bots", field)


async def test_list_bots_unknown_game_has_a_reason(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await bot_stub.ListBots(bots_pb2.ListBotsRequest(rules_id="chess"))
    assert _info(caught.value)[:3] == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "UNKNOWN_GAME",
        "warroom.bots",
    )
