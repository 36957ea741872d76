"""Typed errors raised by the rules engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class RulesError(Exception):
    """Base class for every error the rules library raises."""


class IllegalOptionError(RulesError):
    """An option that is not among the legal options of the pending decision.

    The state it was applied to is unchanged.
    """

    def __init__(self, decision_id: str, option_id: str, seat: int | None, reason: str) -> None:
        self.decision_id = decision_id
        self.option_id = option_id
        self.seat = seat
        self.reason = reason
        super().__init__(
            f"illegal option {option_id!r} for seat {seat} in decision {decision_id!r}: {reason}"
        )


def require_listed(
    options: Mapping[int, Sequence[tuple[str, object]]], seat: int, option_id: str, kind: str
) -> None:
    """Raise IllegalOptionError unless `option_id` is among `seat`'s (id, label) options."""
    listed = options.get(seat)
    if listed is None:
        raise IllegalOptionError("", option_id, seat, f"seat {seat} does not act in {kind!r}")
    if not any(i == option_id for i, _ in listed):
        raise IllegalOptionError("", option_id, seat, "not a legal option")


class GameOverError(RulesError):
    """An action was submitted to a game that has ended."""


class SetupError(RulesError):
    """Setup was asked for an unknown variant, a bad seat count or bad options."""


class ContentError(RulesError):
    """A content file failed validation; the message names the file, record and field."""

    def __init__(self, path: str, record: str | None, field: str | None, problem: str) -> None:
        self.path = path
        self.record = record
        self.field = field
        self.problem = problem
        where = path
        if record is not None:
            where += f", record {record}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {problem}")
