"""A bot sees only its seat's view: it cannot reach the true state, and does not depend on it."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from typing import Any

import pytest

from tests.engine.toy_game import ToyRules, ToyState, ToyView
from warroom.bots.position import SeatPosition, make_position, position_for
from warroom.bots.registry import BotSpec, make_bot
from warroom.engine.match import Match
from warroom.engine.model import Decision

KINDS = [
    BotSpec("random", seed=3),
    BotSpec("heuristic", "intermediate", seed=3),
    BotSpec("ismcts", budget_iterations=60, seed=3),
]


class SpyRules(ToyRules):
    """Toy rules that record every state object any method receives."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def _note(self, state: Any) -> None:
        self.seen.append(id(state))

    def decision(self, state: ToyState) -> Decision | None:
        self._note(state)
        return super().decision(state)

    def apply(self, state: ToyState, seat: int, option_id: str) -> Any:
        self._note(state)
        return super().apply(state, seat, option_id)

    def view(self, state: ToyState, seat: int | None) -> Any:
        self._note(state)
        return super().view(state, seat)

    def result(self, state: ToyState) -> Any:
        self._note(state)
        return super().result(state)


def _simultaneous_state(rules: ToyRules) -> ToyState:
    return rules.setup(7, "duel", {})


def test_position_holds_only_rules_view_seat_and_own_options() -> None:
    rules = ToyRules()
    state = _simultaneous_state(rules)
    position = position_for(rules, state, 0)
    names = {f.name for f in dataclasses.fields(SeatPosition)}
    assert names == {"rules", "view", "seat", "decision", "acting", "variant"}
    for name in names:
        assert not isinstance(getattr(position, name), ToyState)
    # No way to hang extra data on a position (slots, frozen).
    with pytest.raises((AttributeError, TypeError)):
        position.state = state  # type: ignore[attr-defined]
    # Both seats act in the opening simultaneous decision, but the position holds only seat 0's
    # options (seat 1's options would reveal seat 1's hand).
    assert position.acting == (0, 1)
    assert set(position.decision.options) == {0}
    # The rules object carries no state of its own.
    assert not [v for v in vars(rules).values() if isinstance(v, ToyState)]


def test_position_view_is_a_private_copy() -> None:
    rules = ToyRules()
    state = _simultaneous_state(rules)
    view = rules.view(state, 0)
    decision = rules.decision(state)
    assert decision is not None
    position = make_position(rules, view, 0, decision)
    assert isinstance(view, ToyView)
    view.round = 99  # type: ignore[attr-defined]
    assert position.view != view


@pytest.mark.parametrize("spec", KINDS, ids=lambda s: s.kind)
def test_bot_never_receives_the_true_state(spec: BotSpec) -> None:
    rules = SpyRules()
    match = Match(rules)
    state = match.start(11, "duel", {})
    true_ids: set[int] = set()
    kept: list[Any] = []  # keep every true state alive so no id is reused
    while state.pending is not None:
        seat = state.pending.seats[0]
        position = position_for(rules, state.game, seat, state.pending)
        true_ids.add(id(state.game))
        kept.append(state.game)
        rules.seen.clear()
        bot = make_bot(spec, "toy")
        choice = bot.choose(position)
        assert not true_ids & set(rules.seen), f"{spec.kind} passed the true state to the rules"
        state = match.apply(state, seat, choice.option_id).state


def _swap_hidden(rules: ToyRules, state: ToyState, seat: int) -> ToyState:
    """The same position for `seat` with the other seat's hand swapped with the deck."""
    other = 1 - seat
    hidden = list(state.hands[other]) + list(state.deck)
    hidden.reverse()
    count = len(state.hands[other])
    hands = list(state.hands)
    hands[other] = tuple(sorted(hidden[:count]))
    return replace(state, hands=(hands[0], hands[1]), deck=tuple(hidden[count:]))


@pytest.mark.parametrize("spec", KINDS, ids=lambda s: s.kind)
def test_choice_depends_only_on_the_view(spec: BotSpec) -> None:
    rules = ToyRules()
    for seed in range(1, 6):
        state = rules.setup(seed, "duel", {})
        other = _swap_hidden(rules, state, 0)
        assert other.hands[1] != state.hands[1]
        assert rules.view(other, 0) == rules.view(state, 0)
        first = make_bot(spec, "toy").choose(position_for(rules, state, 0))
        second = make_bot(spec, "toy").choose(position_for(rules, other, 0))
        assert replace(first, elapsed_ms=0.0) == replace(second, elapsed_ms=0.0)
