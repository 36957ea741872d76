"""The heuristic bot plays Cold War decisions from a seat's view through `evaluate`."""

from __future__ import annotations

from warroom.bots.evaluation import evaluator_for
from warroom.bots.position import position_for
from warroom.bots.simple import HeuristicBot
from warroom.games.qmg_cw.rules import ColdWarRules

RULES = ColdWarRules()


def test_heuristic_bot_uses_evaluate_and_plays_legal_options() -> None:
    """The evaluation hook is found, and 40 heuristic choices in a 4-player game are all legal."""
    assert evaluator_for(RULES) is not None
    bot = HeuristicBot(seed=1, samples=1)
    state = RULES.setup(11, "4p", {})
    for _ in range(40):
        decision = RULES.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        position = position_for(RULES, state, seat, decision)
        choice = bot.choose(position)
        assert choice.option_id in {o.id for o in decision.options_for(seat)}
        state = RULES.apply(state, seat, choice.option_id).state
