"""Rulebook audit, session 24: sentences no earlier test pinned. The engine already did each
(no discrepancy found in the areas these cover); each test quotes the sentence it checks."""

from __future__ import annotations

from warroom.games.qmg_cw.state import NA, SOV, WEST

from .helpers import RULES, act, cid, give, kind, options, scenario


def test_escalation_stops_at_nine_and_a_wmd_costing_the_level_is_free() -> None:
    """ "There are six Escalation tracks, each numbered 0 through 9" and "This cost is reduced
    by the escalation level of the target Bloc against your Bloc." With the Soviets at 9
    against the West, the West (0 VPs) may use
    Minuteman ICBM (cost 9) on the Soviets for nothing, never on the Non-Aligned Bloc (level
    0: "You cannot use a card if doing so would reduce your Bloc to negative Victory
    Points"); its two symbols leave the West's level at 9."""
    minuteman = cid("Minuteman ICBM")
    state = scenario("3p", pieces=[("moscow", "soviet", "army")], active=WEST)
    give(state, WEST, "prepared", [minuteman])
    state.vp = [10, 0, 10]
    state.esc[SOV * 3 + WEST] = 9
    state.esc[WEST * 3 + SOV] = 8
    state = act(state, WEST, f"use:{minuteman}")
    assert options(state, WEST) == [f"t:{SOV}"]
    state = act(state, WEST, f"t:{SOV}")
    assert state.vp[WEST] == 0
    assert state.level(WEST, SOV) == 9


def test_a_wmd_cost_reduced_below_zero_costs_nothing() -> None:
    """ "A WMD cost can never be reduced below zero." "F" Chemical & Biological Warfare
    Programs (cost 6) targets each enemy: with the West at 9 against the Soviets it costs them
    0 there (not -3) and 6 against the Non-Aligned Bloc (level 0), 6 in all. So the Soviets
    may use it with 6 VPs and not with 5 ("You cannot use a card if doing so would reduce your
    Bloc to negative Victory Points"); a cost below zero would let them with 3."""
    cbw = cid('"F" Chemical & Biological Warfare Programs')
    usable = []
    for vp in (5, 6):
        state = scenario("3p", pieces=[("moscow", "soviet", "army")], active=SOV)
        give(state, SOV, "prepared", [cbw])
        state.vp = [vp, 10, 10]
        state.esc[WEST * 3 + SOV] = 9
        usable.append(f"use:{cbw}" in options(state, SOV))
    assert usable == [False, True]


def test_the_moving_bloc_orders_the_enemies_reactions_and_reacts_last() -> None:
    """ "If more than one Bloc can react to a trigger, Blocs take turns reacting. The Bloc that
    is taking its turn must react after the other 2 Blocs, but decides which enemy reacts
    first." The Soviets play Sputnik; the West (Polaris SLBM) and the Non-Aligned Bloc (Islamic
    Bomb) can both react: the Soviets name the Non-Aligned Bloc, which reacts before the West,
    and the Soviets' own "any time" card (Project 941 Akula) is offered after both."""
    polaris, bomb = cid("Polaris SLBM"), cid("Islamic Bomb")
    akula, sputnik = cid("Project 941 Akula"), cid("Sputnik")
    state = scenario("3p", pieces=[("moscow", "soviet", "army")], step="action")
    give(state, WEST, "prepared", [polaris])
    give(state, NA, "prepared", [bomb])
    give(state, SOV, "prepared", [akula])
    give(state, SOV, "hand", [sputnik])
    state.vp = [10, 10, 10]
    state = act(state, SOV, f"play:{sputnik}")
    assert kind(state) == "react_order"
    assert sorted(options(state, SOV)) == [f"first:{WEST}", f"first:{NA}"]
    state = act(state, SOV, f"first:{NA}")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "react" and decision.seats == (NA,)
    state = act(state, NA, "pass")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "react" and decision.seats == (WEST,)
    state = act(state, WEST, "pass")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "react" and decision.seats == (SOV,)
    assert f"use:{akula}" in options(state, SOV)
