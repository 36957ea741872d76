"""What a bot may know, what it answers, and the bot interface.

`SeatPosition` is the whole input of a bot. It holds the game's `Rules` (a
stateless object: content and functions), a private copy of the seat's view
message, the seat, and a decision stripped down to this seat's own options.
There is no field through which the true state, another seat's options or
the match history could be reached; `position_for` builds a position from a
state and is the only function of this package that reads one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from warroom.engine.model import UNDO_OPTION_ID, Decision, Option, OptionKind
from warroom.engine.rules import Rules


@dataclass(frozen=True, slots=True)
class SeatPosition:
    """One seat's position: everything a bot is allowed to see.

    `decision.options` holds only this seat's options (never another seat's,
    which could reveal a hand); `acting` lists every seat that still owes an
    answer to the decision (several for a simultaneous choice).
    """

    rules: Rules[Any]
    view: Message
    seat: int
    decision: Decision
    acting: tuple[int, ...]
    variant: str = ""

    @property
    def game_id(self) -> str:
        """The registry id of the game."""
        return self.rules.game_id

    @property
    def options(self) -> tuple[Option, ...]:
        """This seat's options, without the match layer's undo (bots never take back)."""
        return tuple(
            o
            for o in self.decision.options_for(self.seat)
            if o.id != UNDO_OPTION_ID and o.kind is not OptionKind.UNDO
        )

    def option_ids(self) -> list[str]:
        """The ids of this seat's options, in offered order."""
        return [o.id for o in self.options]


def make_position(
    rules: Rules[Any],
    view: Message,
    seat: int,
    decision: Decision,
    variant: str = "",
) -> SeatPosition:
    """A position from a view and a decision (as received over the API).

    The view is copied so that a bot cannot alter the caller's message, and
    the decision keeps only `seat`'s options. Raises ValueError when the seat
    has nothing to choose.
    """
    options = tuple(decision.options_for(seat))
    if not options:
        raise ValueError(f"seat {seat} has no option in decision {decision.kind!r}")
    copy = type(view)()
    copy.CopyFrom(view)
    own = Decision(decision.kind, decision.prompt, {seat: options}, decision.id)
    return SeatPosition(rules, copy, seat, own, tuple(decision.seats), variant)


def position_for(
    rules: Rules[Any], state: Any, seat: int, decision: Decision | None = None, variant: str = ""
) -> SeatPosition:
    """The position of `seat` in a game state: its view and its options, nothing else.

    `decision` defaults to the rules' decision of `state`; pass the match
    layer's pending decision to keep its id (and its undo option, which bots ignore).
    """
    decision = decision if decision is not None else rules.decision(state)
    if decision is None:
        raise ValueError("the game is over: there is no decision to answer")
    return make_position(rules, rules.view(state, seat), seat, decision, variant)


@dataclass(frozen=True, slots=True)
class OptionStats:
    """Search statistics of one option: visits and mean value for the seat, in [0, 1]."""

    option_id: str
    visits: int
    value: float


@dataclass(frozen=True, slots=True)
class Choice:
    """A bot's answer: the option id, and for search bots the analysis per option."""

    option_id: str
    analysis: tuple[OptionStats, ...] = ()
    iterations: int = 0
    elapsed_ms: float = 0.0
    notes: dict[str, str] = field(default_factory=dict)


class Bot(ABC):
    """A bot: chooses one of a seat's options from its position alone."""

    kind: str = ""

    @abstractmethod
    def choose(self, position: SeatPosition) -> Choice:
        """One of `position.options`, by id."""


def ensure_legal(position: SeatPosition, option_id: str) -> str:
    """`option_id` if it is among the seat's options; raises ValueError otherwise."""
    if option_id not in position.option_ids():
        raise ValueError(
            f"bot chose {option_id!r}, not among seat {position.seat}'s options "
            f"{position.option_ids()} in {position.decision.kind!r}"
        )
    return option_id


def only_option(position: SeatPosition) -> str | None:
    """The single option when there is no real choice, else None."""
    ids: Sequence[str] = position.option_ids()
    return ids[0] if len(ids) == 1 else None
