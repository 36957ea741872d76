"""The effect interpreter: each primitive on a small state, and every card play of the
rulebook's tutorials (7.1, 7.2) and examples with its stated outcome."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from warroom.games.ncw import effects, flow
from warroom.games.ncw import ops as board
from warroom.games.ncw.content import REGION_IDS, tables
from warroom.games.ncw.state import (
    BLUE,
    CHINA,
    EU,
    NOBODY,
    OPF_CONTROL_ONLY,
    RED,
    RUSSIA,
    US,
    VETO_UNSC,
    NcwState,
)


def C(name: str) -> int:
    return tables().country_index[name]


def R(region: str) -> int:
    return REGION_IDS.index(region)


def fresh(**control: int) -> NcwState:
    s = flow.new_state(7, "4p")
    s.stack.clear()
    s.turn = 1
    for name, power in control.items():
        s.control[C(name)] = power
    return s


def play(
    s: NcwState, card: int, owner: int, player: int | None = None, picks: Sequence[str] = ()
) -> None:
    """Resolve card's event, answering its choices with `picks` in order (all must be used)."""
    effects.resolve_event(s, card, owner, owner if player is None else player)
    answers = list(picks)
    while s.stack and s.stack[-1].kind.startswith("fx:"):
        frame = s.stack[-1]
        legal = [o for o, _ in effects.frame_options(s, frame)]
        answer = answers.pop(0)
        assert answer in legal, (answer, legal)
        effects.apply_frame(s, frame, answer)
    assert not answers, f"unused picks {answers}"


def owned(s: NcwState, p: int) -> set[str]:
    return {tables().countries[c].id for c, ctrl in enumerate(s.control) if ctrl == p}


# ---------------------------------------------------------------- 7.1 turn 1 tutorial


def test_tutorial_7_1_round_1() -> None:
    s = fresh(
        dpr_korea=CHINA,
        laos=CHINA,
        poland=EU,
        slovakia=EU,
        algeria=EU,
        cuba=RUSSIA,
        caucasian_rep=RUSSIA,
        syria=RUSSIA,
        vietnam=RUSSIA,
        panama=US,
        colombia=US,
        south_korea=US,
    )
    # 1. Tiananmen Square Massacre (EU plays China's crisis): China -2 prestige, media 1 blue, 20 -> 18
    play(s, 1, CHINA, EU)
    assert (s.prestige[CHINA], s.media, s.vp[CHINA]) == (-3, 1, 18)
    # 2. Atlanta 1996: US prestige 2 -> 3 and its media reserve marker
    play(s, 31, US)
    assert s.prestige[US] == 3 and s.media_box[US] == 1 and s.media == 1
    # 3. War Lords: OPs in Africa, handed to the core's "ops" step
    play(s, 64, RUSSIA)
    frame = s.stack[-1]
    assert (frame.kind, frame.seat, frame.ops) == ("ops", RUSSIA, 4)
    assert set(frame.scope) == set(tables().region_countries[R("AFR")])
    for name in ("libya", "congo", "ethiopia", "somalia"):
        board.apply_ops_option(s, s.stack[-1], f"pos:{name}")
    assert {"libya", "congo", "ethiopia", "somalia"} <= owned(s, RUSSIA) and not s.stack
    # 4. Suharto (China plays the US card for OPs): US takes Indonesia, +1 VP modifier in SEA
    play(s, 33, US, CHINA)
    assert s.control[C("indonesia")] == US
    assert s.region_vp_mod[R("SEA") * 4 + US] == 1


def test_tutorial_7_1_round_2() -> None:
    s = fresh(poland=EU, slovakia=EU, indonesia=US, vietnam=RUSSIA)
    s.vp[CHINA] = 18
    s.media = 1
    # 1. Schengen Area: the EU destabilizes Bulgaria and Romania (uncontrolled) with blue tokens
    play(s, 110, EU, picks=["pick:bulgaria", "pick:romania"])
    assert s.token[C("bulgaria")] == s.token[C("romania")] == BLUE + 1
    assert board.pos_cost(s, EU, C("romania"))[0] == 1
    # 2. 1997 Asian Financial Crisis (Russia plays China's card): China 18 -> 20, Indonesia uncontrolled
    effects.resolve_event(s, 5, CHINA, RUSSIA)
    assert s.vp[CHINA] == 20
    frame = s.stack[-1]
    assert [o for o, _ in effects.frame_options(s, frame)] == ["pick:indonesia"]
    effects.apply_frame(s, frame, "pick:indonesia")
    assert s.control[C("indonesia")] == NOBODY and not s.stack
    # 4. Balkan Wars (China plays the EU war card on the uncontrolled Balkan Rep.)
    assert effects.war_happens(s, 111) and flow.event_playable(s, 111, CHINA)
    play(s, 111, EU, CHINA)
    assert s.control[C("balkan_rep")] == EU and s.vp[EU] == 22 and s.media == 0


def test_tutorial_7_1_round_3() -> None:
    s = fresh(algeria=EU, pakistan=CHINA)
    s.vp[CHINA] = 19
    # 1. Algerian Civil War: the EU loses Algeria, destabilized, and gets a negative media marker
    play(s, 116, EU, RUSSIA)
    assert s.control[C("algeria")] == NOBODY
    assert s.token[C("algeria")] == RED + 1
    assert s.media_box[EU] == -1
    # 2. CIS: Russia takes Belarus and Kazakhstan
    play(s, 87, RUSSIA, CHINA)
    assert {"belarus", "kazakhstan"} <= owned(s, RUSSIA)
    # 4. India-Pakistan Nuclear Escalation: China (Pakistan) 19 -> 18; -1 VP marker on India
    play(s, 70, US)
    assert s.vp[CHINA] == 18 and s.country_vp_mod[C("india")] == -1
    s.control[C("india")] = NOBODY
    board.set_control(s, C("india"), RUSSIA)
    assert s.vp[RUSSIA] == 19 and s.country_vp_mod[C("india")] == 0


# ---------------------------------------------------------------- 7.2 turn 4 tutorial


def t4_state() -> NcwState:
    s = fresh()
    s.turn = 4
    s.vp = [24, 25, 21, 24]
    s.prestige = [2, 2, -1, -3]
    s.media = 2
    holdings = {
        EU: [
            "balkan_rep",
            "poland",
            "czech_rep",
            "slovakia",
            "bulgaria",
            "dominican_rep",
            "algeria",
            "mauritania",
            "mali",
            "niger",
            "chad",
            "sudan",
        ],
        US: [
            "turkey",
            "japan",
            "mexico",
            "peru",
            "israel",
            "iraq",
            "egypt",
            "jordan",
            "saudi_arabia",
        ],
        RUSSIA: [
            "caucasian_rep",
            "ukraine",
            "belarus",
            "kazakhstan",
            "brazil",
            "venezuela",
            "ecuador",
            "bolivia",
            "uruguay",
            "libya",
            "zimbabwe",
            "iran",
            "syria",
            "lebanon",
            "yemen",
        ],
        CHINA: [
            "india",
            "pakistan",
            "dpr_korea",
            "afghanistan",
            "bangladesh",
            "indonesia",
            "laos",
            "myanmar",
        ],
    }
    for p, names in holdings.items():
        for name in names:
            s.control[C(name)] = p
    s.access[EU] |= 1 << R("CAM")
    return s


def test_tutorial_7_2_round_1() -> None:
    s = t4_state()
    # 1. September 11 Attacks: US prestige 2 -> -1, 24 -> 22, Saudi Arabia destabilized, marker placed
    assert not flow.event_playable(s, 41, US)
    play(s, 39, US, EU)
    assert (s.prestige[US], s.vp[US]) == (-1, 22)
    assert board.destabilized_for(s, C("saudi_arabia"), RED)
    # the wars are on while either country is not the US's (Afghanistan is China's); had both
    # been under US control, the card could not have been played (7.2 round 3; docs/rulings.md)
    assert effects.permanent_active(s, "nine_eleven") and flow.event_playable(s, 41, US)
    s.control[C("afghanistan")] = US
    assert not flow.event_playable(s, 41, US)
    s.control[C("afghanistan")] = CHINA
    # 2. Investment Surge In Africa: access to Africa; Nigeria and Angola
    assert not board.has_access(s, CHINA, R("AFR"))
    play(s, 10, CHINA, picks=["pick:nigeria", "pick:angola"])
    assert board.has_access(s, CHINA, R("AFR")) and {"nigeria", "angola"} <= owned(s, CHINA)
    # 3. ASEAN Plus Three (Russia plays it for OPs): Japan, South Korea destabilized; China takes Cambodia
    effects.resolve_event(s, 6, CHINA, RUSSIA)
    assert board.destabilized_for(s, C("japan"), RED) and board.destabilized_for(
        s, C("south_korea"), RED
    )
    options = [o for o, _ in effects.frame_options(s, s.stack[-1])]
    assert {"pick:cambodia", "pick:malaysia", "pick:thailand"} <= set(options)
    assert "pick:indonesia" not in options  # China already holds it
    effects.apply_frame(s, s.stack[-1], "pick:cambodia")
    assert s.control[C("cambodia")] == CHINA
    # 4. Ibero-American Summit (US plays the EU card): EU takes Haiti, enters South America with Paraguay
    play(s, 114, EU, US, picks=["pick:haiti", "pick:paraguay"])
    assert {"haiti", "paraguay"} <= owned(s, EU) and board.has_access(s, EU, R("SAM"))


def test_tutorial_7_2_rounds_2_and_3() -> None:
    s = t4_state()
    s.control[C("nigeria")] = CHINA
    play(s, 75, US)  # Boko Haram: China loses Nigeria
    assert s.control[C("nigeria")] == NOBODY
    effects.place_permanent(s, "nine_eleven", US)
    s.vp[US] = 22
    s.media = 2
    play(s, 41, US)  # Afghanistan And Iraq Wars: both taken, 22 -> 24, media 2 -> 1 blue
    assert {"afghanistan", "iraq"} <= owned(s, US) and s.vp[US] == 24 and s.media == 1
    play(s, 35, US, CHINA)  # US Military Bases: Thailand, Malaysia, Honduras
    assert {"thailand", "malaysia", "honduras"} <= owned(s, US)
    play(s, 16, CHINA, EU)  # Uighur Conflict: media 1 -> 2 blue
    assert s.media == 2
    s.vp[EU] = 27
    play(s, 126, EU, RUSSIA)  # European Migration Crisis: media 2 -> 1 blue, EU 27 -> 26
    assert (s.media, s.vp[EU]) == (1, 26)


def test_war_card_does_not_happen_when_owner_holds_the_country() -> None:
    s = fresh(balkan_rep=EU)
    assert not effects.war_happens(s, 111) and not flow.event_playable(s, 111, EU)
    s = fresh(iraq=RUSSIA)
    assert effects.war_happens(s, 32)


# ---------------------------------------------------------------- examples in the rules text


def _first_options(s: NcwState, card: int, owner: int) -> list[str]:
    work = s.clone()
    effects.resolve_event(work, card, owner, owner)
    return [o for o, _ in effects.frame_options(work, work.stack[-1])] if work.stack else []


def test_corralito_leaves_the_destabilization_token() -> None:
    s = fresh(argentina=US)
    s.token[C("argentina")] = RED + 1
    play(s, 73, RUSSIA)
    assert s.control[C("argentina")] == NOBODY and s.token[C("argentina")] == RED + 1


def test_underground_great_wall_ignores_stability_tokens() -> None:
    s = fresh(cameroon=EU)
    s.token[C("cameroon")] = BLUE + 1
    assert "pick:cameroon" not in _first_options(s, 14, CHINA)  # Africa still locked for China
    board.grant_access(s, CHINA, R("AFR"))
    effects.resolve_event(s, 14, CHINA, CHINA)
    assert "pick:cameroon" in [o for o, _ in effects.frame_options(s, s.stack[-1])]
    effects.apply_frame(s, s.stack[-1], "pick:cameroon")
    assert s.control[C("cameroon")] == NOBODY


def test_coup_attempt_by_event_has_no_reward_and_no_coup_count() -> None:
    s = fresh(argentina=EU)
    play(s, 65, US, picks=["pick:argentina"])
    assert s.control[C("argentina")] == US and s.vp[US] == 20 and s.coups_left[US] == 3


def test_consensus_of_1992_and_tsai_ing_wen() -> None:
    s = fresh()
    play(s, 3, CHINA)
    assert board.blocked(s, US, C("taiwan"), by_ops=False) and not board.blocked(
        s, CHINA, C("taiwan")
    )
    effects.resolve_event(s, 69, US, US)  # Asian Tigers: Taiwan is no longer offered to the US
    assert "pick:taiwan" not in [o for o, _ in effects.frame_options(s, s.stack[-1])]
    s.stack.clear()
    play(s, 49, US)
    assert s.control[C("taiwan")] == US and not board.blocked(s, US, C("taiwan"))


def test_china_japan_relationship_blocks_china_only() -> None:
    s = fresh()
    play(s, 8, CHINA)
    assert board.blocked(s, CHINA, C("japan"), by_ops=False) and not board.blocked(
        s, US, C("japan")
    )
    assert s.vp[CHINA] == 22


def test_kurdish_conflict_turkey_loses_its_orbit() -> None:
    s = fresh()
    assert board.stability_for(s, C("turkey"), RED) == 3
    play(s, 59, RUSSIA)
    assert (
        board.orbit_owner(s, C("turkey")) == NOBODY
        and board.stability_for(s, C("turkey"), RED) == 2
    )


def test_farc_and_israeli_palestinian_permanent_destabilization() -> None:
    s = fresh(colombia=US)
    s.token[C("colombia")] = BLUE + 1
    play(s, 83, RUSSIA)
    assert s.token[C("colombia")] == 0 and board.destabilized_for(s, C("colombia"), RED)
    assert s.region_vp_mod_perm[R("SAM") * 4 + US] == -1
    assert board.token_action(s, US, C("colombia")) is None  # no blue token may go there
    play(s, 36, US)
    assert (
        board.destabilized_for(s, C("israel"), RED)
        and s.region_vp_mod_perm[R("MEA") * 4 + US] == -1
    )
    play(s, 50, US)  # Netanyahu lifts the (BS) modifier and blocks Iran and Syria for OPs this turn
    assert s.region_vp_mod_perm[R("MEA") * 4 + US] == 0
    assert board.blocked(s, RUSSIA, C("iran")) and not board.blocked(
        s, RUSSIA, C("iran"), by_ops=False
    )
    s.turn += 1
    assert not board.blocked(s, RUSSIA, C("iran"))


def test_peace_talks_blocks_a_chosen_region_for_ops_this_turn() -> None:
    s = fresh()
    play(s, 60, EU, picks=["region:MEA"])
    assert all(board.blocked(s, p, C("iraq")) for p in range(4))
    assert not board.blocked(s, US, C("iraq"), by_ops=False)


def test_sumatra_earthquake_blocks_opponents_then_hands_over_ops() -> None:
    s = fresh()
    play(s, 71, CHINA)
    assert board.blocked(s, US, C("thailand")) and not board.blocked(s, CHINA, C("thailand"))
    frame = s.stack[-1]
    assert frame.kind == "ops" and frame.ops == 2 and frame.flags & OPF_CONTROL_ONLY
    assert {tables().countries[c].id for c in frame.scope} == {
        "indonesia",
        "thailand",
        "malaysia",
        "myanmar",
    }


def test_chinese_dissent_freezes_chinas_tracks_this_turn_and_next() -> None:
    s = fresh()
    play(s, 18, CHINA)
    play(s, 9, CHINA)  # China In The WTO: +1 prestige is blocked
    assert s.prestige[CHINA] == -1 and effects.tracks_frozen(s, CHINA)
    s.turn = 2
    assert effects.tracks_frozen(s, CHINA)
    s.turn = 3
    play(s, 9, CHINA)
    assert s.prestige[CHINA] == 0


def test_unsc_presidency_gives_a_free_veto() -> None:
    s = fresh()
    s.vetoes[EU] = 0
    play(s, 61, EU)
    assert s.vetoes[EU] & VETO_UNSC and effects.permanent_active(s, "unsc_presidency")


def test_diplomatic_mission_choice_and_orange_band() -> None:
    s = fresh()
    assert not flow.event_playable(s, 62, US) and flow.event_playable(s, 62, EU)
    effects.resolve_event(s, 62, CHINA, CHINA)
    options = [o for o, _ in effects.frame_options(s, s.stack[-1])]
    assert set(options) == {"region:CAM", "region:SAM", "region:MEA", "region:AFR"}  # never Europe
    effects.apply_frame(s, s.stack[-1], "region:MEA")
    assert board.has_access(s, CHINA, R("MEA"))


def test_western_sanctions_block_gazprom_for_the_decade() -> None:
    s = fresh()
    s.turn = 7
    assert flow.event_playable(s, 103, RUSSIA)
    play(s, 102, RUSSIA)
    assert not flow.event_playable(s, 103, RUSSIA) and s.vp[RUSSIA] == 18
    s.turn = 10
    assert flow.event_playable(s, 103, RUSSIA)


def test_trump_enables_the_barrier() -> None:
    s = fresh()
    assert not flow.event_playable(s, 48, US)
    play(s, 47, US)
    assert flow.event_playable(s, 48, US)


# ---------------------------------------------------------------- primitives, one by one


def test_pos_moves_one_position() -> None:
    s = fresh(pakistan=RUSSIA)
    play(s, 13, CHINA, picks=["pick:pakistan", "pick:myanmar"])
    assert s.control[C("pakistan")] == NOBODY and s.control[C("myanmar")] == CHINA


def test_choice_branches() -> None:
    s = fresh()
    play(s, 56, RUSSIA, picks=["opt:1"])
    assert s.prestige[RUSSIA] == -1 and s.vp[RUSSIA] == 20
    play(s, 56, CHINA, picks=["opt:0"])
    assert s.vp[CHINA] == 23


def test_choose_powers_and_chosen_vp() -> None:
    s = fresh()
    play(s, 17, CHINA, picks=["power:EU", "power:Russia"])
    assert s.vp == [20, 21, 20, 21] and s.op_reserve[CHINA] == 1


def test_discard_a_crisis_card() -> None:
    s = fresh()
    s.hands[EU] = [81, 1, 110]
    effects.resolve_event(s, 81, EU, EU)
    options = [o for o, _ in effects.frame_options(s, s.stack[-1])]
    assert options == ["card:1", "pass"]
    effects.apply_frame(s, s.stack[-1], "card:1")
    assert s.hands[EU] == [81, 110] and 1 in s.removed and s.media == 1


def test_grant_access_on_pick_new_silk_road() -> None:
    s = fresh()
    effects.resolve_event(s, 23, CHINA, CHINA)
    assert "pick:iran" in [o for o, _ in effects.frame_options(s, s.stack[-1])]
    effects.apply_frame(s, s.stack[-1], "pick:iran")
    assert board.has_access(s, CHINA, R("MEA")) and s.control[C("iran")] == CHINA


def test_locked_regions_are_not_offered() -> None:
    s = fresh()
    effects.resolve_event(s, 24, CHINA, CHINA)  # Xi Jinping: South America is locked for China
    assert s.prestige[CHINA] == 0 and not s.stack


def test_stabilize_and_clear_tokens() -> None:
    s = fresh(kenya=EU, cameroon=EU)
    play(s, 63, EU, picks=["pick:cameroon", "pass"])
    assert s.token[C("cameroon")] == BLUE + 1 and s.token[C("kenya")] == 0
    s.token[C("iran")] = RED + 1
    play(s, 77, US)
    assert s.token[C("iran")] == 0 and s.prestige[US] == 3


def test_uncontrol_respects_controller_filter() -> None:
    s = fresh(ukraine=EU)
    play(s, 99, RUSSIA, US)  # Orange Revolution only hits Russian control
    assert s.control[C("ukraine")] == EU
    s = fresh(ukraine=RUSSIA)
    play(s, 99, RUSSIA, US)
    assert s.control[C("ukraine")] == NOBODY and board.destabilized_for(s, C("ukraine"), BLUE)


def test_negative_media_and_reserves() -> None:
    s = fresh()
    s.media_box[EU] = 1
    play(s, 116, EU)  # an EU media reserve is cancelled by a negative marker
    assert s.media_box[EU] == 0
    play(s, 4, CHINA)
    play(s, 93, RUSSIA)  # the ally's reserve completes the pair: media 1 toward red
    assert s.media == -1 and s.media_box[CHINA] == 0 and s.media_box[RUSSIA] == 0


def test_prestige_extreme_gives_vp() -> None:
    s = fresh()
    s.prestige[EU] = 5
    play(s, 122, EU)
    assert s.prestige[EU] == 5 and s.vp[EU] == 24


def test_kyoto_python_effect() -> None:
    s = fresh()
    play(s, 55, EU)
    assert s.prestige[EU] == 2 and s.prestige[US] == 1
    play(s, 55, US)
    assert s.prestige[US] == 2


def test_optional_picks_offer_pass_and_empty_steps_are_skipped() -> None:
    s = fresh(**dict.fromkeys(("senegal", "mali", "ivory_coast", "niger", "chad", "morocco"), US))
    play(s, 128, EU)  # Macron: nothing uncontrolled on its list, nothing to choose
    assert owned(s, EU) == set()


@pytest.mark.parametrize("number", sorted(effects.card(n).number for n in range(1, 136)))
def test_every_card_resolves_on_the_opening_board(number: int) -> None:
    s = fresh(
        dpr_korea=CHINA,
        laos=CHINA,
        poland=EU,
        slovakia=EU,
        algeria=EU,
        cuba=RUSSIA,
        caucasian_rep=RUSSIA,
        syria=RUSSIA,
        vietnam=RUSSIA,
        panama=US,
        colombia=US,
        south_korea=US,
    )
    s.hands = [[1, 39], [130, 2], [82, 5], [3, 4]]
    spec = effects.card(number)
    owner = (
        [US, EU, CHINA, RUSSIA][["US", "EU", "China", "Russia"].index(spec.power)]
        if spec.power
        else EU
    )
    effects.resolve_event(s, number, owner, owner)
    for _ in range(20):
        if not s.stack:
            break
        frame = s.stack[-1]
        if frame.kind == "ops":
            assert frame.ops > 0 and frame.scope
            break
        options = effects.frame_options(s, frame)
        assert options
        effects.apply_frame(s, frame, options[0][0])
    assert not s.stack or s.stack[-1].kind == "ops"
    assert all(-5 <= v <= 5 for v in s.prestige) and -5 <= s.media <= 5
