"""The official bots' flowchart examples (rulebook 6.6) as scenario tests.

Each test builds the position the example states on a map whose costs come from the bots'
priority tables (6.6), runs the flowchart and asserts the choice the example states.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from warroom.games.ncw.bots.board import Board, CountryFacts, region_vps, reinforced
from warroom.games.ncw.bots.data import tables
from warroom.games.ncw.bots.flowchart import (
    Action,
    Spend,
    next_action,
    plan,
    profile,
    simulate,
    step7_regions,
)
from warroom.games.ncw.tests.helpers import CORE_AFRICA, CORE_ASIA

RED_ORBIT = {
    "Nicaragua": "Russia",
    "Cuba": "Russia",
    "Libya": "Russia",
    "Ethiopia": "Russia",
    "Afghanistan": "Russia",
    "Kazakhstan": "Russia",
    "Vietnam": "Russia",
    "Syria": "Russia",
    "Iran": "Russia",
    "Ukraine": "Russia",
    "Belarus": "Russia",
    "Caucasian Rep.": "Russia",
    "Venezuela": "Russia",
    "DPR Korea": "China",
    "Myanmar": "China",
}
BLUE_ORBIT = {
    "Panama": "US",
    "Colombia": "US",
    "Turkey": "US",
    "South Africa": "US",
    "Philippines": "US",
    "Israel": "US",
    "Saudi Arabia": "US",
    "Gulf States": "US",
    "Japan": "US",
    "South Korea": "US",
    "Australia": "US",
    "Poland": "EU",
    "Czech Rep.": "EU",
    "Slovakia": "EU",
    "Hungary": "EU",
    "Mali": "EU",
}
REGIONAL_POWERS = {"India", "Japan", "Brazil", "Mexico", "South Africa"}


def make_facts(vps: Mapping[str, int] | None = None) -> dict[str, CountryFacts]:
    """Every country of the priority tables, rated per bloc from those tables."""
    ratings: dict[str, dict[str, int]] = {}
    regions: dict[str, str] = {}
    for bot in tables().powers.values():
        bloc = "blue" if bot.power in ("US", "EU") else "red"
        for table in bot.priority:
            for name, cost in table.countries:
                regions[name] = table.region
                ratings.setdefault(name, {})[bloc] = cost
    facts = {}
    for name, rating in ratings.items():
        rating.setdefault("red", rating.get("blue", 1))
        rating.setdefault("blue", rating["red"])
        vp = 3 if name in REGIONAL_POWERS else 1
        if vps and name in vps:
            vp = vps[name]
        orbit = RED_ORBIT.get(name) or BLUE_ORBIT.get(name)
        facts[name] = CountryFacts(name, regions[name], vp, orbit, rating)
    return facts


MIN = {"EUR": 5, "MEA": 4, "CAM": 4, "SAM": 4, "AFR": 9, "ASI": 4, "SEA": 3}


def board(control: Mapping[str, str], vps: Mapping[str, int] | None = None, **kw: Any) -> Board:
    """A position with the given control and VP values."""
    return Board(facts=make_facts(vps), control=dict(control), region_min=MIN, **kw)


# Example 1 -------------------------------------------------------------------------------------------

EX1_VPS = {"Israel": 2, "Saudi Arabia": 2, "Iran": 2}
EX1_CONTROL = {
    "Israel": "US",
    "Saudi Arabia": "US",
    "Jordan": "US",
    "Egypt": "US",
    "Iran": "Russia",
    "Syria": "Russia",
    "Iraq": "Russia",
    "Lebanon": "Russia",
    "Haiti": "Russia",
}


def test_example_1_yemen_then_guatemala() -> None:
    position = board(EX1_CONTROL, EX1_VPS)
    assert region_vps(position, "US", "MEA") == 6
    assert region_vps(position, "Russia", "MEA") == 5
    actions, after = plan(position, "US", Spend(ops=2))
    assert [(a.step, a.country) for a in actions] == [("1", "Yemen"), ("1", "Guatemala")]
    assert reinforced(after, "US", "MEA", 4)
    assert region_vps(after, "US", "MEA") == 7


def test_example_1_stays_in_region_without_reinforced_control() -> None:
    control = dict(EX1_CONTROL, Yemen="Russia")
    actions, _ = plan(board(control, EX1_VPS), "US", Spend(ops=1))
    assert actions[0].region == "MEA"


# Example 2.A / 2.B -----------------------------------------------------------------------------------

EX2_VPS = {"Israel": 2, "Saudi Arabia": 2, "Iran": 2}
EX2_CONTROL = {
    "Israel": "US",
    "Saudi Arabia": "US",
    "Iraq": "US",
    "Yemen": "US",
    "Iran": "Russia",
    "Jordan": "Russia",
    "Egypt": "Russia",
    "Lebanon": "Russia",
    "Syria": "Russia",
}


def test_example_2a_coup_in_lebanon() -> None:
    position = board(EX2_CONTROL, EX2_VPS)
    assert region_vps(position, "US", "MEA") == region_vps(position, "Russia", "MEA") == 6
    action = next_action(position, "US", Spend(ops=2))
    assert action == Action("coup", "2A", 2, "Lebanon", "MEA")


def test_example_2b_remove_control_in_jordan_when_lebanon_is_stabilized() -> None:
    position = board(EX2_CONTROL, EX2_VPS, tokens={"Lebanon": "red"})
    action = next_action(position, "US", Spend(ops=2))
    assert action == Action("remove", "2B", 2, "Jordan", "MEA")


def test_example_2a_no_coup_left_falls_to_removal() -> None:
    position = board(EX2_CONTROL, EX2_VPS, coups_left={"US": 0})
    action = next_action(position, "US", Spend(ops=2))
    assert action is not None and action.step == "2B"


# Example 2.C / 2.D -----------------------------------------------------------------------------------

EX2C_CONTROL = {
    "Turkey": "US",
    "Bulgaria": "EU",
    "Romania": "EU",
    "Poland": "EU",
    "Ukraine": "Russia",
    "Belarus": "Russia",
}


def test_example_2c_destabilize_ukraine_not_allied_turkey() -> None:
    action = next_action(board(EX2C_CONTROL), "EU", Spend(ops=1))
    assert action == Action("destabilize", "2C", 1, "Ukraine", "EUR")


def test_example_2d_remove_stabilizing_token_in_ukraine() -> None:
    position = board(EX2C_CONTROL, tokens={"Ukraine": "red", "Belarus": "red"})
    action = next_action(position, "EU", Spend(ops=1))
    assert action == Action("remove_token", "2D", 1, "Ukraine", "EUR")


def test_bots_never_destabilize_uncontrolled_countries() -> None:
    control = {k: v for k, v in EX2C_CONTROL.items() if v != "Russia"}
    action = next_action(board(control), "EU", Spend(ops=1))
    assert action is not None and action.region != "EUR"


# Example 3 -------------------------------------------------------------------------------------------


def test_example_3_moves_to_africa_and_takes_niger() -> None:
    control = {
        "Turkey": "US",
        "Bulgaria": "EU",
        "Romania": "EU",
        "Poland": "EU",
        "Mali": "EU",
        "Mauritania": "US",
        "Chad": "EU",
    }
    action = next_action(board(control), "EU", Spend(ops=1))
    assert action == Action("control", "1", 1, "Niger", "AFR")


# Examples 4/5, 6.A, 6.B, 7.B (China bot, Asia and South East Asia under reinforced control) -----------

CHINA_STRONG = dict.fromkeys(CORE_ASIA, "China")
AFRICA_BOTS = dict.fromkeys(CORE_AFRICA, "EU")
CHINA_BOARD = dict(CHINA_STRONG, **AFRICA_BOTS, Sudan="China")


def china_board(**kw: Any) -> Board:
    """The China bot with reinforced control of Asia and South East Asia, having attacked the EU bot in Africa."""
    kw.setdefault("bots", frozenset({"China", "EU", "US"}))
    kw.setdefault("attacks", frozenset({("China", "AFR")}))
    return board(CHINA_BOARD, **kw)


def test_china_board_is_reinforced_in_asia_and_south_east_asia() -> None:
    position = china_board()
    assert reinforced(position, "China", "ASI", 4)
    assert reinforced(position, "China", "SEA", 3)


def test_example_4_op_reserve_when_it_cannot_attack_again() -> None:
    action = next_action(china_board(prestige={"China": 0}), "China", Spend(ops=1))
    assert action == Action("op_reserve", "4", 1)


def test_example_4_would_attack_without_the_interaction_restriction() -> None:
    action = next_action(china_board(attacks=frozenset()), "China", Spend(ops=1))
    assert action is not None and action.step.startswith("2")


def test_example_5_prestige_with_the_reserve_on_the_card() -> None:
    position = china_board(prestige={"China": 0}, op_reserve={"China": 0})
    actions, after = plan(position, "China", Spend(ops=2, reserve_on_card=True))
    assert [a.kind for a in actions] == ["prestige"]
    assert after.prestige["China"] == 1


def test_example_6a_media_when_prestige_costs_three() -> None:
    # Ruling (docs/rulings.md): 4.3.2.4 prices a step by the box the marker is in, so the
    # example's "+3 to +4 costs 3 OPs" is read as a marker already in the extreme zone (+4).
    position = china_board(prestige={"China": 4}, media=1)
    actions, after = plan(position, "China", Spend(ops=2, reserve_on_card=True))
    assert [a.step for a in actions] == ["6A"]
    assert after.media == 0


def test_ruling_prestige_from_plus_three_costs_two() -> None:
    position = china_board(prestige={"China": 3}, media=1)
    actions, after = plan(position, "China", Spend(ops=2, reserve_on_card=True))
    assert [a.step for a in actions] == ["5"]
    assert after.prestige["China"] == 4


def test_example_6b_reserve_then_media_reserve() -> None:
    position = china_board(prestige={"China": 0})
    actions, after = plan(position, "China", Spend(ops=2))
    assert [a.step for a in actions] == ["4", "6B"]
    assert after.op_reserve["China"] == 1
    assert after.media_reserve["China"] == 1


def test_example_7b_stabilize_sudan() -> None:
    position = china_board(prestige={"China": 0}, media_reserve={"China": 1})
    actions, _ = plan(position, "China", Spend(ops=1, reserve_on_card=True))
    assert actions == [Action("stabilize", "7B", 1, "Sudan", "AFR")]


def test_step_7a_removes_rival_token_first() -> None:
    position = china_board(
        prestige={"China": 0}, media_reserve={"China": 1}, tokens={"Pakistan": "blue"}
    )
    action = next_action(position, "China", Spend(ops=1, reserve_on_card=True))
    assert action == Action("stabilize", "7B", 1, "Sudan", "AFR")
    tokens = {"Sudan": "red", "Pakistan": "blue"}
    position = china_board(prestige={"China": 0}, media_reserve={"China": 1}, tokens=tokens)
    action = next_action(position, "China", Spend(ops=1, reserve_on_card=True))
    assert action == Action("remove_token", "7A", 1, "Pakistan", "ASI")


CHINA_AFRICA: tuple[str, ...] = (
    *("Somalia", "Kenya", "Ethiopia", "Congo", "Cameroon", "Angola", "South Africa"),
    *("Mozambique", "Botswana", "Ivory Coast"),
)


def china_everywhere(**kw: Any) -> Board:
    """The China bot with reinforced control of all three of its regions (Asia, SEA, Africa)."""
    control = dict(CHINA_STRONG, **dict.fromkeys(CHINA_AFRICA, "China"))
    kw.setdefault("bots", frozenset({"China", "EU", "US"}))
    return board(control, prestige={"China": 0}, media_reserve={"China": 1}, **kw)


def test_step_7_starts_in_the_third_region_when_all_three_are_reinforced() -> None:
    # 6.6 step 7: "If reinforced control is already achieved for the first and second priority
    # regions and stability tokens cannot be placed in the third region, place them in the first
    # priority region, then the second priority region."
    position = china_everywhere()
    assert all(reinforced(position, "China", r, MIN[r]) for r in ("ASI", "SEA", "AFR"))
    action = next_action(position, "China", Spend(ops=1, reserve_on_card=True))
    assert action == Action("stabilize", "7B", 1, "Somalia", "AFR")


def test_step_7_returns_to_the_first_region_when_the_third_is_full() -> None:
    tokens = dict.fromkeys(CHINA_AFRICA, "red")
    position = china_everywhere(tokens=tokens)
    action = next_action(position, "China", Spend(ops=1, reserve_on_card=True))
    assert action is not None and (action.step, action.region) == ("7B", "ASI")
    asia = {name: "red" for name in CORE_ASIA if name not in ("Laos", "Cambodia", "Myanmar")}
    asia.pop("Indonesia")
    position = china_everywhere(tokens=dict(tokens, **asia))
    action = next_action(position, "China", Spend(ops=1, reserve_on_card=True))
    assert action is not None and (action.step, action.region) == ("7B", "SEA")


def test_step_7_starts_in_the_first_region_without_reinforced_control() -> None:
    control = dict(CHINA_STRONG, **dict.fromkeys(CHINA_AFRICA, "China"))
    for name in ("Laos", "Cambodia", "Myanmar"):
        control.pop(name, None)
    position = board(control, prestige={"China": 0}, media_reserve={"China": 1})
    assert not reinforced(position, "China", "SEA", MIN["SEA"])
    order = [t.region for t in step7_regions(position, profile("China"))]
    assert order == ["SEA", "AFR", "ASI"]


# Step 4 and 5 restrictions ----------------------------------------------------------------------------


@pytest.mark.parametrize("turn", [3, 6, 9])
def test_no_op_reserve_in_the_last_round_of_a_scoring_turn(turn: int) -> None:
    position = china_board(prestige={"China": 0}, turn=turn, round=3)
    action = next_action(position, "China", Spend(ops=1))
    assert action is not None and action.kind != "op_reserve"


def test_op_reserve_clears_a_negative_reserve_even_in_the_last_round() -> None:
    position = china_board(prestige={"China": 0}, turn=3, round=3, op_reserve={"China": -1})
    assert next_action(position, "China", Spend(ops=1)) == Action("op_reserve", "4", 1)


def test_no_prestige_in_turn_9() -> None:
    position = china_board(prestige={"China": 0}, turn=9)
    actions, _ = plan(position, "China", Spend(ops=2, reserve_on_card=True))
    assert "prestige" not in [a.kind for a in actions]


def test_all_ops_are_spent_or_nothing_is_possible() -> None:
    position = china_board(prestige={"China": 0})
    actions, _ = plan(position, "China", Spend(ops=4))
    assert sum(a.cost for a in actions) == 4


def test_simulate_tracks_card_limits() -> None:
    position = china_board(prestige={"China": 0})
    after, spend = simulate(position, "China", Spend(ops=3), Action("prestige", "5", 2))
    assert spend.ops == 1 and spend.prestige_done and after.prestige["China"] == 1


# 6.7 media benefits -------------------------------------------------------------------------------------


def test_media_benefit_places_influence_in_own_orbit_first() -> None:
    from warroom.games.ncw.bots.media import media_benefit_targets

    control = {"Israel": "US", "Saudi Arabia": "Russia", "Lebanon": "Russia", "Jordan": "EU"}
    position = board(control, {"Saudi Arabia": 2, "Gulf States": 2}, media=3)
    moves = media_benefit_targets(position, "US")
    assert moves[:3] == [
        ("place", "Gulf States"),
        ("remove", "Saudi Arabia"),
        ("remove", "Lebanon"),
    ]
    assert ("remove", "Jordan") not in moves
    low = media_benefit_targets(
        board(control, {"Saudi Arabia": 2, "Gulf States": 2}, media=1), "US"
    )
    assert low[0] == ("remove", "Lebanon")


def test_media_benefit_needs_the_blocs_advantage() -> None:
    from warroom.games.ncw.bots.media import media_benefit_targets

    assert media_benefit_targets(board({}, media=-1), "US") == []
    assert media_benefit_targets(board({}, media=-1), "Russia") != []


def test_media_benefit_orbit_fallback_table_for_russia() -> None:
    from warroom.games.ncw.bots.media import media_benefit_targets

    control = dict.fromkeys(
        (
            "Brazil",
            "Venezuela",
            "Ecuador",
            "Bolivia",
            "Colombia",
            "Peru",
            "Paraguay",
            "Argentina",
            "Uruguay",
            "Chile",
            "Iran",
            "Syria",
            "Jordan",
            "Iraq",
            "Yemen",
            "Lebanon",
            "Egypt",
            "Israel",
            "Saudi Arabia",
            "Gulf States",
            "Caucasian Rep.",
            "Ukraine",
            "Romania",
            "Bulgaria",
            "Belarus",
            "Baltic Rep.",
            "Balkan Rep.",
            "Turkey",
            "Hungary",
            "Poland",
            "Czech Rep.",
            "Slovakia",
        ),
        "Russia",
    )
    moves = media_benefit_targets(board(control, media=-3), "Russia")
    assert [c for _, c in moves][:2] == ["Cuba", "Libya"]


# 6.4 event OPs ------------------------------------------------------------------------------------------


def test_event_ops_in_a_reinforced_region_still_follow_the_card() -> None:
    from warroom.games.ncw.bots.flowchart import STEPS_EVENT_OPS

    position = china_board(prestige={"China": 0})
    spend = Spend(ops=2, steps=STEPS_EVENT_OPS, regions=("SEA",))
    actions, _ = plan(position, "China", spend)
    assert actions and all(a.region == "SEA" for a in actions)
    assert actions[0] == Action("control", "1", 2, "Vietnam", "SEA")


def test_event_ops_never_use_reserve_prestige_or_media() -> None:
    from warroom.games.ncw.bots.flowchart import STEPS_EVENT_OPS

    position = china_board(prestige={"China": 0})
    spend = Spend(ops=3, steps=STEPS_EVENT_OPS, countries=("Sudan", "Chad"))
    actions, _ = plan(position, "China", spend)
    assert {a.kind for a in actions} <= {
        "control",
        "coup",
        "remove",
        "destabilize",
        "remove_token",
        "stabilize",
    }
    assert {a.country for a in actions} <= {"Sudan", "Chad"}
