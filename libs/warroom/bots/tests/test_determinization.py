"""ISMCTS determinizations: consistent with the seat's view, never placing a card the seat saw elsewhere.

The determinizations checked are the ones the search really used (recorded by
wrapping `Rules.determinize`), across the positions of seeded games.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.message import Message

from tests.engine.toy_game import CARDS, ToyRules, ToyState
from warroom.bots.ismcts import Budget, IsmctsBot
from warroom.bots.position import position_for
from warroom.bots.tests.conftest import playable_games
from warroom.engine.match import Match
from warroom.engine.registry import get_rules
from warroom.engine.rng import Rng
from warroom.engine.rules import Rules


class Recorder:
    """Wraps a game's rules; keeps every (view, seat, determinization) the search asked for."""

    def __init__(self, rules: Rules[Any]) -> None:
        self.rules = rules
        self.samples: list[tuple[Message, int, Any]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def determinize(self, view: Message, seat: int, rng_seed: int) -> Any:
        state = self.rules.determinize(view, seat, rng_seed)
        self.samples.append((view, seat, state))
        return state


def _positions(rules: Rules[Any], seed: int, limit: int) -> Iterator[tuple[Any, int, Any]]:
    """(true state, seat, pending decision) along one seeded random game."""
    match = Match(rules)
    state = match.start(seed, rules.variants()[0].id, {})
    rng = Rng(seed)
    for _ in range(limit):
        if state.pending is None:
            return
        for seat in state.pending.seats:
            yield state.game, seat, state.pending
        seat = rng.choice(state.pending.seats)
        option = rng.choice([o for o in state.pending.options_for(seat) if o.id != "undo"])
        state = match.apply(state, seat, option.id).state


def _searched(rules: Rules[Any], seed: int, limit: int) -> Iterator[tuple[Any, Message, int, Any]]:
    for true_state, seat, pending in _positions(rules, seed, limit):
        recorder = Recorder(rules)
        position = position_for(recorder, true_state, seat, pending)  # type: ignore[arg-type]
        IsmctsBot(Budget(iterations=12), seed=seed).choose(position)
        for view, sampled_seat, sampled in recorder.samples:
            yield true_state, view, sampled_seat, sampled


@pytest.mark.parametrize("game_id", playable_games())
def test_determinizations_reproduce_the_view_and_public_view(game_id: str) -> None:
    rules: Rules[Any] = get_rules(game_id)
    checked = 0
    seeds, steps = ((1, 2, 3), 40) if game_id == "toy" else ((1,), 60)
    for seed in seeds:
        for true_state, view, seat, sampled in _searched(rules, seed, steps):
            assert rules.view(sampled, seat) == view
            assert rules.view(sampled, None) == rules.view(true_state, None)
            checked += 1
    assert checked > 20


def test_toy_determinizations_respect_what_the_seat_has_seen() -> None:
    rules = ToyRules()
    checked = 0
    differed = 0
    for seed in range(1, 8):
        for true_state, _view, seat, sampled in _searched(rules, seed, 40):
            assert isinstance(sampled, ToyState) and isinstance(true_state, ToyState)
            other = 1 - seat
            seen = set(true_state.hands[seat]) | set(true_state.discard)
            if true_state.placed[seat]:
                seen.add(true_state.placed[seat])
            elsewhere = set(sampled.hands[other]) | set(sampled.deck) | {sampled.placed[other]}
            assert not seen & elsewhere, f"seen cards {sorted(seen & elsewhere)} placed elsewhere"
            # Public facts: counts, discards, scores, revealed placements.
            assert sampled.hands[seat] == true_state.hands[seat]
            assert len(sampled.hands[other]) == len(true_state.hands[other])
            assert len(sampled.deck) == len(true_state.deck)
            assert sampled.discard == true_state.discard
            assert sampled.scores == true_state.scores
            assert (sampled.placed[other] != 0) == (true_state.placed[other] != 0)
            cards = [*sampled.deck, *sampled.hands[0], *sampled.hands[1], *sampled.discard]
            cards += [p for p in sampled.placed if p]
            assert sorted(cards) == list(CARDS)
            differed += sampled.hands[other] != true_state.hands[other]
            checked += 1
    assert checked > 100
    # The hidden hand is really sampled, not copied from the truth.
    assert differed > checked // 2


@pytest.mark.skipif("ncw" not in playable_games(), reason="New Cold War is not playable here")
def test_ncw_determinizations_respect_what_the_seat_has_seen() -> None:
    rules: Rules[Any] = get_rules("ncw")
    checked = 0
    differed = 0
    for true_state, _view, seat, sampled in _searched(rules, 4, 50):
        own = list(true_state.hands[seat])
        assert sorted(sampled.hands[seat]) == sorted(own)
        assert sampled.discard == true_state.discard
        assert sampled.removed == true_state.removed
        assert sampled.objectives[seat] == true_state.objectives[seat]
        assert sampled.declared == true_state.declared
        assert sampled.vp == true_state.vp and sampled.control == true_state.control
        seen = set(own) | set(true_state.discard) | set(true_state.removed)
        for other in range(len(true_state.hands)):
            if other == seat:
                continue
            assert len(sampled.hands[other]) == len(true_state.hands[other])
            assert not seen & set(sampled.hands[other]), "a card the seat has seen placed elsewhere"
            mine = set(true_state.objectives[seat])
            assert not mine & set(sampled.objectives[other])
            differed += sorted(sampled.hands[other]) != sorted(true_state.hands[other])
        assert not seen & set(sampled.deck)
        assert len(sampled.deck) == len(true_state.deck)
        checked += 1
    assert checked > 20
    assert differed > 0
