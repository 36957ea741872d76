"""A match: a game state plus its version, decision ids and undo history.

The match layer is shared by every game. It numbers decisions, offers "undo"
as an ordinary option while a seat may take back its own recent decisions
(until the RNG is used, something hidden is revealed, or another seat must act),
and replays a seed plus an option log bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from warroom.engine.errors import GameOverError, IllegalOptionError
from warroom.engine.model import UNDO_OPTION_ID, Decision, Event, Option, OptionKind, Result
from warroom.engine.rules import Rules

S = TypeVar("S")

UNDO_OPTION = Option(
    UNDO_OPTION_ID, "Undo your last decision", {"undo": "true"}, kind=OptionKind.UNDO
)


@dataclass(frozen=True, slots=True)
class Action:
    """One entry of the option log: a seat chose an option."""

    seat: int
    option_id: str


@dataclass(frozen=True, slots=True)
class MatchState(Generic[S]):
    """An immutable match state.

    `version` counts applied actions (undo included), `decision_serial` numbers
    decisions (a simultaneous decision keeps its number while seats answer),
    `pending` is the decision owed now with its id and any undo option, and
    `previous` is the state an undo returns to, when undo is allowed.
    """

    game: S
    version: int
    decision_serial: int
    pending: Decision | None
    previous: MatchState[S] | None = None
    undo_seat: int | None = None

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.pending is None


@dataclass(frozen=True, slots=True)
class Step(Generic[S]):
    """What applying one action produced."""

    state: MatchState[S]
    events: tuple[Event, ...]


class Match(Generic[S]):
    """Runs a game's rules with decision ids, undo and replay."""

    def __init__(self, rules: Rules[S]) -> None:
        self.rules = rules

    def start(self, seed: int, variant: str, options: Mapping[str, str]) -> MatchState[S]:
        """A new match from a seed."""
        game = self.rules.setup(seed, variant, options)
        return self.resume(game, version=0, decision_serial=1)

    def resume(self, game: S, version: int, decision_serial: int) -> MatchState[S]:
        """A match state around a stored game state (no undo history)."""
        return MatchState(game, version, decision_serial, self._pending(game, decision_serial))

    def _pending(self, game: S, serial: int) -> Decision | None:
        decision = self.rules.decision(game)
        if decision is None:
            return None
        return _with_id(decision, serial)

    def apply(
        self, state: MatchState[S], seat: int, option_id: str, decision_id: str | None = None
    ) -> Step[S]:
        """Apply one action; raises IllegalOptionError (or GameOverError) and changes nothing."""
        pending = state.pending
        if pending is None:
            raise GameOverError(f"the game is over; seat {seat} cannot choose {option_id!r}")
        if decision_id is not None and decision_id != pending.id:
            raise IllegalOptionError(
                decision_id, option_id, seat, f"the pending decision is {pending.id!r}"
            )
        if seat not in pending.options:
            raise IllegalOptionError(
                pending.id, option_id, seat, f"seat {seat} does not act in {pending.kind!r}"
            )
        if pending.find(seat, option_id) is None:
            raise IllegalOptionError(
                pending.id, option_id, seat, f"not among the legal options of {pending.kind!r}"
            )
        if option_id == UNDO_OPTION_ID and state.undo_seat == seat and state.previous:
            return self._undo(state)
        applied = self.rules.apply(state.game, seat, option_id)
        game = applied.state
        next_decision = self.rules.decision(game)
        serial = state.decision_serial
        if not pending.continued_by(next_decision, seat):
            serial += 1
        previous: MatchState[S] | None = None
        undo_seat: int | None = None
        if (
            not applied.irreversible
            and next_decision is not None
            and len(next_decision.options) == 1
            and seat in next_decision.options
            and len(pending.options) == 1
        ):
            previous, undo_seat = state, seat
        new_pending = None
        if next_decision is not None:
            options = next_decision.options
            if undo_seat is not None:
                options = {seat: (*options[seat], UNDO_OPTION)}
            new_pending = Decision(next_decision.kind, next_decision.prompt, options, str(serial))
        new_state = MatchState(game, state.version + 1, serial, new_pending, previous, undo_seat)
        return Step(new_state, applied.events)

    def _undo(self, state: MatchState[S]) -> Step[S]:
        target = state.previous
        assert target is not None
        assert state.undo_seat is not None
        serial = state.decision_serial + 1
        pending = target.pending
        if pending is not None:
            pending = _with_id(pending, serial)
        restored = MatchState(
            target.game, state.version + 1, serial, pending, target.previous, target.undo_seat
        )
        event = Event(f"seat {state.undo_seat} took back a decision", kind="undo")
        return Step(restored, (event,))

    def result(self, state: MatchState[S]) -> Result | None:
        """The result once the game is over."""
        return self.rules.result(state.game)

    def replay(
        self, seed: int, variant: str, options: Mapping[str, str], actions: Iterable[Action]
    ) -> MatchState[S]:
        """Replay a seed plus an option log; raises IllegalOptionError on a bad log."""
        state = self.start(seed, variant, options)
        for action in actions:
            state = self.apply(state, action.seat, action.option_id).state
        return state


def _with_id(decision: Decision, serial: int) -> Decision:
    """The decision numbered by the match layer."""
    return Decision(decision.kind, decision.prompt, decision.options, str(serial))
