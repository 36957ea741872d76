"""The heuristic bot plays Cold War decisions from a seat's view through `evaluate`."""

from __future__ import annotations

import pytest

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


def test_the_search_values_a_hand_as_the_draw_step_leaves_it() -> None:
    """With all 10 Western Armies on the board, a Build Army card cannot build: the search's
    evaluation (`evaluate_with_draws`) discards it in the Discard step, as the Draw step
    replaces it with a card of the deck's mean worth, where the heuristic's `evaluate`, which
    counts a Build Army card at 3 whatever the board, keeps it and skips the step."""
    from warroom.games.qmg_cw import heuristic
    from warroom.games.qmg_cw.tests.helpers import cid, give, scenario

    west = 1
    spaces: tuple[str, ...] = (
        "united_states",
        "canada",
        "central_america",
        "south_america",
        "united_kingdom",
    )
    spaces += ("france", "spain", "italy", "germany", "scandinavia")
    armies = [(s, "western", "army") for s in spaces]
    armies += [(s, "soviet", "army") for s in ("moscow", "ukraine", "urals", "siberia")]
    armies += [(s, "indian", "army") for s in ("india",)]
    armies += [(s, "chinese", "army") for s in ("china", "tibet", "szechuan")]
    state = scenario(pieces=armies, active=west, step="discard_step")
    build = cid("Build Army", bloc=west)
    give(state, west, "hand", [build, cid("Sea Battle", bloc=west), cid("Sea Battle", 1, west)])
    spent = heuristic.spent_builds(state)
    player = state.seats[west]
    deck_mean = heuristic.cards_worth(player.deck, spent) / len(player.deck)
    assert heuristic.cards_worth([build], spent) == heuristic.SPENT_BUILD < deck_mean
    held = 3 * heuristic.SPENT_BUILD
    assert heuristic.hand_after_draw(player, spent) == pytest.approx(held + 4 * deck_mean)
    discard = RULES.apply(state, west, f"discard:{build}").state
    skip = RULES.apply(state, west, "pass").state
    decisions = [RULES.decision(s) for s in (discard, skip)]
    assert [d.kind if d else None for d in decisions] == ["esp_step", "esp_step"]
    assert heuristic.evaluate_with_draws(discard, west) > heuristic.evaluate_with_draws(skip, west)
    assert heuristic.evaluate(discard, west) < heuristic.evaluate(skip, west)
