"""Worked examples of rulebook sections 2-5 as scenario tests (state the position, act, assert)."""

from __future__ import annotations

from warroom.games.ncw import flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.state import BLUE, EU, EVENT, OPS, RED, RUSSIA, US, Frame, Play
from warroom.games.ncw.tests.helpers import act, blank, cid, give, options, pid, rid, with_ops

CHINA = 2


# ---------------------------------------------------------------- 4.3.2.1 / 4.3.2.2 costs and coups


def test_nicaragua_costs_and_value() -> None:
    """4.3.2.1: the US pays 2 for Nicaragua (Russian ORBIT) and scores it 2; China pays 1, scores 1."""
    s = blank()
    nic = cid("nicaragua")
    assert O.pos_cost(s, US, nic)[0] == 2
    assert O.pos_cost(s, CHINA, nic)[0] == 1
    assert O.country_value(s, nic, US) == 2
    assert O.country_value(s, nic, CHINA) == 1


def test_libya_coup_by_eu() -> None:
    """4.3.2.2: EU coup in Russian Libya costs 2 + 1 = 3; destabilized (7.2) it costs 2 and gives 2 VPs."""
    s = blank()
    give(s, "Russia", "libya")
    libya = cid("libya")
    assert O.coup_possible(s, EU, libya)
    assert O.coup_cost(s, EU, libya) == 3
    O.place_token(s, libya, BLUE)
    assert O.coup_cost(s, EU, libya) == 2
    s.vp[EU] = 25
    with_ops(s, EU, 2)
    s2 = act(s, EU, "coup:libya")
    assert s2.control[libya] == EU
    assert s2.vp[EU] == 27
    assert s2.token[libya] == 0
    assert s2.coups_left[EU] == 2
    assert s2.prestige[RUSSIA] == s.prestige[RUSSIA]


def test_panama_coup_and_recovery() -> None:
    """4.3.2.2: Russia coups destabilized US Panama for 2 + 2 (+2 VPs, US -1 prestige); the US recovers it
    for 2 + 2 (+2 VPs and a media reserve marker)."""
    s = blank()
    give(s, "US", "panama")
    panama = cid("panama")
    assert not O.coup_possible(s, RUSSIA, panama)
    O.place_token(s, panama, RED)
    assert O.coup_possible(s, RUSSIA, panama)
    assert O.coup_cost(s, RUSSIA, panama) == 4
    vp, prestige = s.vp[RUSSIA], s.prestige[US]
    with_ops(s, RUSSIA, 4)
    s = act(s, RUSSIA, "coup:panama")
    assert s.control[panama] == RUSSIA and s.vp[RUSSIA] == vp + 2 and s.prestige[US] == prestige - 1
    assert O.coup_cost(s, US, panama) == 4
    with_ops(s, US, 4)
    vp_us = s.vp[US]
    s = act(s, US, "coup:panama")
    assert s.control[panama] == US and s.vp[US] == vp_us + 2 and s.media_box[US] == 1


def test_no_coup_in_stability_3() -> None:
    """4.3.2.2: no coup in stability 3/4 countries, even destabilized, unless ORBIT."""
    s = blank()
    give(s, "Russia", "chile")
    O.place_token(s, cid("chile"), BLUE)
    assert not O.coup_possible(s, US, cid("chile"))


def test_third_coup_gives_negative_media_marker() -> None:
    """4.3.2.2: the third coup of a turn by OPs gives a negative media marker."""
    s = blank()
    give(s, "Russia", "iraq", "lebanon", "yemen")
    for name in ("iraq", "lebanon", "yemen"):
        O.do_coup(s, US, cid(name))
    assert s.coups_left[US] == 0 and s.media_box[US] == -1


def test_iraq_coup_stability_one() -> None:
    """7.1 R3: Russia's coup in US Iraq (stability 1) costs 2 and gives 1 VP."""
    s = blank()
    give(s, "US", "iraq")
    s.vp[RUSSIA] = 18
    assert O.coup_cost(s, RUSSIA, cid("iraq")) == 2
    O.do_coup(s, RUSSIA, cid("iraq"))
    assert s.vp[RUSSIA] == 19 and s.coups_left[RUSSIA] == 2


# ---------------------------------------------------------------- 4.3.2.3 stability tokens


def test_token_function_changes_remove_it() -> None:
    """4.3.2.3: Cameroon (EU, stabilized) loses its token when the US uncontrols it; Venezuela
    (Russia, stabilized) keeps it after China's coup; Argentina (US, destabilized) keeps it."""
    s = blank()
    give(s, "EU", "cameroon")
    O.place_token(s, cid("cameroon"), BLUE)
    assert O.pos_cost(s, US, cid("cameroon")) == (2, False)
    O.set_control(s, cid("cameroon"), -1)
    assert s.token[cid("cameroon")] == 0
    give(s, "Russia", "venezuela")
    O.place_token(s, cid("venezuela"), RED)
    O.do_coup(s, CHINA, cid("venezuela"))
    assert s.token[cid("venezuela")] == RED + 1
    give(s, "US", "argentina")
    O.place_token(s, cid("argentina"), RED)
    O.set_control(s, cid("argentina"), -1)
    assert s.token[cid("argentina")] == RED + 1


def test_token_costs_and_targets() -> None:
    """4.3.2.3 examples: destabilizing cuts the own bloc's cost by 1, stabilizing adds 1 for the rival bloc."""
    s = blank()
    O.place_token(s, cid("bulgaria"), BLUE)
    assert O.pos_cost(s, EU, cid("bulgaria")) == (1, True)
    assert O.pos_cost(s, RUSSIA, cid("bulgaria")) == (2, False)
    give(s, "US", "yemen")
    O.place_token(s, cid("yemen"), BLUE)
    assert O.pos_cost(s, RUSSIA, cid("yemen"))[0] == 2
    give(s, "Russia", "mozambique", "zimbabwe")
    O.place_token(s, cid("zimbabwe"), RED)
    assert O.token_action(s, US, cid("mozambique")) == "place"
    assert O.token_action(s, US, cid("botswana")) == "place"
    assert O.token_action(s, US, cid("zimbabwe")) == "remove"
    assert O.token_action(s, US, cid("ecuador")) is None


# ---------------------------------------------------------------- 4.3.2.4 / 4.3.2.5 prestige and media


def test_prestige_costs_and_extremes() -> None:
    """4.3.2.4: 2 OPs in -3..3, 3 at the extremes; past +5 gives +2 VPs; turn 9 gives ±2 VPs a step."""
    s = blank()
    s.prestige[EU] = 1
    assert O.prestige_cost(s, EU) == 2
    s.prestige[EU] = 4
    assert O.prestige_cost(s, EU) == 3
    s.prestige[EU], vp = 5, s.vp[EU]
    O.change_prestige(s, EU, 1)
    assert s.prestige[EU] == 5 and s.vp[EU] == vp + 2
    s.turn = 9
    O.change_prestige(s, EU, -1)
    assert s.prestige[EU] == 4 and s.vp[EU] == vp


def test_media_reserve_cooperation() -> None:
    """4.3.2.5: US reserve with the EU marker placed shifts blue 2 -> 3; 3 OPs go 1 red -> 1 blue."""
    s = blank()
    s.media, s.media_box[EU] = 2, 1
    O.gain_media_reserve(s, US)
    assert s.media == 3 and s.media_box == [0, 0, 0, 0]
    s.media, s.media_box[EU] = -1, 1
    with_ops(s, US, 3)
    s = act(s, US, "media")
    assert "media" not in options(s, US)
    s = act(s, US, "media_reserve")
    assert s.media == 1


def test_negative_media_marker_cases() -> None:
    """4.3.2.5: a negative marker fills an empty box, cancels a reserve, or shifts the track."""
    s = blank()
    O.negative_media_marker(s, EU)
    assert s.media_box[EU] == -1
    O.gain_media_reserve(s, EU)
    assert s.media_box[EU] == 0
    O.gain_media_reserve(s, EU)
    O.negative_media_marker(s, EU)
    assert s.media_box[EU] == 0
    O.negative_media_marker(s, EU)
    O.negative_media_marker(s, EU)
    assert s.media_box[EU] == 0 and s.media == -1


def test_prestige_check_example() -> None:
    """4.4.1: media red 1; Russia gets -4 VPs (virtual -2), China 0, US/EU an OP reserve each, no leader."""
    s = blank()
    s.media = -1
    s.prestige = [1, 1, -1, -3]
    vp = s.vp[:]
    flow.prestige_check(s, flow.Ctx())
    assert s.vp[RUSSIA] == vp[RUSSIA] - 4
    assert s.vp[CHINA] == vp[CHINA]
    assert s.op_reserve[US] == 1 and s.op_reserve[EU] == 1
    assert s.vp[US] == vp[US] and s.vp[EU] == vp[EU]
    assert s.prestige == [1, 1, -1, -3]


def test_prestige_check_blue_three() -> None:
    """4.3.2.5: media blue 3 gives EU and US the next box (+4 and +9 VPs), markers unmoved."""
    s = blank()
    s.media = 3
    s.prestige = [3, 2, -1, -1]
    vp = s.vp[:]
    flow.prestige_check(s, flow.Ctx())
    assert s.vp[EU] == vp[EU] + 4
    assert s.vp[US] == vp[US] + 9 + 3
    assert s.prestige[:2] == [3, 2]


# ---------------------------------------------------------------- 2.1.2.1 / 4.4.2 regions, 2.1.3.2 subregions


def test_central_america_region_example() -> None:
    """2.1.2.1: the US (4 countries, 7 VPs) controls Central America over Russia (5 countries, 6 VPs)."""
    s = blank()
    give(s, "US", "mexico", "panama", "guatemala", "el_salvador")
    give(s, "Russia", "cuba", "haiti", "dominican_rep", "honduras", "nicaragua")
    cam = rid("CAM")
    assert O.region_vp(s, US, cam) == 7 and O.region_vp(s, RUSSIA, cam) == 6
    assert O.region_controller(s, cam) == US


def test_region_tie_means_no_control() -> None:
    """2.1.2.1: a VP tie with the minimum met by only one power gives no control."""
    s = blank()
    give(s, "Russia", "iran", "syria", "lebanon", "yemen")
    give(s, "US", "israel", "egypt", "jordan")
    mea = rid("MEA")
    assert O.region_vp(s, RUSSIA, mea) == 5 and O.region_vp(s, US, mea) == 3
    give(s, "US", "iraq")
    assert O.region_vp(s, US, mea) == 5
    assert O.region_controller(s, mea) == -1


def test_global_scoring_europe_and_central_america() -> None:
    """4.4.2: Europe EU +5 +4 reward, Russia +4, US +2; Central America Russia +5 +5, China +4, US +3, EU +2."""
    s = blank()
    give(s, "EU", "poland", "czech_rep", "slovakia", "romania", "bulgaria", "dominican_rep")
    give(
        s, "Russia", "caucasian_rep", "ukraine", "belarus", "cuba", "haiti", "honduras", "nicaragua"
    )
    give(s, "US", "turkey", "mexico")
    give(s, "China", "panama", "costa_rica")
    s.region_vp_mod[rid("CAM") * 4 + EU] = 1
    vp = s.vp[:]
    O.score_regions(s)
    assert s.vp[EU] - vp[EU] == 5 + 4 + 2
    assert s.vp[RUSSIA] - vp[RUSSIA] == 4 + 5 + 5
    assert s.vp[US] - vp[US] == 2 + 3
    assert s.vp[CHINA] - vp[CHINA] == 4


def test_media_benefit_panama_breaks_russian_control() -> None:
    """4.3.2.5: with blue 2 the US takes Panama (+1 POS), tying Central America at 5 VPs."""
    s = blank()
    give(s, "Russia", "cuba", "haiti", "honduras", "nicaragua")
    give(s, "US", "mexico")
    cam = rid("CAM")
    assert O.region_controller(s, cam) == RUSSIA
    s.media = 2
    s.push(Frame("deploy", seat=0))
    flow.media_benefits(s, flow.Ctx())
    assert s.stack[-1].seat == US
    assert "pos:panama" in options(s, US)
    s = act(s, US, "pos:panama")
    assert O.region_vp(s, US, cam) == 5 and O.region_controller(s, cam) == -1
    assert "remove:somalia" not in options(s, EU)


def test_maghreb_subregion_claim() -> None:
    """2.1.3.2: the EU controlling the Maghreb claims 3 VPs once; the marker is then flipped."""
    s = blank()
    give(s, "EU", "morocco", "algeria", "tunisia", "libya")
    vp = s.vp[EU]
    O.claim_subregions(s)
    assert s.vp[EU] == vp + 3
    O.claim_subregions(s)
    assert s.vp[EU] == vp + 3


def test_korean_peninsula_claim_china() -> None:
    """7.2 end of turn: China claims the Korean Peninsula for +4 VPs (19 -> 23)."""
    s = blank()
    give(s, "China", "dpr_korea", "south_korea")
    s.vp[CHINA] = 19
    O.claim_subregions(s)
    assert s.vp[CHINA] == 23


# ---------------------------------------------------------------- 4.3.1 order of play and 4.3.3 vetoes


def _round(s_plays: dict[int, Play]) -> list[int]:
    s = blank()
    s.vp = [20, 20, 20, 20]
    s.plays = [s_plays.get(p) for p in range(4)]
    order = []
    while (p := flow.next_play(s)) >= 0:
        order.append(p)
        s.order.append(p)
    return order


def test_order_of_play_example_one() -> None:
    """4.3.1: crisis first (Russia), then the US 2-OP event, the China 1-OP event, the EU OP card."""
    order = _round(
        {
            RUSSIA: Play(RUSSIA, 82, EVENT, order_value=0),
            US: Play(US, 31, EVENT, order_value=2),
            CHINA: Play(CHINA, 2, EVENT, order_value=1),
            EU: Play(EU, 113, OPS, order_value=2),
        }
    )
    assert order == [RUSSIA, US, CHINA, EU]


def test_order_of_play_example_two() -> None:
    """4.3.1: one event first; then the US 2+1 reserve card; the tie at 2 goes by 4.2 (EU before Russia)."""
    order = _round(
        {
            CHINA: Play(CHINA, 2, EVENT, order_value=1),
            US: Play(US, 31, OPS, reserve=True, order_value=3),
            EU: Play(EU, 98, OPS, order_value=2),
            RUSSIA: Play(RUSSIA, 64, OPS, order_value=2),
        }
    )
    assert order == [CHINA, US, EU, RUSSIA]


def test_veto_costs() -> None:
    """4.3.3: markers cost their value; the extra veto costs 1 less against China/EU cards only."""
    assert flow.veto_cost(114, "2") == 2
    assert flow.veto_cost(114, "extra") == 1
    assert flow.veto_cost(89, "extra") == 2
    assert flow.veto_cost(31, "unsc") == 0


def test_veto_marker_value_and_once_per_turn() -> None:
    """4.3.3: a 1-OP marker cannot veto a 2-OP card; one veto per player per turn."""
    s = blank()
    s.vetoes[CHINA] = 1
    assert flow.veto_markers(s, CHINA, 114) == []
    assert flow.veto_markers(s, CHINA, 7) == ["1"]
    s.vetoed_this_turn[CHINA] = True
    assert flow.veto_markers(s, CHINA, 7) == []


def test_tie_breaker_rule() -> None:
    """4.2: VP, then prestige, then media, then the initial order US, EU, China, Russia."""
    s = blank()
    s.vp = [20, 20, 20, 20]
    s.prestige = [0, 0, 0, 0]
    assert O.precedence(s) == [US, EU, CHINA, RUSSIA]
    s.media = -1
    assert O.precedence(s) == [CHINA, RUSSIA, US, EU]
    s.prestige[RUSSIA] = 1
    assert O.precedence(s)[0] == RUSSIA
    s.vp[EU] = 21
    assert O.precedence(s)[0] == EU


def test_ops_values_by_card_class() -> None:
    """2.2.1: rival negative cards give the lower value; rival wars the higher when the war happens."""
    s = blank()
    algerian = Play(RUSSIA, 116, OPS)
    assert flow.ops_value(s, algerian) == flow.card(116).ops_low
    assert flow.ops_value(s, Play(EU, 116, OPS)) == flow.card(116).ops
    balkan = Play(CHINA, 111, OPS, event_on=True)
    assert flow.ops_value(s, balkan) == 2
    assert flow.ops_value(s, Play(CHINA, 111, OPS, event_on=False)) == 1
    assert flow.ops_value(s, Play(RUSSIA, 116, OPS, reserve=True)) == flow.card(116).ops_low + 1


def test_war_event_not_playable_when_controlled() -> None:
    """2.2.1 war cards: the owner cannot play the event when it already controls the country."""
    s = blank()
    assert any(o.endswith("e") for o in _place_ids(s, EU, 111))
    give(s, "EU", "balkan_rep")
    assert not any(o.endswith("e") for o in _place_ids(s, EU, 111))
    assert not flow.forced_event(s, Play(CHINA, 111, OPS))


def _place_ids(s: object, p: int, n: int) -> list[str]:
    assert hasattr(s, "hands")
    s.hands[p] = [n]
    return [i for i, _ in flow.place_options(s, p) if i.startswith(str(n))]  # type: ignore[arg-type]


def test_crisis_cannot_be_exchanged_or_kept() -> None:
    """2.2.1: a crisis card is never exchangeable and must be played before the last card is left over."""
    s = blank()
    s.hands[EU] = [1, 114, 110, 7]
    assert 1 not in flow._exchangeable(s, EU)
    s.round = 2
    assert [i for i, _ in flow.place_options(s, EU)] == ["1e"]


def test_leftover_exchange_order() -> None:
    """2.1.5.1 d: the players behind on VPs, fewest first, then lower prestige, then lower media."""
    s = blank()
    s.vp = [30, 25, 25, 22]
    s.prestige = [0, 2, -1, 0]
    assert flow.leftover_order(s) == [RUSSIA, CHINA, EU]


def test_access_and_turn_five() -> None:
    """2.1.2.2: China starts in Asia/SEA only, never Europe; the EU in Europe/Africa; turn 5 opens AFR/SAM."""
    s = blank()
    assert O.has_access(s, CHINA, rid("ASI")) and not O.has_access(s, CHINA, rid("AFR"))
    assert O.has_access(s, EU, rid("AFR")) and not O.has_access(s, EU, rid("SAM"))
    assert all(O.has_access(s, US, r) for r in range(7))
    O.grant_access(s, CHINA, rid("EUR"))
    assert not O.has_access(s, CHINA, rid("EUR"))
    s.turn = 5
    s.phase = "turn_start"
    flow._phase_turn_start(s, flow.Ctx())
    assert O.has_access(s, CHINA, rid("AFR")) and O.has_access(s, EU, rid("SAM"))
    assert pid("US") == US
