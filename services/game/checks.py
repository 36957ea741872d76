"""Validation of a SubmitAction answer against a live game (pure: raises `GameError`)."""

from __future__ import annotations

from dataclasses import dataclass

from services.game import errors
from services.game.live import BOT, LiveGame

MAX_ID = 256
MAX_KEY = 128


@dataclass(frozen=True, slots=True)
class Answer:
    """What a seat submitted."""

    seat: int
    expected_version: int
    decision_id: str
    option_id: str
    key: str


def check_ids(decision_id: str, option_id: str, key: str) -> None:
    """The ids of a request are well formed (INVALID_ARGUMENT MALFORMED_ID)."""
    for name, value in (("decision_id", decision_id), ("option_id", option_id)):
        if not value or len(value) > MAX_ID:
            raise errors.invalid(
                "MALFORMED_ID", f"{name} must be 1-{MAX_ID} characters", field=name
            )
    if len(key) > MAX_KEY:
        raise errors.invalid(
            "MALFORMED_ID",
            f"idempotency_key must be at most {MAX_KEY} characters",
            field="idempotency_key",
        )


def check_answer(live: LiveGame, answer: Answer, as_bot: bool) -> None:
    """The answer may be applied now: the game runs, the seat is the caller's to play, the
    view it was made on is current for the seat, and it names the pending decision and one
    of the seat's legal options."""
    if live.result is not None:
        raise errors.precondition(
            "GAME_OVER", f"game {live.id} is over (version {live.version}): no more actions"
        )
    seat = answer.seat
    if live.seats[seat].controller == BOT and not as_bot:
        raise errors.precondition(
            "SEAT_PLAYED_BY_BOT",
            f"a bot plays seat {seat} for the current decision; you take the seat back "
            "at its next decision",
        )
    pending = live.state.pending
    assert pending is not None
    if answer.expected_version != live.version:
        if pending.id == answer.decision_id and pending.find(seat, answer.option_id) is not None:
            return
        raise errors.aborted(
            "STALE_VERSION",
            f"expected_version {answer.expected_version} is stale: game {live.id} is at version "
            f"{live.version}; read the view again and choose from its decision",
            current_version=str(live.version),
        )
    if answer.decision_id != pending.id:
        raise errors.invalid(
            "UNKNOWN_DECISION",
            f"decision_id {answer.decision_id[:64]!r} is not the pending decision "
            f"{pending.id!r} at version {live.version}",
            field="decision_id",
        )
    if seat not in pending.options:
        acting = ", ".join(str(s) for s in pending.seats)
        raise errors.precondition(
            "NOT_YOUR_DECISION",
            f"seat {seat} does not act in decision {pending.id} ({pending.kind}); "
            f"waiting for seat(s) {acting}",
        )
    if pending.find(seat, answer.option_id) is None:
        raise errors.invalid(
            "UNKNOWN_OPTION",
            f"option {answer.option_id[:64]!r} is not a legal option of seat {seat} in decision "
            f"{pending.id} ({pending.kind})",
            field="option_id",
        )
