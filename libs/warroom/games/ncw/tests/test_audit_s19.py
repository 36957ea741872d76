"""Audit s19: one small position per rule, asserting what the rulebook's text says."""

from __future__ import annotations

from warroom.games.ncw import effects, flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots import policy
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import (
    BLUE,
    CHINA,
    EU,
    EVENT,
    NOBODY,
    OPS,
    RED,
    RUSSIA,
    US,
    Frame,
    NcwState,
    Play,
)
from warroom.games.ncw.tests.helpers import act, blank, cid, give, options, rid, with_ops


def _china_bot_pick(name: str, state: NcwState) -> str:
    """The China bot's answer to the first country choice of its own event `name`."""
    number = next(n for n, c in tables().cards.items() if c.name == name)
    state.bots = 0b1111
    state.stack.clear()
    state.push(Frame("deploy", seat=0))
    effects.resolve_event(state, number, CHINA, CHINA)
    frame = state.top()
    assert frame is not None and frame.kind == effects.FX_COUNTRY
    ids = [i for i, _ in effects.frame_options(state, frame)]
    return policy.choose(state, CHINA, ids, commit=False)


def test_china_bot_takes_stabilized_countries_first_with_underground_great_wall() -> None:
    """Annex IV, China bot: Underground Great Wall "Stability countries first, 2"; 4.3.2.3: "China
    plays the event 'Underground Great Wall' and chooses Cameroon, which is under EU control
    and, moreover, stabilized". With Cameroon EU-held and stabilized by a blue token, the bot's
    first pick is Cameroon (before, DPR Korea, the first stability-2 country of its Asia table);
    a country the red bloc has destabilized is no stabilized country."""
    s = blank()
    s.turn = 4
    s.access[CHINA] |= 1 << rid("AFR")
    give(s, "EU", "cameroon")
    O.place_token(s, cid("cameroon"), BLUE)
    give(s, "US", "kenya")
    O.place_token(s, cid("kenya"), RED)
    assert _china_bot_pick("Underground Great Wall", s) == "pick:cameroon"


def test_a_vetoed_event_card_plays_nothing_in_its_round_not_even_its_op_reserve() -> None:
    """4.3.3: "if a card has been played for its event and gets vetoed, the player will be unable
    to play during his round". The US plays Mubarak for its event with its OP reserve on it; the
    EU vetoes the event: the US spends no OP (before, the reserve's "then 1 OP can be played on
    any action" of 4.3.2.6 was still offered), and the reserve marker stays spent."""
    mubarak = next(n for n, c in tables().cards.items() if c.name == "Mubarak")
    s = blank()
    s.turn, s.round = 2, 0
    s.hands = [[mubarak], [], [], []]
    s.op_reserve[US] = 1
    s.stack.clear()
    s.phase, s.step = "place", 0
    flow.advance(s, flow.Ctx())
    s = act(s, US, f"{mubarak}er")
    top = s.top()
    assert top is not None and top.kind == "veto" and top.seat == EU
    s = act(s, EU, "veto:2")
    assert not any(f.kind == "ops" and f.seat == US for f in s.stack)
    assert s.op_reserve[US] == 0 and s.vp[EU] == 20 - 2
    # unvetoed, the event is executed "and then 1 OP can be played on any action" (4.3.2.6)
    s = blank()
    s.turn, s.round = 2, 0
    s.hands = [[mubarak], [], [], []]
    s.op_reserve[US] = 1
    s.stack.clear()
    s.phase, s.step = "place", 0
    flow.advance(s, flow.Ctx())
    s = act(s, US, f"{mubarak}er")
    while (top := s.top()) is not None and top.kind != "ops":
        s = act(s, top.seat, "pass" if top.kind == "veto" else options(s, top.seat)[0])
    assert top is not None and top.seat == US and top.ops == 1


def test_crisis_cards_resolve_among_themselves_by_the_tie_breaker_alone() -> None:
    """4.3.1: "Crisis cards (with no point value) are always played first. If two or more crisis
    cards are played in the same game round, they are resolved according to the tie breaker rule
    (see 4.2)." The EU's crisis card carries an OP reserve (6.6 example 7.B plays one so); the US
    leads on VPs, so its crisis card still resolves first (before, the reserve's +1 put the EU's
    first). Among other event cards a reserve still counts toward the order."""
    crises = sorted(n for n, c in tables().cards.items() if c.crisis)
    s = blank()
    s.vp = [22, 20, 20, 20]
    s.plays = [
        Play(US, crises[0], EVENT, False, order_value=0),
        Play(EU, crises[1], EVENT, True, order_value=1),
        None,
        None,
    ]
    assert flow.next_play(s) == US
    two = [n for n, c in tables().cards.items() if c.ops == 2 and not c.crisis and c.power < 0]
    s.plays = [
        Play(US, two[0], EVENT, False, order_value=2),
        Play(EU, two[1], EVENT, True, order_value=3),
        None,
        None,
    ]
    assert flow.next_play(s) == EU


def test_a_bot_follows_the_list_of_countries_on_its_card() -> None:
    """6.4: "Those event cards giving the bot instructions to change the control of specific
    countries by making +POS must follow the list of countries on the card (e.g. 21-China: New
    Arms Exporter)". China: New Arms Exporter lists Pakistan, Bangladesh, Myanmar, ...; with
    Asia under reinforced control the China bot's first pick is still Pakistan, the first listed
    (before, Myanmar: South East Asia, its first region without reinforced control, came first)."""
    s = blank()
    s.turn = 7
    give(s, "China", "dpr_korea", "india", "afghanistan", "kazakhstan", "taiwan")
    assert _china_bot_pick("China: New Arms Exporter", s) == "pick:pakistan"


# ---------------------------------------------------------------- worked examples (engine right)


def test_example_china_spends_three_ops_on_thailand_and_cambodia() -> None:
    """4.3.2.1: "China plays a card for its 3 OPs. It plays 2 OPs to control Thailand and 1 OP to
    control Cambodia. In another case, it instead plays 2 OPs to remove US control over Thailand
    (leaving the country uncontrolled) and 1 OP to control Cambodia." """
    for holder in (None, "US"):
        s = blank()
        if holder is not None:
            give(s, holder, "thailand")
        with_ops(s, CHINA, 3)
        s = act(s, CHINA, "pos:thailand")
        s = act(s, CHINA, "pos:cambodia")
        expected = CHINA if holder is None else NOBODY
        assert s.control[cid("thailand")] == expected and s.control[cid("cambodia")] == CHINA
        assert not any(f.kind == "ops" for f in s.stack)


def test_example_exercise_malabar_advances_the_eu_from_one_to_two() -> None:
    """4.3.2.4: "the EU decides to play the 2 OPs of the card 'Exercise Malabar' to increase their
    prestige. Its marker advances from position 1 to position 2." """
    s = blank()
    s.prestige[EU] = 1
    s = act(with_ops(s, EU, 2), EU, "prestige")
    assert s.prestige[EU] == 2 and not any(f.kind == "ops" for f in s.stack)


def test_example_china_moves_the_media_marker_from_blue_two_to_blue_one() -> None:
    """4.3.2.5: "China decides to play the 2 OPs on the media track. The marker was on the blue 2
    box and moves back to blue 1." """
    s = blank()
    s.media = 2
    s = act(with_ops(s, CHINA, 2), CHINA, "media")
    assert s.media == 1


def test_example_region_modifier_ties_russia_with_the_us() -> None:
    """2.3.2: "Russia dominates a region against the US by 7 VPs to 6 VPs, but Russia's -1 VP
    modifier causes a final tie at 6 VPs" (so neither controls it: 2.1.2.1). Europe: Russia holds
    Caucasian Rep. (GEO) and five other countries (7 VPs), the US Turkey (GEO) and four EU ORBIT
    countries (6 VPs: an ally's ORBIT adds nothing)."""
    s = blank()
    give(s, "Russia", "caucasian_rep", "ukraine", "belarus", "romania", "bulgaria", "baltic_rep")
    give(s, "US", "turkey", "poland", "hungary", "czech_rep", "slovakia")
    eur = rid("EUR")
    assert O.region_vps(s, eur)[RUSSIA] == 7 and O.region_vps(s, eur)[US] == 6
    assert O.region_controller(s, eur) == RUSSIA
    s.region_vp_mod[eur * 4 + RUSSIA] = -1
    assert O.region_vps(s, eur)[RUSSIA] == 6 and O.region_controller(s, eur) == NOBODY


def test_example_argentina_modifier_hits_the_next_power_to_control_it() -> None:
    """2.3.2: "Argentina was not controlled, so a negative VP modifier marker is placed on the
    country. The next power to control Argentina deducts the VP from its total and removes the
    marker." A controlled country's controller loses the VP at once."""
    s = blank()
    s.country_vp_mod[cid("argentina")] = -1
    s = act(with_ops(s, RUSSIA, 2), RUSSIA, "pos:argentina")
    assert s.vp[RUSSIA] == 19 and s.country_vp_mod[cid("argentina")] == 0


def test_example_russo_georgian_war_gives_two_ops_or_one() -> None:
    """2.2.1.2: "if the Caucasian Rep. is controlled by the EU, the war will take place, so the
    power that played the card receives 2 OPs and the war event is executed. If Russia already
    controls the Caucasian Rep., the war will not take place and the power playing the card only
    receives 1 OP." """
    war = next(n for n, c in tables().cards.items() if c.name == "Russo-Georgian War")
    s = blank()
    give(s, "EU", "caucasian_rep")
    play = Play(US, war, OPS)
    assert flow.forced_event(s, play)
    assert flow.ops_value(s, play._replace(event_on=True)) == 2
    give(s, "Russia", "caucasian_rep")
    assert not flow.forced_event(s, play)
    assert flow.ops_value(s, play) == 1


def test_example_veto_costs_of_the_un_security_council_section() -> None:
    """4.3.3: a negative Russian card (Chechen War, 2/1) played by the EU for its OPs gives "the
    lower OPs value", is vetoed with the 2-OP marker ("negative cards are always vetoed by the
    highest OPs value") and the EU "can still only play ... 1 OP"; the extra veto against an EU
    access card (1 OP) costs "0 VPs", against Mandela (Russia, 2 OPs) "as usual, i.e. 2 VPs";
    Russia's 3-OP veto of a US 3-OP event costs -3 VPs."""
    chechen = next(n for n, c in tables().cards.items() if c.name == "Chechen War")
    s = blank()
    assert flow.ops_value(s, Play(EU, chechen, OPS)) == 1
    assert "1" not in flow.veto_markers(s, RUSSIA, chechen)
    assert flow.veto_cost(chechen, "2") == 2
    san_jose = next(n for n, c in tables().cards.items() if c.name == "San Jose Dialogue")
    mandela = next(n for n, c in tables().cards.items() if c.name == "Mandela")
    assert flow.veto_cost(san_jose, "extra") == 0 and flow.veto_cost(mandela, "extra") == 2
    three = next(n for n, c in tables().cards.items() if c.power == US and c.ops == 3)
    assert flow.veto_cost(three, "3") == 3


def test_example_eu_media_benefit_removes_china_from_somalia() -> None:
    """4.3.2.5: "the EU player removes Chinese control in Somalia (a non-GEO stability 1 country)
    to prevent China from claiming the reward for control of the Horn of Africa subregion"
    (media marker at blue 2)."""
    s = blank()
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    give(s, "China", "somalia", "ethiopia", "kenya")
    s.media = 2
    flow.media_benefits(s, flow.Ctx())
    s = act(s, US, "pass")
    assert "remove:somalia" in options(s, EU) and "remove:kenya" not in options(s, EU)
    s = act(s, EU, "remove:somalia")
    O.claim_subregions(s)
    assert s.control[cid("somalia")] == NOBODY and CHINA not in s.subregion_claimed


def test_media_benefit_orbit_fallback_follows_the_table_order() -> None:
    """6.7: "If they cannot place or remove control in any of their three regions, they will
    place or remove control in those ORBIT countries based on the order of the following table"
    (Russia: Cuba, Libya, Kazakhstan, ...). With every country of its three regions its own, Cuba
    held by the US and Libya uncontrolled, the Russia bot removes the US from Cuba first (before,
    every uncontrolled ORBIT country of the table came before any held one: Libya)."""
    from warroom.games.ncw.bots.data import tables as bot_tables
    from warroom.games.ncw.bots.media import media_benefit_targets
    from warroom.games.ncw.tests.test_bot_flowchart import board

    russia = bot_tables().powers["Russia"]
    control = {c: "Russia" for table in russia.priority for c in table.names}
    control["Cuba"] = "US"
    moves = media_benefit_targets(board(control, media=-3), "Russia")
    assert moves[:2] == [("remove", "Cuba"), ("place", "Libya")]


def test_event_ops_in_a_region_follow_the_bots_priority_table() -> None:
    """6.4: OPs an event sets in "certain countries or regions (e.g. 43-Axis of Evil)" follow
    the flowchart's steps 1, 2 and 7; "If the card does not contain a list of countries, ...
    follow the priority table for that bot"; Annex IV, China bot: War Lords "Event: first control
    uncontrolled countries, then coup d'etats". With all of Africa uncontrolled the China bot's
    first action for War Lords' 4 OPs in Africa is Somalia, first in its Africa table (before,
    Angola, first of the table's countries in the order of the map file)."""
    war_lords = next(n for n, c in tables().cards.items() if c.name == "War Lords")
    s = blank()
    s.bots = 0b1111
    s.access[CHINA] |= 1 << rid("AFR")
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    effects.resolve_event(s, war_lords, CHINA, CHINA)
    frame = s.top()
    assert frame is not None and frame.kind == "ops" and frame.ops == 4
    ids = [o.id for o in flow.frame_option_objects(s, frame)[CHINA]]
    assert policy.choose(s, CHINA, ids, commit=False) == "pos:somalia"


def test_bots_read_turkeys_blue_rating_after_kurdish_conflict() -> None:
    """Annex III, Kurdish Conflict: "Turkey stops being a US ORBIT country for the rest of the
    game. When attempting to influence Turkey, red bloc powers should use the blue bloc stability
    rating from now on." The core prices Turkey at 2 for Russia; the bot's board read it at 3
    (the printed red rating) and so found no 2-OP move there, and no coup on a US-held Turkey."""
    from warroom.games.ncw.bots.adapter import board_of
    from warroom.games.ncw.bots.board import coup_cost
    from warroom.games.ncw.bots.flowchart import STEPS_EVENT_OPS, Action, Spend, plan

    s = blank()
    effects.place_permanent(s, "kurdish_conflict", RUSSIA)
    assert O.pos_cost(s, RUSSIA, cid("turkey"))[0] == 2
    spend = Spend(ops=2, steps=STEPS_EVENT_OPS, countries=("Turkey",))
    actions, _ = plan(board_of(s), "Russia", spend)
    assert actions == [Action("control", "1", 2, "Turkey", "EUR")]
    give(s, "US", "turkey")
    assert coup_cost(board_of(s), "Turkey", "Russia") == O.coup_cost(s, RUSSIA, cid("turkey")) == 4
