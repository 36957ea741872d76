"""Audit cases: one small position per rule, asserting what the rulebook's text says."""

from __future__ import annotations

from collections.abc import Callable

from warroom.games.ncw import effects, flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots import hooks, policy, variants
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import (
    BLUE,
    CHINA,
    EU,
    EVENT,
    OPF_RESERVE_DONE,
    OPS,
    RUSSIA,
    US,
    VETO_EXTRA,
    VETO_UNSC,
    Frame,
    NcwState,
    Play,
)
from warroom.games.ncw.tests.helpers import act, blank, cid, give, options, with_ops


def _check(s: NcwState) -> list[int]:
    """Run a prestige check on s (no decisions pending) and return each power's VP change."""
    s.stack.clear()
    before = s.vp[:]
    flow.prestige_check(s, flow.Ctx())
    return [s.vp[p] - before[p] for p in range(4)]


# ---------------------------------------------------------------- 4.4.1 prestige checks


def test_prestige_leader_bonus_goes_to_a_sole_leader_on_the_real_track() -> None:
    """4.4.1 step 3: "The player who leads the prestige track at the end of the check scores an
    additional +3 VPs. Effects of the media track ... are not applied to the Leader Bonus. If two
    players tie for the first position on the track, neither of them can claim the reward.\""""
    s = blank()
    s.prestige, s.media = [2, 0, 0, -2], 0
    assert _check(s) == [4 + 3, 0, 0, -4]
    s = blank()
    s.prestige, s.media = [2, 2, 0, -2], 0
    assert _check(s) == [4, 4, 0, -4]
    s = blank()
    s.prestige, s.media = [2, 0, 1, -2], -2
    # China counts as +2 (virtual), level with the US, but the bonus reads the real track
    gains = _check(s)
    assert gains[US] == 4 + 3 and gains[CHINA] == 4


def test_prestige_check_at_minus_five_pays_off_two_ops_of_own_control() -> None:
    """4.3.2.4: -5 gives "-8 VPs, -2 OPs"; the penalty "can be 'paid off' by a player removing
    their control of a country/countries"; with nothing controlled only the VPs are lost."""
    s = blank()
    s.prestige, s.media = [0, 0, -5, 0], 0
    assert _check(s)[CHINA] == -8 and not s.stack
    s = blank()
    s.prestige, s.media = [0, 0, -5, 0], 0
    give(s, "China", "laos", "cambodia", "myanmar")
    _check(s)
    assert s.stack and s.stack[-1].kind == "debt"
    assert set(options(s, CHINA)) == {"remove:laos", "remove:cambodia", "remove:myanmar"}
    s.stack.insert(0, Frame("deploy", seat=0))
    s = act(s, CHINA, "remove:laos")
    assert s.stack[-1].kind == "debt"
    s = act(s, CHINA, "remove:cambodia")
    assert s.stack[-1].kind != "debt"
    assert [s.control[cid(n)] for n in ("laos", "cambodia", "myanmar")] == [-1, -1, CHINA]


def test_prestige_box_one_gives_an_op_reserve_and_minus_one_a_negative_one() -> None:
    """4.3.2.4 table: +1 "+1 (MOP)", -1 "-1 (MOP)"; 4.3.2.6: a negative OP reserve on a box that
    already holds one "remains and the new token will have no effect"."""
    s = blank()
    s.prestige, s.media = [1, -1, -1, 0], 0
    s.op_reserve = [0, 0, -1, 1]
    _check(s)
    assert s.op_reserve == [1, -1, -1, 1]
    s = blank()
    s.op_reserve = [1, 0, -1, 0]
    for p in (US, CHINA):
        O.negative_op_reserve(s, p)
    assert s.op_reserve[US] == 0 and s.op_reserve[CHINA] == -1


# ---------------------------------------------------------------- 4.3.2.6 OP reserve


def test_op_reserve_on_an_ops_card_adds_one_up_to_four() -> None:
    """4.3.2.6: "OPs: The card will have a value of +1 OP, up to a maximum of 4 OPs"; "When
    playing a card with an OP Reserve on it, an additional OP reserve cannot be placed"."""
    s = blank()
    three = next(
        n
        for n, c in tables().cards.items()
        if c.ops == 3 and c.power == US and not c.negative and c.war < 0
    )
    play = Play(US, three, OPS, reserve=True)
    assert flow.ops_value(s, play) == 4
    s = with_ops(s, US, 3)
    s.stack[-1] = Frame("ops", seat=US, ops=3, flags=OPF_RESERVE_DONE)
    assert "reserve" not in options(s, US)


# ---------------------------------------------------------------- 3.2 decks


def test_turn_four_rebuild_keeps_turn_three_leftovers_and_drops_the_reserve() -> None:
    """3.2: at turn 4 the deck takes the undealt cards, the discard pile and the leftover pile of
    turns 1-2, "but not the leftover cards from game turn 3, which are instead used to build the
    new leftover pile"; 4.3.2.6: the OP reserve "cannot be kept across a change of decade";
    4.3.3: the extra veto is "to be used during the first decade (only)"."""
    s = blank()
    early, late = [110, 114], [31, 30]
    s.leftover = [*early, *late]
    s.leftover_split = len(early)
    s.discard = [87]
    s.deck = [64]
    s.op_reserve = [1, -1, 0, 1]
    s.turn = 4
    flow.rebuild_deck(s)
    assert s.leftover == late
    assert {110, 114, 87, 64} <= set(s.deck) and not set(late) & set(s.deck)
    assert s.discard == []
    assert s.op_reserve == [0, -1, 0, 0]
    assert not any(v & VETO_EXTRA for v in s.vetoes)


# ---------------------------------------------------------------- 5.1 / 5.2 victory


def _end(s: NcwState, turn: int) -> NcwState:
    s.turn = turn
    s.stack.clear()
    flow.end_of_turn(s, flow.Ctx())
    return s


def test_automatic_victory_ties_go_to_vp_then_prestige_then_media_then_joint() -> None:
    """5.1: "If more than one player meets this condition ...: 1. The player with the most victory
    points wins. 2. ... ahead on the prestige track ... 3. ... ahead on the media track ...
    4. ... the two players will be declared joint winners.\""""
    s = blank()
    s.declared = [[9, 10], [], [1, 2], []]
    s.vp = [30, 20, 31, 20]
    assert _end(s, 4).winners == (CHINA,)
    s = blank()
    s.declared = [[9, 10], [], [1, 2], []]
    s.vp, s.prestige = [30, 20, 30, 20], [1, 0, 2, 0]
    assert _end(s, 4).winners == (CHINA,)
    s = blank()
    s.declared = [[9, 10], [], [1, 2], []]
    s.vp, s.prestige, s.media = [30, 20, 30, 20], [2, 0, 2, 0], 1
    assert _end(s, 4).winners == (US,)
    s = blank()
    s.declared = [[9, 10], [], [1, 2], []]
    s.vp, s.prestige, s.media = [30, 20, 30, 20], [2, 0, 2, 0], 0
    assert _end(s, 4).winners == (US, CHINA)


def test_one_objective_or_turn_one_is_no_automatic_victory() -> None:
    """5.1: two objectives "by the end of turns 2 to 8"."""
    s = blank()
    s.declared = [[9], [], [], []]
    assert not _end(s, 4).over
    s = blank()
    s.declared = [[9, 10], [], [], []]
    assert not _end(s, 1).over


def test_turn_nine_is_won_on_vps_then_prestige_then_media_then_joint() -> None:
    """5.2: "At the end of turn 9, the player with the most victory points wins, regardless of the
    number of fulfilled objectives"; ties: prestige, media, joint winners."""
    s = blank()
    s.declared = [[9, 10], [], [], []]
    s.vp = [40, 41, 20, 20]
    assert _end(s, 9).winners == (EU,)
    s = blank()
    s.vp, s.prestige = [41, 41, 20, 20], [1, 2, 0, 0]
    assert _end(s, 9).winners == (EU,)
    s = blank()
    s.vp, s.prestige, s.media = [41, 20, 41, 20], [2, 0, 2, 0], -2
    assert _end(s, 9).winners == (CHINA,)
    s = blank()
    s.vp, s.prestige, s.media = [41, 41, 20, 20], [2, 2, 0, 0], 3
    assert _end(s, 9).winners == (US, EU)


# ---------------------------------------------------------------- 4.3.3 vetoes


def test_unsc_presidency_veto_has_no_cost_and_no_turn_restriction() -> None:
    """4.3.3: the Presidency veto is "without political cost (i.e. VPs) or turn restriction"."""
    s = blank()
    s.vetoes[CHINA] |= VETO_UNSC
    s.vetoed_this_turn[CHINA] = True
    assert flow.veto_markers(s, CHINA, 114) == ["unsc"]
    assert flow.veto_cost(114, "unsc") == 0


def test_crisis_cards_cannot_be_vetoed_and_a_reserve_does_not_raise_the_veto() -> None:
    """4.3.3: "Crisis cards and 4 OPs cards can never be vetoed"; "The veto is based on the OPs
    value of the card, so the OP reserve marker placed on top of the card has no effect for veto
    purposes" (Annexation of Crimea with a reserve: 4 OPs, vetoed at 3 for -3 VPs)."""
    cards = tables().cards
    s = blank()
    crisis = next(n for n, c in cards.items() if c.crisis)
    assert flow.veto_candidates(s, Play(US, crisis, EVENT)) == []
    three = next(n for n, c in cards.items() if c.ops == 3 and c.power == RUSSIA)
    play = Play(CHINA, three, OPS, reserve=True, order_value=4)
    assert EU in flow.veto_candidates(s, play)
    assert "3" in flow.veto_markers(s, EU, three) and "2" not in flow.veto_markers(s, EU, three)
    assert flow.veto_cost(three, "3") == 3


# ---------------------------------------------------------------- 4.3.2.5 media


def test_media_track_cannot_pass_five_and_offers_no_shift_there() -> None:
    """2.1.5.4: the marker "can move towards position 5 red or 5 blue"."""
    s = blank()
    s.media = 5
    with_ops(s, US, 2)
    assert "media" not in options(s, US)
    O.shift_media(s, 0, 1)
    assert s.media == 5


def test_coup_by_ops_is_refused_after_three_coups() -> None:
    """4.3.2.2: "Each power may conduct a maximum of three coups per turn using OPs"."""
    s = blank()
    give(s, "Russia", "lebanon")
    s.coups_left[US] = 0
    with_ops(s, US, 2)
    assert "coup:lebanon" not in options(s, US)
    assert "pos:lebanon" in options(s, US)


# ---------------------------------------------------------------- Annex III 18-Chinese Dissent


def test_chinese_dissent_withholds_the_prestige_check_media_reserve_marker() -> None:
    """Annex III, Chinese Dissent: "China cannot advance on (PC) and (MC) tracks in this turn and
    the next (not even through (MMP))"; (MMP) is the media reserve marker of prestige box 3
    (4.3.2.4). Its VPs and the other powers' markers are unaffected."""
    s = blank()
    s.prestige, s.media = [0, 0, 3, 3], 0
    s.flags["perm:chinese_dissent"] = s.turn + 1
    gains = _check(s)
    assert gains[CHINA] == 4 and s.media_box[CHINA] == 0
    assert s.media_box[RUSSIA] == 1
    s = blank()
    s.prestige, s.media = [0, 0, 3, 0], 0
    assert _check(s)[CHINA] == 4 + 3 and s.media_box[CHINA] == 1


def test_chinese_dissent_stops_the_china_bots_track_benefits() -> None:
    """Annex III, Chinese Dissent (above) against 6.2.2's turn-start benefits: "each bot
    automatically advances one position on the prestige track" and "receives a media reserve
    marker" are advances on the tracks; the frozen China bot gets neither, the others do."""
    s = blank()
    s.bots = (1 << CHINA) | (1 << EU)
    s.flags["difficulty"] = 2
    s.flags["perm:chinese_dissent"] = 6
    s.prestige = [0, 0, 0, 0]
    s.turn = 5
    hooks.on_turn_start(s)
    assert s.prestige[CHINA] == 0 and s.prestige[EU] == 1
    s.turn = 6
    hooks.on_turn_start(s)
    assert s.media_box[CHINA] == 0 and s.media_box[EU] == 1
    s.flags["perm:chinese_dissent"] = 0
    hooks.on_turn_start(s)
    assert s.media_box[CHINA] == 1


# ---------------------------------------------------------------- Annex IV bot choices


def _bot_choice(
    power: int,
    name: str,
    vp: list[int] | None = None,
    setup: Callable[[NcwState], None] | None = None,
) -> str:
    """The official bot's answer to the first choice of its event `name` (Annex IV)."""
    number = next(n for n, c in tables().cards.items() if c.name == name)
    s = blank()
    s.bots = 0b1111
    if vp is not None:
        s.vp = vp
    if setup is not None:
        setup(s)
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    effects.resolve_event(s, number, power, power)
    f = s.top()
    assert f is not None
    ids = [i for i, _ in effects.frame_options(s, f)]
    return policy.choose(s, power, ids, commit=False)


def test_bots_take_their_annex_iv_option_of_an_event_choice() -> None:
    """Annex IV: North Korea Nuclear Crisis is "Event: +3 VPs" for the China and US bots and
    "Event: +1 (PC)" for the Russia bot; Fake News is "Event: next global scoring" for China
    and Russia, "Event: always choose the following prestige check" for the EU and the US."""
    assert _bot_choice(RUSSIA, "North Korea Nuclear Crisis") == "opt:1"
    assert _bot_choice(US, "North Korea Nuclear Crisis") == "opt:0"
    assert _bot_choice(CHINA, "North Korea Nuclear Crisis") == "opt:0"
    assert _bot_choice(CHINA, "Fake News") == "opt:1"
    assert _bot_choice(RUSSIA, "Fake News") == "opt:1"
    assert _bot_choice(EU, "Fake News") == "opt:0"
    assert _bot_choice(US, "Fake News") == "opt:0"


def test_china_bot_gives_raw_material_shortage_to_the_lowest_vp_players() -> None:
    """Annex IV, China bot, Raw Material Shortage: "Choose the 2 players with the lowest VP"."""
    assert _bot_choice(CHINA, "Raw Material Shortage", [25, 21, 20, 22]) == "power:EU"
    assert _bot_choice(CHINA, "Raw Material Shortage", [19, 21, 20, 22]) == "power:US"


def test_eu_bot_plays_macron_for_ops_once_all_its_countries_are_controlled() -> None:
    """Annex IV, EU bot, Macron: "If all countries are controlled, it is played as OP"; 6.4: own
    cards are played "for their events", and "If none of the effects of an event can be
    implemented, the card is played for OPs"."""
    macron = next(n for n, c in tables().cards.items() if c.name == "Macron")
    listed = ("senegal", "mali", "ivory_coast", "niger", "chad", "morocco")
    s = blank()
    give(s, "Russia", *listed[:-1])
    assert variants.bot_play_mode(s, EU, macron) == EVENT
    give(s, "US", listed[-1])
    assert variants.bot_play_mode(s, EU, macron) == OPS


def test_china_bot_picks_annex_iv_countries_by_their_controller_first() -> None:
    """Annex IV, China bot: ASEAN Plus Three "Control opponents' countries: Indonesia, Malaysia,
    Thailand, Laos, Cambodia, Myanmar"; Xi Jinping "First, uncontrolled stability 2 countries:
    Uruguay, Paraguay, Peru, Ecuador, Bolivia"."""
    asean = _bot_choice(CHINA, "ASEAN Plus Three", setup=lambda s: give(s, "US", "malaysia"))
    assert asean == "pick:malaysia"
    assert _bot_choice(CHINA, "ASEAN Plus Three") == "pick:indonesia"

    def xi(s: NcwState) -> None:
        s.access[CHINA] = 0b1111111
        give(s, "US", "uruguay")

    assert _bot_choice(CHINA, "Xi Jinping", setup=xi) == "pick:paraguay"


def test_bot_uses_a_media_benefit_that_fake_news_grants() -> None:
    """Annex III, Fake News: at the chosen global scoring "-2 (MP) for the opposing bloc" (the
    marker unmoved); 4.3.2.5: positions 1-2 give the bloc its benefit; 6.7: the bot uses it in
    its first region without reinforced control, own ORBIT countries first. With the marker at
    0 and China's Fake News waiting, the China bot places influence in DPR Korea (its own ORBIT,
    first in its Asia table) instead of passing."""
    s = blank()
    s.bots = 0b1111
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    s.media = 0
    s.flags["perm:fake_news_scoring"] = 99
    s.flags["perm:fake_news_scoring:by"] = CHINA
    flow.media_benefits(s, flow.Ctx())
    f = s.top()
    assert f is not None and f.kind == "media_benefit" and f.seat == CHINA
    ids = [i for i, _ in flow.media_benefit_options(s, f)]
    assert policy.choose(s, CHINA, ids, commit=False) == "pos:dpr_korea"


def test_bots_open_their_annex_iv_region_with_diplomatic_mission() -> None:
    """Annex IV: Diplomatic Mission is "Event: 1st decade — Africa" for the China bot and
    "Event: 1st decade — South America" for the EU bot."""
    assert _bot_choice(CHINA, "Diplomatic Mission") == "region:AFR"
    assert _bot_choice(EU, "Diplomatic Mission") == "region:SAM"


def test_bot_plays_its_own_card_for_ops_when_no_effect_can_be_implemented() -> None:
    """6.4.1: "Bots always play their own cards for their events ... If none of the effects of
    an event can be implemented, the card is played for OPs." Handover Of Hong Kong (+1 POS in
    two of Malaysia, Thailand, Laos, Cambodia, Myanmar) with all five China's: OPs."""
    handover = next(n for n, c in tables().cards.items() if c.name == "Handover Of Hong Kong")
    s = blank()
    give(s, "China", "malaysia", "thailand", "laos", "cambodia")
    assert variants.bot_play_mode(s, CHINA, handover) == EVENT
    give(s, "China", "myanmar")
    assert variants.bot_play_mode(s, CHINA, handover) == OPS
    assert s.control[cid("myanmar")] == CHINA and not s.stack


# ---------------------------------------------------------------- 4.3.2.5 media benefits


def test_media_position_five_gives_two_pos_in_one_own_orbit_never_the_allys() -> None:
    """4.3.2.5: at position 5 the bloc's powers "can each choose to gain: +2 POS total in up to
    two of their own ORBIT countries of any stability (either one POS in two countries or two
    POS in the same country), or remove a rival's control"; "the options above can never be
    used in a country that is controlled by their allied power"."""
    s = blank()
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    s.media = -5
    give(s, "US", "cuba")
    give(s, "China", "nicaragua")
    flow.media_benefits(s, flow.Ctx())
    s = act(s, CHINA, "pass")
    assert s.top() is not None and s.top().seat == RUSSIA  # type: ignore[union-attr]
    ids = options(s, RUSSIA)
    assert "pos:cuba" in ids and "pos:nicaragua" not in ids and "remove:nicaragua" not in ids
    s = act(s, RUSSIA, "pos:cuba")
    assert s.control[cid("cuba")] == -1
    assert not any(i.startswith("remove:") for i in options(s, RUSSIA))
    s = act(s, RUSSIA, "pos:cuba")
    assert s.control[cid("cuba")] == RUSSIA
    assert s.top() is not None and s.top().kind == "deploy"  # type: ignore[union-attr]


# ---------------------------------------------------------------- 4.3.2.3 tokens after a move


def test_a_country_left_uncontrolled_by_a_card_may_be_destabilized_with_the_same_card() -> None:
    """4.3.2.3 bans only "control a country and then stabilize it with points from the same
    card"; destabilizing "In uncontrolled countries" is allowed. The US removes Russia's control
    of Jordan (2 OPs) and destabilizes it with the third OP; after taking Egypt (2 OPs) it may
    not stabilize Egypt with the same card."""
    s = blank()
    give(s, "Russia", "jordan")
    with_ops(s, US, 3)
    s = act(s, US, "pos:jordan")
    assert s.control[cid("jordan")] == -1
    ids = options(s, US)
    assert "token:jordan" in ids and "pos:jordan" not in ids and "coup:jordan" not in ids
    s = act(s, US, "token:jordan")
    assert s.token[cid("jordan")] == BLUE + 1
    s = blank()
    with_ops(s, US, 3)
    s = act(s, US, "pos:egypt")
    assert s.control[cid("egypt")] == US
    assert not any(i.endswith(":egypt") for i in options(s, US))


# ---------------------------------------------------------------- Annex III permanent tokens


def test_israel_takes_no_blue_token_and_is_cheaper_for_the_red_bloc() -> None:
    """Annex III, Israel-Palestinian Conflict: "Israel is treated as permanently destabilized in
    favor of the red bloc. A blue stability token cannot be placed on it for any reason.\""""
    s = blank()
    give(s, "US", "israel")
    israel = cid("israel")
    before = O.pos_cost(s, RUSSIA, israel)[0]
    effects.place_permanent(s, "israeli_palestinian", US)
    with_ops(s, US, 3)
    assert "token:israel" not in options(s, US)
    assert O.pos_cost(s, RUSSIA, israel)[0] == max(1, before - 1)


def test_a_coup_may_target_an_allys_country() -> None:
    """4.3.2.2: "Coups can be carried out against countries controlled by an ally.\""""
    s = blank()
    give(s, "EU", "lebanon")
    with_ops(s, US, 2)
    s = act(s, US, "coup:lebanon")
    assert s.control[cid("lebanon")] == US
