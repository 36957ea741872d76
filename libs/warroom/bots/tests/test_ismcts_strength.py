"""ISMCTS strength: sensible choices on a small budget, evaluation-guided search, reproducibility."""

from __future__ import annotations

import pytest

from tests.engine.toy_game import ToyRules, ToyState
from warroom.bots.ismcts import Budget, IsmctsBot
from warroom.bots.position import Bot, position_for
from warroom.bots.simple import RandomBot
from warroom.bots.tests.helpers import bonus_states


class ScoredToy(ToyRules):
    """The toy game with an evaluation hook: the score difference, squashed into [0, 1]."""

    def evaluate(self, state: ToyState, seat: int) -> float:
        """1/2 plus a tenth of the seat's lead, clamped."""
        lead = state.scores[seat] - state.scores[1 - seat]
        return min(1.0, max(0.0, 0.5 + lead / 10))


def _bonus_states(rules: ToyRules) -> list[tuple[ToyState, int]]:
    """States where seat 0 won a round and may score a bonus point or stop."""
    return [(state, 0) for state in bonus_states(rules)]


def _score_rate(bot: Bot, rules: ToyRules) -> float:
    states = _bonus_states(rules)
    picks = [bot.choose(position_for(rules, state, seat)).option_id for state, seat in states]
    return picks.count("score") / len(picks)


@pytest.mark.parametrize("rules", [ToyRules(), ScoredToy()], ids=["playouts", "evaluation"])
def test_ismcts_scores_the_free_point_on_a_small_budget(rules: ToyRules) -> None:
    assert len(_bonus_states(rules)) == 8
    assert _score_rate(IsmctsBot(Budget(iterations=40), seed=3), rules) == 1.0


def test_a_random_chooser_does_not_always_score() -> None:
    assert _score_rate(RandomBot(seed=3), ScoredToy()) < 1.0


def test_evaluation_priors_guide_a_tiny_budget() -> None:
    rules = ScoredToy()
    for state, seat in _bonus_states(rules):
        choice = IsmctsBot(Budget(iterations=8), seed=7).choose(position_for(rules, state, seat))
        assert choice.option_id == "score"
        visits = {s.option_id: s.visits for s in choice.analysis}
        assert visits["score"] > visits["stop"]


def test_evaluation_search_is_reproducible_with_a_seed() -> None:
    rules = ScoredToy()
    state = rules.setup(11, "duel", {})
    first = IsmctsBot(Budget(iterations=150), seed=5).choose(position_for(rules, state, 0))
    again = IsmctsBot(Budget(iterations=150), seed=5).choose(position_for(rules, state, 0))
    assert first.analysis == again.analysis and first.option_id == again.option_id
    assert sum(s.visits for s in first.analysis) == 150
