"""ISMCTS over a game's rollout policy: policy improvement, early stop, secrecy, reproducibility."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tests.engine.toy_game import ToyRules, ToyState
from warroom.bots.ismcts import Budget, IsmctsBot
from warroom.bots.policies import RolloutPolicy, policy_for
from warroom.bots.position import position_for
from warroom.bots.tests.conftest import playable_games
from warroom.bots.tests.helpers import bonus_states
from warroom.engine.registry import get_rules
from warroom.engine.rules import Rules


def _stop(state: Any, seat: int, options: Sequence[str]) -> str:
    return "stop" if "stop" in options else "pass" if "pass" in options else options[0]


def _score(state: Any, seat: int, options: Sequence[str]) -> str:
    return "score" if "score" in options else "pass" if "pass" in options else options[-1]


class PolicyToy(ToyRules):
    """The toy game with a rollout policy (given per instance)."""

    def __init__(self, choose: Any) -> None:
        self.rollout_policy = RolloutPolicy(choose)


def _bonus_states(rules: ToyRules) -> list[ToyState]:
    return bonus_states(rules, 6)


def test_policy_is_found_on_the_rules_or_in_the_registry() -> None:
    assert policy_for(ToyRules()) is None
    rules = PolicyToy(_stop)
    assert policy_for(rules) is rules.rollout_policy
    if "ncw" in playable_games():
        ncw = policy_for(get_rules("ncw"))
        assert ncw is not None and ncw.epoch is not None


def test_search_improves_on_a_weak_policy() -> None:
    rules = PolicyToy(_stop)
    states = _bonus_states(rules)
    assert states
    for state in states:
        choice = IsmctsBot(Budget(iterations=120), seed=3).choose(position_for(rules, state, 0))
        assert choice.notes["policy"] == "stop"
        assert choice.option_id == "score"


def test_search_keeps_a_good_policy_and_stops_early() -> None:
    rules = PolicyToy(_score)
    for state in _bonus_states(rules):
        choice = IsmctsBot(Budget(iterations=1000), seed=3).choose(position_for(rules, state, 0))
        assert choice.option_id == "score" == choice.notes["policy"]
        assert choice.iterations < 100
        visits = {s.option_id: s.visits for s in choice.analysis}
        assert visits["score"] >= visits["stop"]


def test_simultaneous_answers_never_see_the_searching_seats_secret_card() -> None:
    seen: list[tuple[int, tuple[int, int]]] = []

    def watching(state: ToyState, seat: int, options: Sequence[str]) -> str:
        if state.phase == "play":
            seen.append((seat, state.placed))
        return _score(state, seat, options)

    rules = PolicyToy(watching)
    state = rules.setup(4, "duel", {})
    choice = IsmctsBot(Budget(iterations=40), seed=1).choose(position_for(rules, state, 0))
    assert choice.iterations > 1
    assert any(seat == 1 for seat, _ in seen)
    assert all(placed[1 - seat] == 0 for seat, placed in seen)


def test_policy_search_is_reproducible_with_a_seed() -> None:
    rules = PolicyToy(_score)
    state = rules.setup(11, "duel", {})
    first = IsmctsBot(Budget(iterations=90), seed=5).choose(position_for(rules, state, 0))
    again = IsmctsBot(Budget(iterations=90), seed=5).choose(position_for(rules, state, 0))
    assert first.analysis == again.analysis and first.option_id == again.option_id
    assert first.iterations == again.iterations > 10
    assert len({s.value for s in first.analysis}) > 1


@pytest.mark.skipif("ncw" not in playable_games(), reason="New Cold War is not playable here")
def test_ncw_search_starts_from_the_official_bots_option() -> None:
    rules: Rules[Any] = get_rules("ncw")
    state = rules.setup(2, "4p", {})
    policy = policy_for(rules)
    assert policy is not None
    for _ in range(200):
        decision = rules.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        ids = [o.id for o in decision.options_for(seat)]
        if decision.kind == "ops" and len(ids) > 1:
            break
        state = rules.apply(state, seat, policy.choose(state, seat, ids)).state
    position = position_for(rules, state, seat)
    choice = IsmctsBot(Budget(iterations=30), seed=2).choose(position)
    assert choice.notes["policy"] == policy.choose(state, seat, ids)
    assert choice.option_id in ids and 0 < choice.iterations <= 30


@pytest.mark.skipif("ncw" not in playable_games(), reason="New Cold War is not playable here")
def test_ncw_evaluation_counts_the_map_towards_the_next_scoring() -> None:
    from warroom.bots.games import ncw

    rules: Rules[Any] = get_rules("ncw")
    state = rules.setup(2, "4p", {})
    free = state.control.index(-1)
    taken = state.clone()
    taken.control[free] = 0
    assert ncw.standings(taken)[0] > ncw.standings(state)[0]
    assert ncw.evaluate(taken, 0) > ncw.evaluate(state, 0)
    assert ncw.standings(taken)[1:] == ncw.standings(state)[1:]
