"""The shared edge validators and the rich status every service reports with them."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2, error_details_pb2

from services.common import validation
from services.common.errors import RpcError
from warroom.v1 import common_pb2


def _reason(call: object, *args: object, **kwargs: object) -> tuple[str, str | None, str]:
    with pytest.raises(RpcError) as info:
        call(*args, **kwargs)  # type: ignore[operator]
    error = info.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    return error.reason, error.field, error.message


@pytest.mark.parametrize(
    "text", ["nul\x00", "bell\x07", "\x1b[2J", "tab\tname", "zero\u200bwidth", "bidi\u202e"]
)
def test_text_with_control_or_format_characters_is_refused(text: str) -> None:
    reason, field, message = _reason(validation.check_text, text, "name", 32)
    assert (reason, field) == ("BAD_TEXT", "name")
    assert "U+" in message


def test_text_limits_and_requirement() -> None:
    assert validation.check_text("Marshal Ney ü 漢", "name", 32) == "Marshal Ney ü 漢"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # an emoji ZWJ sequence
    assert validation.check_text(family, "name", 32) == family
    assert _reason(validation.check_text, "x" * 33, "name", 32)[0] == "TOO_LONG"
    assert _reason(validation.check_text, "", "name", required=True)[0] == "MISSING_FIELD"
    assert validation.check_text("", "name") == ""


@pytest.mark.parametrize("value", ["tb-\x00", "a b", "x" * 65, "-leading", "é"])
def test_ids_are_short_printable_tokens(value: str) -> None:
    assert _reason(validation.check_id, value, "table_id")[0] == "MALFORMED_ID"


def test_known_ids_pass() -> None:
    for value in ("tb-0123abcd", "g-9f", "bot:heuristic:expert", "p_1.2", "a" * 64):
        assert validation.check_id(value, "id") == value


def test_bots_are_checked_against_the_registry_and_the_game() -> None:
    assert validation.check_bot("heuristic", "", "ncw", "bot") == ("heuristic", "beginner")
    assert validation.check_bot("", "", "ncw", "bot") == ("", "")
    reason, field, message = _reason(validation.check_bot, "oracle", "", "ncw", "fill_bot")
    assert (reason, field) == ("UNKNOWN_BOT_KIND", "fill_bot.kind")
    assert "random, heuristic, ismcts" in message
    reason, field, message = _reason(validation.check_bot, "random", "expert", "ncw", "b")
    assert (reason, field) == ("UNKNOWN_DIFFICULTY", "b.difficulty") and "beginner" in message
    assert _reason(validation.check_bot, "ncw-official", "", "qmg_sf", "b")[0] == (
        "BOT_CANNOT_PLAY"
    )


def test_games_options_and_clocks() -> None:
    assert validation.check_game(common_pb2.GAME_KIND_NEW_COLD_WAR, "") == "ncw"
    assert validation.check_game(0, "ncw") == "ncw"
    assert _reason(validation.check_game, 0, "chess")[0] == "UNKNOWN_GAME"
    assert _reason(validation.check_game, 99, "")[0] == "UNKNOWN_GAME"
    assert _reason(validation.check_game, 0, "")[0] == "MISSING_FIELD"
    assert validation.check_game(0, "", required=False) == ""
    too_many = {str(i): "v" for i in range(validation.OPTIONS_MAX + 1)}
    assert _reason(validation.check_options, too_many)[0] == "TOO_MANY_OPTIONS"
    assert _reason(validation.check_options, {"k": "v\x00"})[0] == "BAD_TEXT"
    clock = common_pb2.ClockSpec(mode=common_pb2.ClockSpec.MODE_LIVE, initial_seconds=-1)
    assert _reason(validation.check_clock, clock, "ncw", "clock")[:2] == (
        "BAD_CLOCK",
        "clock.initial_seconds",
    )
    clock = common_pb2.ClockSpec(mode=7)  # type: ignore[arg-type]
    assert _reason(validation.check_clock, clock, "ncw", "clock")[0] == "BAD_CLOCK"


def test_status_carries_errorinfo_and_the_code_details() -> None:
    error = validation.invalid("UNKNOWN_BOT_KIND", "unknown bot kind", "fill_bot.kind")
    status = error.status("warroom.lobby")
    assert status.code == code_pb2.INVALID_ARGUMENT
    info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    assert status.details[0].Unpack(info) and status.details[1].Unpack(bad)
    assert (info.reason, info.domain) == ("UNKNOWN_BOT_KIND", "warroom.lobby")
    assert bad.field_violations[0].field == "fill_bot.kind"
    waited = RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", "slow", retry_after=1.25)
    retry = error_details_pb2.RetryInfo()
    assert waited.status("d").details[1].Unpack(retry)
    assert (retry.retry_delay.seconds, retry.retry_delay.nanos) == (1, 250_000_000)
    failed = RpcError(grpc.StatusCode.FAILED_PRECONDITION, "TABLE_FULL", "full")
    failure = error_details_pb2.PreconditionFailure()
    assert failed.status("d").details[1].Unpack(failure)
    assert failure.violations[0].type == "TABLE_FULL"
