"""The heuristic bot drives South Front through the `evaluate` hook."""

from __future__ import annotations

from warroom.bots.evaluation import evaluator_for
from warroom.bots.position import SeatPosition
from warroom.bots.simple import HeuristicBot
from warroom.games.qmg_sf.tests.helpers import RULES, act


def test_heuristic_bot_chooses_a_legal_option() -> None:
    """The bot finds the rules' evaluate hook and picks one of the offered options."""
    assert evaluator_for(RULES) is not None
    s = act(act(RULES.setup(2, "standard", {}), "keep"), "keep")
    s = act(s, "done")
    decision = RULES.decision(s)
    assert decision is not None
    position = SeatPosition(RULES, RULES.view(s, 0), 0, decision, (0,), "standard")
    choice = HeuristicBot(seed=1, samples=1).choose(position)
    assert choice.option_id in {o.id for o in decision.options[0]}
