"""Validation of a SubmitAction answer against a live game (pure: raises `GameError`)."""

from __future__ import annotations

from dataclasses import dataclass

from services.game import errors
from services.game.live import BOT, LiveGame
from warroom.engine.model import Decision

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
    with_view: bool = True
    """Whether the reply carries the seat's view (`SubmitActionRequest.omit_view` unset)."""


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
    of the seat's legal options.

    The `expected_version` contract: it must be a version of the game (0..head, else
    INVALID_ARGUMENT BAD_EXPECTED_VERSION). A view at version v is current for a seat
    while the turn the seat owes has been open since v or earlier (`turn_version`: the
    decision's first version, or the version after the seat's own last answer in it);
    other seats' answers to a simultaneous decision move the head, not the seat's turn.
    An answer made on a view older than the seat's turn (or by a seat that owes nothing
    now, with a version behind the head) is stale: ABORTED STALE_VERSION, with the head in
    the ErrorInfo metadata `current_version`.
    """
    if live.result is not None:
        raise errors.precondition(
            "GAME_OVER", f"game {live.id} is over (version {live.version}): no more actions"
        )
    seat, expected = answer.seat, answer.expected_version
    row = live.seats[seat]
    if row.controller == BOT and not as_bot:
        raise errors.precondition(
            "SEAT_PLAYED_BY_BOT",
            f"a bot plays seat {seat} for the current decision; you take the seat back "
            "at its next decision",
        )
    if not 0 <= expected <= live.version:
        raise errors.invalid(
            "BAD_EXPECTED_VERSION",
            f"expected_version {expected} is not a version of game {live.id}, which is at "
            f"version {live.version}: send the version of the view you answer",
            field="expected_version",
            current_version=str(live.version),
        )
    pending = live.pending_for(seat)
    opened = live.version if row.turn_version is None else row.turn_version
    if pending is not None and expected >= opened:
        _check_choice(live, answer, pending)
        return
    if expected < live.version:
        raise errors.aborted(
            "STALE_VERSION",
            f"expected_version {expected} is stale: game {live.id} is at version "
            f"{live.version}"
            + (f" and seat {seat}'s turn opened at version {opened}" if pending else "")
            + "; read the view again and choose from its decision",
            current_version=str(live.version),
        )
    current = live.state.pending
    assert current is not None
    acting = ", ".join(str(s) for s in current.seats)
    raise errors.precondition(
        "NOT_YOUR_DECISION",
        f"seat {seat} does not act in decision {current.id} ({current.kind}); "
        f"waiting for seat(s) {acting}",
    )


def _check_choice(live: LiveGame, answer: Answer, pending: Decision) -> None:
    """The answer names the pending decision and one of the seat's options in it."""
    if answer.decision_id != pending.id:
        raise errors.invalid(
            "UNKNOWN_DECISION",
            f"decision_id {answer.decision_id[:64]!r} is not the pending decision "
            f"{pending.id!r} at version {live.version}",
            field="decision_id",
        )
    if pending.find(answer.seat, answer.option_id) is None:
        raise errors.invalid(
            "UNKNOWN_OPTION",
            f"option {answer.option_id[:64]!r} is not a legal option of seat {answer.seat} in "
            f"decision {pending.id} ({pending.kind})",
            field="option_id",
        )
