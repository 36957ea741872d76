"""The variants' own rules (rulebook 6.1-6.3, 6.8-6.10) and the bots' card play and vetoes (6.4, Annex IV)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from warroom.engine.errors import SetupError
from warroom.engine.rng import seed_state
from warroom.games.ncw import content
from warroom.games.ncw.bots import hooks
from warroom.games.ncw.bots import variants as V
from warroom.games.ncw.state import (
    CHINA,
    EU,
    EVENT,
    OPS,
    RUSSIA,
    US,
    VETO_1,
    VETO_2,
    VETO_3,
    VETO_EXTRA,
    NcwState,
)


def card(name: str) -> int:
    """A card's number by name."""
    return next(c.number for c in content.tables().cards.values() if c.name == name)


def region(rid: str) -> int:
    """A region's index."""
    return content.REGION_IDS.index(rid)


def make_state(control: Mapping[str, int] | None = None, **kw: Any) -> NcwState:
    """A mid-game state (all regions open) with the given control."""
    t = content.tables()
    n = len(t.countries)
    state = NcwState(
        control=[-1] * n,
        token=[0] * n,
        country_vp_mod=[0] * n,
        region_vp_mod=[0] * 28,
        region_vp_mod_perm=[0] * 28,
        access=[127] * 4,
        vp=[20] * 4,
        prestige=[0] * 4,
        media_box=[0] * 4,
        op_reserve=[0] * 4,
        coups_left=[3] * 4,
        vetoes=[15, 7, 7, 15],
        vetoed_this_turn=[False] * 4,
        plays=[None] * 4,
        turn=2,
        round=0,
        hands=[[], [], [], []],
    )
    for name, power in (control or {}).items():
        state.control[V.country_index(name)] = power
    for key, value in kw.items():
        setattr(state, key, value)
    return state


# Variants ---------------------------------------------------------------------------------------------


def test_every_variant_is_listed_with_its_bots() -> None:
    infos = {v.id: v for v in V.variant_infos()}
    assert next(iter(infos)) == "4p" and infos["4p"].bot_seats == ()
    assert infos["3p-bot-eu"].bot_seats == (EU,) and infos["3p-bot-china"].bot_seats == (CHINA,)
    assert infos["2p-us-russia"].bot_seats == (EU, CHINA)
    assert infos["2p-china-us"].bot_seats == (EU, RUSSIA)
    assert infos["2p-russia-eu"].bot_seats == (US, CHINA)
    assert infos["2p-china-eu"].bot_seats == (US, RUSSIA)
    assert infos["solitaire-eu"].bot_seats == (US, CHINA, RUSSIA)
    assert all(
        set(v.options.get("difficulty", ())) == {"beginner", "intermediate", "expert"}
        for v in infos.values()
        if v.bot_seats
    )


def test_bad_options_are_refused() -> None:
    with pytest.raises(SetupError):
        V.variant_setup("solitaire-us", {"difficulty": "nightmare"})
    with pytest.raises(SetupError):
        V.variant_setup("4p", {"difficulty": "expert"})
    with pytest.raises(SetupError):
        V.variant_setup("5p", {})


def test_three_players_with_the_china_bot() -> None:
    vs = V.variant_setup("3p-bot-china", {"difficulty": "beginner"})
    assert vs.bots == 1 << CHINA and vs.cards_per_human == 5 and vs.bot_hand == "gifted"
    assert vs.withdrawn_objectives == (16,)
    assert vs.bot_vetoes == {CHINA: VETO_1}
    assert vs.ally_veto_values == {RUSSIA: (2, 3)}
    assert region("AFR") in vs.open_padlocks[CHINA]
    assert vs.bot_deployments[CHINA] == (V.country_index("DPR Korea"), V.country_index("Laos"))


def test_three_players_with_the_eu_bot_withdraws_russia_objective_24() -> None:
    vs = V.variant_setup("3p-bot-eu", {"difficulty": "expert"})
    assert vs.withdrawn_objectives == (24,)
    assert len(vs.bot_deployments[EU]) == 4
    assert vs.ally_veto_values == {US: (2, 3)}


@pytest.mark.parametrize(
    ("variant", "withdrawn", "human_a"),
    [
        (
            "2p-us-russia",
            (),
            {
                US: ["Israel", "Colombia", "Turkey"],
                RUSSIA: ["Iran", "Venezuela", "Ukraine", "Angola"],
            },
        ),
        (
            "2p-china-us",
            (15,),
            {
                CHINA: ["DPR Korea", "Myanmar", "Sudan", "Chile"],
                US: ["South Korea", "Malaysia", "Colombia"],
            },
        ),
        (
            "2p-russia-eu",
            (22,),
            {
                RUSSIA: ["Caucasian Rep.", "Belarus", "Bolivia", "Libya"],
                EU: ["Czech Rep.", "Romania", "Senegal"],
            },
        ),
        (
            "2p-china-eu",
            (6, 31),
            {CHINA: ["Laos", "Nigeria", "Chile"], EU: ["Poland", "Algeria", "Uruguay"]},
        ),
    ],
)
def test_two_player_scenarios(
    variant: str, withdrawn: tuple[int, ...], human_a: dict[int, list[str]]
) -> None:
    vs = V.variant_setup(variant, {})
    assert vs.withdrawn_objectives == withdrawn
    assert vs.cards_per_human == 4 and vs.bot_hand == "dealt3" and vs.ally_exchange == "none"
    for power, names in human_a.items():
        assert vs.human_deployments[power]["A"] == tuple(V.country_index(n) for n in names)
    for bot, bits in vs.bot_vetoes.items():
        assert bits & (VETO_1 | VETO_2) == VETO_1 | VETO_2 and not bits & VETO_3
        assert bool(bits & VETO_EXTRA) == (bot in (US, RUSSIA))
    assert all(values == (3,) for values in vs.ally_veto_values.values())


def test_scenario_padlocks() -> None:
    assert V.variant_setup("2p-china-us", {}).open_padlocks[CHINA] == (
        region("SAM"),
        region("AFR"),
    ) or set(V.variant_setup("2p-china-us", {}).open_padlocks[CHINA]) == {
        region("SAM"),
        region("AFR"),
    }
    assert V.variant_setup("2p-russia-eu", {}).open_padlocks[EU] == (region("SAM"),)


@pytest.mark.parametrize(("level", "needed"), [("beginner", 2), ("intermediate", 3), ("expert", 4)])
def test_solitaire_objectives_per_difficulty(level: str, needed: int) -> None:
    vs = V.variant_setup("solitaire-russia", {"difficulty": level})
    assert vs.objectives_needed == needed and not vs.objectives_award_vp
    assert vs.withdrawn_objectives == (20, 23) and not vs.leftover_exchange
    assert vs.bot_vetoes[US] == VETO_1 | VETO_2 | VETO_3 | VETO_EXTRA
    assert vs.ally_veto_values == {}
    deployment_b = {"beginner": 4, "intermediate": 3, "expert": 2}[level]
    assert len(vs.human_deployments[RUSSIA]["B"]) == deployment_b


def test_solitaire_gift_order_follows_the_example() -> None:
    assert [V.solitaire_gift_target(t, US) for t in range(1, 10)] == [EU, CHINA, RUSSIA] * 3
    assert [V.solitaire_gift_target(t, CHINA) for t in (1, 2, 3)] == [US, EU, RUSSIA]


# Region rewards, reinforced control and automatic victory (6.1, 6.2.1) ---------------------------------


def test_us_bot_central_america_reward_is_doubled_at_intermediate() -> None:
    cam = region("CAM")
    assert V.bot_region_reward(US, cam, 1, 3, base=2) == 4
    assert V.bot_region_reward(US, cam, 0, 3, base=2) == 2


@pytest.mark.parametrize(
    ("power", "first", "second"),
    [
        (CHINA, (4, 4, 8), (2, 4, 4)),
        (EU, (4, 4, 8), (3, 6, 6)),
        (RUSSIA, (4, 4, 8), (3, 6, 6)),
        (US, (3, 3, 6), (2, 4, 4)),
    ],
)
def test_bot_region_vp_table(
    power: int, first: tuple[int, int, int], second: tuple[int, int, int]
) -> None:
    r1, r2, r3 = V.bot_regions(power)
    for level in range(3):
        assert V.bot_region_reward(power, r1, level, 3, base=99) == first[level]
        assert V.bot_region_reward(power, r2, level, 6, base=99) == second[level]
        assert V.bot_region_reward(power, r3, level, 9, base=7) == 7


def test_beginner_rewards_equal_the_base_game() -> None:
    t = content.tables()
    for power in range(4):
        for r in V.bot_regions(power)[:2]:
            assert (
                V.bot_region_reward(power, r, 0, 3, base=t.region_reward[r][power])
                == t.region_reward[r][power]
            )


def test_us_bot_reinforced_control_example() -> None:
    from warroom.games.ncw.bots.adapter import board_of
    from warroom.games.ncw.bots.board import region_vps, reinforced

    control = {
        "Mexico": US,
        "Panama": US,
        "Guatemala": US,
        "El Salvador": US,
        "Honduras": US,
        "Cuba": RUSSIA,
        "Haiti": RUSSIA,
        "Nicaragua": RUSSIA,
    }
    board = board_of(make_state(control))
    assert region_vps(board, "US", "CAM") >= region_vps(board, "Russia", "CAM") + 2
    assert reinforced(board, "US", "CAM", 4)
    assert not reinforced(board_of(make_state({**control, "Honduras": RUSSIA})), "US", "CAM", 4)


def test_bot_automatic_victory_needs_all_three_regions_before_turn_9() -> None:
    control = dict.fromkeys(
        (
            "DPR Korea",
            "India",
            "Pakistan",
            "Bangladesh",
            "Laos",
            "Cambodia",
            "Myanmar",
            "Somalia",
            "Kenya",
            "Ethiopia",
            "Congo",
            "Cameroon",
            "Angola",
            "Mozambique",
            "Botswana",
        ),
        CHINA,
    )
    state = make_state(control, bots=1 << CHINA, turn=4)
    assert not V.bot_automatic_victory(state, CHINA)
    state.control[V.country_index("Nigeria")] = CHINA
    assert V.bot_automatic_victory(state, CHINA)
    assert hooks.bot_victors(state) == [CHINA]
    state.turn = 9
    assert not V.bot_automatic_victory(state, CHINA)


def test_special_benefits_per_difficulty() -> None:
    assert [V.special_benefits(t, 0) for t in (1, 2, 3)] == [(), (), ("media_reserve",)]
    assert [V.special_benefits(t, 1) for t in (4, 5, 6)] == [(), ("prestige",), ("media_reserve",)]
    assert [V.special_benefits(t, 2) for t in (7, 8, 9)] == [
        ("op_reserve",),
        ("prestige",),
        ("media_reserve",),
    ]


def test_turn_start_hook_applies_the_benefits_to_bots_only() -> None:
    state = make_state(bots=(1 << EU) | (1 << CHINA), turn=5, prestige=[0, 1, 2, 3])
    state.flags["difficulty"] = 2
    hooks.on_turn_start(state)
    assert state.prestige == [0, 2, 3, 3]
    state.turn = 7
    hooks.on_turn_start(state)
    assert state.op_reserve == [0, 1, 1, 0]
    state.turn = 9
    hooks.on_turn_start(state)
    assert state.media_box[EU] == 1 and state.media_box[CHINA] == 1


# Card play (6.4, Annex IV) and the random order --------------------------------------------------------


def test_bots_play_cards_by_class() -> None:
    state = make_state(turn=1)
    assert V.bot_play_mode(state, CHINA, card("Tiananmen Square Massacre")) == EVENT
    assert V.bot_play_mode(state, US, card("Shangai Stock Exchange Opening")) == OPS
    assert V.bot_play_mode(state, CHINA, card("The Tibetan Conflict")) == OPS
    assert V.bot_play_mode(state, EU, card("Algerian Civil War")) == OPS
    assert V.bot_play_mode(state, RUSSIA, card("India-Pakistan Nuclear Escalation")) == OPS
    assert V.bot_play_mode(state, US, card("War Lords")) == OPS
    assert V.bot_play_mode(state, EU, card("War Lords")) == EVENT
    assert V.bot_play_mode(state, RUSSIA, card("Kyoto Protocol")) == EVENT
    assert V.bot_play_mode(state, US, card("Kyoto Protocol")) == OPS


def test_diplomatic_mission_is_an_event_only_in_the_first_decade() -> None:
    closed = [127, 127, 127 & ~(1 << region("AFR")), 127]
    mission = card("Diplomatic Mission")
    assert V.bot_play_mode(make_state(turn=2, access=closed), CHINA, mission) == EVENT
    assert V.bot_play_mode(make_state(turn=4, access=closed), CHINA, mission) == OPS
    # 6.4: with every region open to China the event can do nothing: it is played for OPs
    assert V.bot_play_mode(make_state(turn=2), CHINA, mission) == OPS


def test_own_war_card_on_an_own_country_is_played_for_ops() -> None:
    balkan = card("Balkan Wars")
    assert V.bot_play_mode(make_state(turn=1), EU, balkan) == EVENT
    assert V.bot_play_mode(make_state({"Balkan Rep.": EU}, turn=1), EU, balkan) == OPS


def test_random_card_order_uses_the_game_rng() -> None:
    hand = [3, 5, 8]
    picks = {V.bot_pick_card(hand, 3, seed_state(s), [False] * 3)[0] for s in range(40)}
    assert picks == {0, 1, 2}
    assert V.bot_pick_card(hand, 3, seed_state(7), [False] * 3) == V.bot_pick_card(
        hand, 3, seed_state(7), [False] * 3
    )
    index, _ = V.bot_pick_card(hand, 1, seed_state(7), [False, True, False])
    assert index == 1


def test_bot_place_consumes_the_reserve_and_advances_the_rng() -> None:
    state = make_state(turn=1, bots=1 << CHINA, op_reserve=[0, 0, 1, 0], rng=seed_state(3), round=0)
    state.hands[CHINA] = [
        card("Tiananmen Square Massacre"),
        card("The Tibetan Conflict"),
        card("War Lords"),
    ]
    before = state.rng
    play = hooks.bot_place(state, CHINA)
    assert play is not None and play.reserve and state.op_reserve[CHINA] == 0
    assert state.rng != before and len(state.hands[CHINA]) == 2


# Vetoes (6.8, 6.9, 6.10) ------------------------------------------------------------------------------


def test_three_player_bot_vetoes_its_first_own_negative_card() -> None:
    state = make_state(turn=1, bots=1 << CHINA, vetoes=[15, 7, VETO_1, 15])
    tibet = card("The Tibetan Conflict")
    assert V.bot_veto(state, CHINA, tibet, EU) == VETO_1
    assert V.bot_veto(state, CHINA, tibet, CHINA) == 0
    state.vetoed_this_turn[CHINA] = True
    assert V.bot_veto(state, CHINA, tibet, EU) == 0


def test_one_op_marker_cannot_veto_a_two_op_negative_card() -> None:
    state = make_state(turn=1, bots=1 << EU, vetoes=[15, VETO_1, 7, 15])
    assert V.bot_veto(state, EU, card("Algerian Civil War"), RUSSIA) == 0
    state.vetoes[EU] = VETO_1 | VETO_2
    assert V.bot_veto(state, EU, card("Algerian Civil War"), RUSSIA) == VETO_2


def test_us_and_russia_bots_use_the_extra_veto_first() -> None:
    state = make_state(turn=2, vetoes=[15, 7, 7, 15])
    assert V.bot_veto(state, RUSSIA, card("Chechen War"), US) == VETO_EXTRA
    state.turn = 4
    assert V.bot_veto(state, RUSSIA, card("Chechen War"), US) == VETO_2


def test_russia_bot_extra_veto_on_gulf_cards_unless_the_us_holds_them() -> None:
    state = make_state(turn=1, vetoes=[15, 7, 7, 15])
    assert V.bot_veto(state, RUSSIA, card("Mubarak"), US) == VETO_EXTRA
    held = make_state({"Egypt": US}, turn=1, vetoes=[15, 7, 7, 15])
    assert V.bot_veto(held, RUSSIA, card("Mubarak"), US) == 0
    assert V.bot_veto(state, RUSSIA, card("Fujimori"), US) == 0


def test_setup_hook_places_bot_deployments_and_vetoes() -> None:
    state = make_state(
        variant="2p-china-eu", turn=1, access=[127, 3, 96, 127], bots=(1 << US) | (1 << RUSSIA)
    )
    hooks.on_setup(state, {"difficulty": "expert"})
    assert state.flags["difficulty"] == 2
    assert state.control[V.country_index("Colombia")] == US
    assert state.control[V.country_index("Vietnam")] == RUSSIA
    assert state.access[CHINA] >> region("AFR") & 1 and state.access[CHINA] >> region("SAM") & 1
    assert state.vetoes[US] == VETO_1 | VETO_2 | VETO_EXTRA
    assert state.flags["ally_veto_3:1"] == 1 and state.flags["ally_veto_3:2"] == 1
    assert hooks.deploy_options(state, US) == {}
    assert hooks.deploy_options(state, EU) == {
        "A": tuple(V.country_index(n) for n in ("Poland", "Algeria", "Uruguay")),
        "B": tuple(V.country_index(n) for n in ("Czech Rep.", "Morocco", "Argentina")),
    }


def test_deal_and_gift_hooks() -> None:
    three = make_state(variant="3p-bot-eu", bots=1 << EU, turn=1)
    assert [hooks.hand_size(three, p) for p in range(4)] == [5, 1, 5, 5]
    assert hooks.gift_due(three, "before_exchange") and not hooks.gift_due(three, "after_leftover")
    three.turn = 3
    assert hooks.gift_due(three, "after_leftover") and not hooks.gift_due(three, "before_exchange")
    three.hands = [[card("Fujimori"), card("Tiananmen Square Massacre")], [], [], []]
    assert [o for o, _ in hooks.gift_options(three, US)] == [f"gift:{card('Fujimori')}"]
    hooks.apply_gift(three, US, f"gift:{card('Fujimori')}")
    assert three.hands[EU] == [card("Fujimori")]
    solo = make_state(variant="solitaire-us", bots=0b1110, turn=2)
    assert [hooks.hand_size(solo, p) for p in range(4)] == [4, 3, 3, 3]
    assert hooks.gift_target(solo, US) == CHINA
    assert not hooks.leftover_exchange_allowed(solo) and hooks.leftover_goes_to_discard(solo, CHINA)
    four = make_state(variant="4p", turn=1)
    assert not hooks.gift_due(four, "before_exchange") and hooks.hand_size(four, US) == 4


def test_a_crisis_card_is_played_by_the_last_round() -> None:
    crisis = card("Tiananmen Square Massacre")
    for seed in range(20):
        state = make_state(turn=1, bots=1 << CHINA, rng=seed_state(seed), round=2)
        state.hands[CHINA] = [crisis, card("War Lords")]
        play = hooks.bot_place(state, CHINA)
        assert play is not None and play.card == crisis
