"""The decision model: options, decisions, events, results and seat descriptions.

Everything a player does is one atomic decision. A `Decision` names every seat
that must act now with that seat's legal options: several seats at once for a
simultaneous secret choice, a non-active seat for a reaction window, and a
"pass" option where a step is optional.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

S = TypeVar("S")

SPECTATOR: None = None
"""The viewer value for the public (spectator) view."""

UNDO_OPTION_ID = "undo"


class OptionKind(StrEnum):
    """What choosing an option does (the API's `OptionKind`)."""

    CHOICE = "choice"
    """An ordinary move of the game."""
    UNDO = "undo"
    """Takes back the seat's own last decision (offered by the match layer)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One legal choice. `id` is stable: the same choice in the same position has the same id.

    `kind` says what the option does; games offer `CHOICE` options, the match layer
    adds the `UNDO` one.
    """

    id: str
    label: str
    fields: Mapping[str, str] = field(default_factory=dict)
    kind: OptionKind = OptionKind.CHOICE

    @property
    def is_undo(self) -> bool:
        """Whether this option takes back a decision rather than playing one."""
        return self.kind is OptionKind.UNDO


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must choose now, and their legal options.

    `options` maps each seat that must act to that seat's options; more than one
    seat means a simultaneous choice, and no seat sees another's pending choice.
    `kind` is a machine-readable step name, `prompt` a human-readable question.
    `id` is filled in by the match layer (a game leaves it empty).
    """

    kind: str
    prompt: str
    options: Mapping[int, tuple[Option, ...]]
    id: str = ""

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats that must act, in seat order."""
        return tuple(sorted(self.options))

    def options_for(self, seat: int) -> tuple[Option, ...]:
        """The options of one seat, or an empty tuple when it need not act."""
        return self.options.get(seat, ())

    def find(self, seat: int, option_id: str) -> Option | None:
        """The option with this id for this seat, if it is legal."""
        for option in self.options.get(seat, ()):
            if option.id == option_id:
                return option
        return None

    def continued_by(self, after: Decision | None, seat: int) -> bool:
        """Whether `after`, reached when `seat` answered this decision, is the same decision.

        This is the rule of decision ids for every game. A simultaneous decision
        (several seats) keeps its id until it closes: after one seat's answer it
        continues when it has the same kind and prompt, every other seat still
        acts in it with exactly the options it had, and the answering seat has
        either left it or still acts in it (with whatever options its answer left,
        as when a seat places several cards of an opening hand one by one). Once
        any other seat's options change or it stops acting, the decision has closed
        for that seat, and a new id says so. A decision of one seat never continues:
        each of its answers opens a new decision.
        """
        before = self.options
        if after is None or len(before) < 2:
            return False
        if after.kind != self.kind or after.prompt != self.prompt:
            return False
        now = after.options
        if len(now) - (seat in now) != len(before) - 1:
            return False
        for other, options in before.items():
            if other == seat:
                continue
            current = now.get(other)
            if current is None or (current is not options and current != options):
                return False
        return True


@dataclass(frozen=True, slots=True)
class Event:
    """A log entry. `visible_to` is None for a public entry, else the seats that may see it."""

    text: str
    kind: str = "log"
    visible_to: frozenset[int] | None = None
    fields: Mapping[str, str] = field(default_factory=dict)

    def visible_for(self, viewer: int | None) -> bool:
        """Whether a seat (or a spectator, None) may see this entry."""
        return self.visible_to is None or (viewer is not None and viewer in self.visible_to)


@dataclass(frozen=True, slots=True)
class Applied(Generic[S]):
    """What `Rules.apply` returns: the new state, the events, and whether the step was irreversible.

    A step is irreversible when it used the RNG or revealed hidden information;
    the match layer then forgets the undo history.
    """

    state: S
    events: tuple[Event, ...] = ()
    irreversible: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game.

    `ranks` gives each seat's finishing place (0 is first; equal ranks tie), which
    is what multi-faction and team ratings consume.
    """

    scores: Mapping[int, float]
    winners: frozenset[int]
    ranks: Mapping[int, int]
    reason: str


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat at the table: its index, its side, and the team it plays for."""

    index: int
    side: str
    team: str


@dataclass(frozen=True, slots=True)
class VariantInfo:
    """A playable variant: its id, a description, and how many seats it has."""

    id: str
    description: str
    seats: int
    sides: tuple[str, ...]
    bot_seats: tuple[int, ...] = ()
    options: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
