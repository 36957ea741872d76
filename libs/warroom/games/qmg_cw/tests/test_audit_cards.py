"""Rulebook audit, pass 5: each card's deciding words at their edges."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import NATS, tables
from warroom.games.qmg_cw.scoring import phase_points
from warroom.games.qmg_cw.state import NA, SOV, WEST, CwState

from .helpers import RULES, act, cid, give, kind, options, pass_reactions, pc, scenario, sp


def _builds(state_options: list[str]) -> set[str]:
    """The space ids of the build/recruit options offered."""
    t = tables()
    return {t.space_ids[int(o.split(":")[2])] for o in state_options if o.startswith("p:")}


def _wmd_victims(state: CwState, seat: int, name: str, target: int) -> list[str]:
    """Prepare and use a Begin Turn WMD against `target`: the pieces it may eliminate."""
    card = cid(name)
    give(state, seat, "prepared", [card])
    state.vp = [10, 10, 10]
    state = act(state, seat, f"use:{card}")
    state = act(state, seat, f"t:{target}")
    return [o for o in options(state, seat) if o.startswith("x:")]


def test_warsaw_pact_token_then_a_build_beside_a_supplied_soviet_piece() -> None:
    """Warsaw Pact: "Place a Soviet supply token in East Europe; then build an Army in or
    adjacent to East Europe." A build is still "adjacent to another supplied piece of the
    same nationality": the token alone does not open East Europe."""
    state = scenario(pieces=[("moscow", "soviet", "army")], step="action")
    card = cid("Warsaw Pact")
    give(state, 0, "hand", [card])
    state = act(state, 0, f"play:{card}")
    assert sp("east_europe") * 8 + 0 in state.tokens
    assert _builds(options(state, 0)) == {"white_russia", "ukraine"}
    pieces = [("moscow", "soviet", "army"), ("white_russia", "soviet", "army")]
    state = scenario(pieces=pieces, step="action")
    give(state, 0, "hand", [card])
    state = act(state, 0, f"play:{card}")
    assert "east_europe" in _builds(options(state, 0))


def test_red_army_reserves_needs_three_cards_once_per_turn() -> None:
    """Red Army Reserves: "Use once per turn in your Begin Turn step. Discard 3 cards from
    hand to recruit a Soviet Army in or adjacent to Moscow" ("You cannot use your own card
    that forces you to discard cards if you do not have enough cards to discard")."""
    state = scenario()
    card = cid("Red Army Reserves")
    give(state, 0, "prepared", [card])
    builds = [cid("Build Army", n, SOV) for n in range(6)]
    give(state, 0, "hand", builds[:2])
    assert f"use:{card}" not in options(state, 0)
    give(state, 0, "hand", builds[2:])
    state = act(state, 0, f"use:{card}")
    for _ in range(3):
        state = act(state, 0, options(state, 0)[0])
    assert kind(state) == "fx_recruit"
    ring = ["moscow", "white_russia", "ukraine", "caucasus", "urals", "siberia", "central_asia"]
    assert _builds(options(state, 0)) == set(ring)
    state = act(state, 0, f"p:0:{sp('moscow')}")
    state = pass_reactions(state)
    assert len(state.seats[0].hand) == 3 and f"use:{card}" not in options(state, 0)


def test_bandung_conference_counts_nationalist_pieces_in_or_next_to_indonesia() -> None:
    """Bandung Conference: "Gain +1 VP for each Nationalist piece in or adjacent to
    Indonesia": not a Chinese piece beside it, nor a Nationalist piece two spaces away."""
    state = scenario(
        pieces=[
            ("indonesia", "nationalist", "army"),
            ("indian_ocean", "nationalist", "navy"),
            ("south_china_sea", "chinese", "navy"),
            ("southeast_asia", "nationalist", "army"),
        ],
        active=NA,
        step="action",
    )
    card = cid("Bandung Conference")
    give(state, 2, "hand", [card])
    before = state.vp[NA]
    state = act(state, 2, f"play:{card}")
    assert state.vp[NA] == before + 2


def test_cambridge_five_short_hand_costs_no_vp() -> None:
    """Cambridge Five: "One enemy Bloc must discard 2 cards from hand": with one card it
    discards that one and loses nothing ("The above rule only applies to WMD cards!")."""
    state = scenario()
    card = cid("Cambridge Five")
    give(state, 0, "espionage", [card])
    give(state, 1, "hand", [cid("Build Army", 0, WEST)])
    state.vp = [10, 10, 10]
    state = act(state, 0, f"use:{card}")
    state = act(state, 0, f"t:{WEST}")
    state = act(state, 1, options(state, 1)[0])
    state = pass_reactions(state)
    assert state.seats[1].hand == [] and state.vp[WEST] == 10


def test_neutron_bomb_only_where_a_western_army_stands() -> None:
    """Neutron Bomb: "Eliminate an enemy Army in the same space as a Western Army"."""
    state = scenario(
        pieces=[
            ("germany", "western", "army"),
            ("germany", "soviet", "army"),
            ("east_europe", "soviet", "army"),
        ],
        active=WEST,
    )
    victims = _wmd_victims(state, 1, "Neutron Bomb", SOV)
    assert victims == [f"x:{pc('germany', 'soviet', 'army')}"]


def test_smiling_buddha_reaches_two_spaces_from_india_of_the_target_bloc() -> None:
    """Smiling Buddha: "Eliminate an enemy Bloc's Army or Navy within 2 spaces of India":
    the Middle East (two away) but not Turkey (three), and only the chosen Bloc's pieces."""
    state = scenario(
        pieces=[
            ("middle_east", "soviet", "army"),
            ("turkey", "soviet", "army"),
            ("afghanistan", "western", "army"),
            ("india", "indian", "army"),
        ],
        active=NA,
    )
    victims = _wmd_victims(state, 2, "Smiling Buddha", SOV)
    assert victims == [f"x:{pc('middle_east', 'soviet', 'army')}"]


def test_khmer_rouge_escalates_only_when_it_eliminates() -> None:
    """Khmer Rouge: "Recruit a Nationalist Army in Southeast Asia or eliminate (?) an enemy
    Army in Southeast Asia": the "?" counts only for the elimination."""
    pieces = [("southeast_asia", "soviet", "army")]
    card = cid("Khmer Rouge")
    state = scenario(pieces=pieces, active=NA)
    give(state, 2, "espionage", [card])
    state = act(state, 2, f"use:{card}")
    recruit = act(state, 2, options(state, 2)[0])
    recruit = act(recruit, 2, f"p:0:{sp('southeast_asia')}")
    assert recruit.level(NA, SOV) == 0
    assert pc("southeast_asia", "nationalist", "army") in recruit.pieces
    elim = act(state, 2, options(state, 2)[1])
    elim = act(elim, 2, f"x:{pc('southeast_asia', 'soviet', 'army')}")
    assert elim.level(NA, SOV) == 1


def test_iron_curtain_keeps_a_cut_off_soviet_army_in_supply() -> None:
    """Iron Curtain: "Soviet pieces in East Europe and White Russia are always in supply":
    it gives them no Supply symbol, so an Army in the Balkans beside them stays cut off (a
    line runs "to an uncontested space with a Supply symbol"; ruling 6)."""
    pieces = [("east_europe", "soviet", "army"), ("balkans", "soviet", "army")]
    state = scenario(pieces=pieces)
    east, balkans = pc("east_europe", "soviet", "army"), pc("balkans", "soviet", "army")
    assert not board.Supply(state).supplied(east)
    give(state, 0, "prepared", [cid("Iron Curtain")])
    supply = board.Supply(state)
    assert supply.supplied(east)
    assert not supply.supplied(balkans)


def test_comecon_needs_east_europe_uncontested() -> None:
    """Comecon: "gain +1 VP if East Europe is occupied by a Soviet Army uncontested"."""
    state = scenario(pieces=[("east_europe", "soviet", "army"), ("moscow", "soviet", "army")])
    base = phase_points(state)[SOV]
    give(state, 0, "prepared", [cid("Comecon")])
    assert phase_points(state)[SOV] == base + 1
    state.pieces = sorted([*state.pieces, pc("east_europe", "western", "army")])
    assert phase_points(state)[SOV] == base


def test_korean_war_with_an_army_in_korea_skips_the_recruit_and_battles() -> None:
    """Korean War: "Recruit a Soviet Army in Korea; then battle (?) in Korea." With a Soviet
    Army already there the recruit "is not recruited and that part of the card's text is
    ignored"; the battle still may be made, and its "?" counts then."""
    chain = [(s, "soviet", "army") for s in ("moscow", "siberia", "manchuria", "korea")]
    state = scenario(pieces=[*chain, ("korea", "western", "army")], step="action")
    card = cid("Korean War")
    give(state, 0, "hand", [card])
    state = act(state, 0, f"play:{card}")
    assert kind(state) == "fx_recruit" and not _builds(options(state, 0))
    state = act(state, 0, "skip")
    assert kind(state) == "fx_battle" and state.level(SOV, WEST) == 0
    state = act(state, 0, f"x:{pc('korea', 'western', 'army')}")
    assert state.level(SOV, WEST) == 1


def test_anzus_recruits_a_navy_at_sea_beside_australia() -> None:
    """ANZUS: "Recruit a Western Navy in or adjacent to Australia": the seas beside it."""
    state = scenario(active=WEST, step="action")
    card = cid("ANZUS")
    give(state, 1, "hand", [card])
    state = act(state, 1, f"play:{card}")
    assert _builds(options(state, 1)) == {"south_pacific", "indian_ocean"}


def test_cuban_revolution_with_no_token_left_still_recruits() -> None:
    """Cuban Revolution: "Place a Soviet supply token in Central America; then recruit an
    Army in Central America": with all 6 Soviet tokens on the board none is placed ("6
    Soviet Supply tokens"), and the recruit still happens."""
    state = scenario(step="action")
    others = ("east_europe", "balkans", "afghanistan", "southeast_asia", "korea", "turkey")
    state.tokens = sorted(sp(s) * 8 for s in others)
    card = cid("Cuban Revolution")
    give(state, 0, "hand", [card])
    state = act(state, 0, f"play:{card}")
    assert sp("central_america") * 8 not in state.tokens
    state = act(state, 0, f"p:0:{sp('central_america')}")
    assert pc("central_america", "soviet", "army") in state.pieces


def test_project_596_cost_is_cut_by_the_targets_escalation_only() -> None:
    """Project 596 (WMD, cost 4): "Use any time. Force one enemy to lose 4 VPs." "You cannot
    use a card if doing so would reduce your Bloc to negative Victory Points"; the cost "is
    reduced by the escalation level of the target Bloc against your Bloc"."""
    state = scenario(active=NA)
    card = cid("Project 596")
    give(state, 2, "prepared", [card])
    state.vp = [10, 10, 3]
    assert f"use:{card}" not in options(state, 2)
    state.esc[WEST * 3 + NA] = 1
    state = act(state, 2, f"use:{card}")
    assert options(state, 2) == [f"t:{WEST}"]
    state = act(state, 2, f"t:{WEST}")
    state = pass_reactions(state)
    assert state.vp[NA] == 0 and state.vp[WEST] == 6 and state.level(NA, WEST) == 2


def test_r12_dvina_within_two_spaces_and_berlin_airlift_answers_it() -> None:
    """R-12 Dvina IRBM (WMD, cost 3): "Eliminate an enemy Army within 2 spaces of East
    Europe": Germany and France, not the United Kingdom. Berlin Airlift ("Use when a Western
    Army in or adjacent to Germany is about to be removed") answers an elimination too; the
    cost and the symbol are paid anyway."""
    state = scenario(
        pieces=[
            ("germany", "western", "army"),
            ("france", "western", "army"),
            ("united_kingdom", "western", "army"),
        ]
    )
    airlift = cid("Berlin Airlift")
    give(state, 1, "espionage", [airlift])
    victims = _wmd_victims(state, 0, "R-12 Dvina IRBM", WEST)
    germany, france = pc("germany", "western", "army"), pc("france", "western", "army")
    assert sorted(victims) == sorted([f"x:{germany}", f"x:{france}"])
    state = scenario(pieces=[("germany", "western", "army")])
    give(state, 1, "espionage", [airlift])
    dvina = cid("R-12 Dvina IRBM")
    give(state, 0, "prepared", [dvina])
    state.vp = [10, 10, 10]
    state = act(act(state, 0, f"use:{dvina}"), 0, f"t:{WEST}")
    state = act(act(state, 0, f"x:{germany}"), 1, f"use:{airlift}")
    state = pass_reactions(state)
    assert germany in state.pieces and state.vp[SOV] == 7 and state.level(SOV, WEST) == 1


def test_cambridge_five_in_team_play_the_target_bloc_divides_the_discards() -> None:
    """Cambridge Five in team play: only its owner uses it ("Teammates cannot use each
    other's ... Espionage cards"); the target Bloc's two players "may divide up the discards
    as you see fit": one card each."""
    state = scenario(variant="6p", active=SOV)
    card = cid("Cambridge Five")
    give(state, 3, "espionage", [card])
    give(state, 0, "hand", state.seats[0].deck[:1])
    give(state, 1, "hand", state.seats[1].deck[:1])
    assert f"use:{card}" not in options(state, 2)
    state = act(act(state, 3, f"use:{card}"), 3, f"t:{WEST}")
    assert kind(state) == "pay" and options(state, 0) and options(state, 1)
    state = act(state, 0, options(state, 0)[0])
    state = act(state, 1, options(state, 1)[0])
    assert state.seats[0].hand == [] and state.seats[1].hand == []


def _recruit_beside(
    pieces: list[tuple[str, str, str]], bloc: int, played: str, spot: str, answer: int
) -> list[str]:
    """`bloc` plays `played` and recruits at `spot` ("kind:space"), the Soviets holding the
    prepared card `answer`: the Soviets' options next."""
    state = scenario(pieces=pieces, active=bloc, step="action")
    zone = "espionage" if tables().cards[answer].type == "espionage" else "prepared"
    give(state, 0, zone, [answer])
    card = cid(played)
    give(state, bloc, "hand", [card])
    state = act(act(state, bloc, f"play:{card}"), bloc, f"p:{spot}")
    return options(state, 0)


def test_a_recruited_navy_or_army_is_not_built() -> None:
    """ "Pay careful attention to whether a card directs you to build or recruit": The B-59
    Submarine Incident ("when an enemy builds a Navy in the same space as a Soviet Navy")
    and 2S4 Tyulpan Mortar ("immediately after you build an Army") do not answer a recruit
    (ANZUS recruits a Navy; Cuban Revolution recruits an Army)."""
    b59, tyulpan = cid("The B-59 Submarine Incident"), cid("2S4 Tyulpan Mortar")
    navy = [("indian_ocean", "soviet", "navy")]
    opts = _recruit_beside(navy, WEST, "ANZUS", f"1:{sp('indian_ocean')}", b59)
    assert f"use:{b59}" not in opts
    army = [("central_america", "western", "army")]
    opts = _recruit_beside(army, SOV, "Cuban Revolution", f"0:{sp('central_america')}", tyulpan)
    assert f"use:{tyulpan}" not in opts


def test_kgb_prepares_an_espionage_card_from_hand_with_no_extra_discard() -> None:
    """KGB: "Use once per turn in your Begin Turn step. Discard 3 cards from hand to prepare
    a Soviet Espionage card": the 3 cards are the cost; the Espionage card prepared costs no
    further discard ("When an Event or Espionage card directs you to prepare an Espionage
    card, you do not have to discard a card"); a WMD in hand is not offered."""
    state = scenario()
    kgb, spy, wmd = cid("KGB"), cid("Cambridge Five"), cid("Tsar Bomba")
    builds = [cid("Build Army", n, SOV) for n in range(3)]
    give(state, 0, "prepared", [kgb])
    give(state, 0, "hand", [*builds, spy, wmd])
    state = act(state, 0, f"use:{kgb}")
    for card in builds:
        state = act(state, 0, f"d:{card}")
    assert kind(state) == "fx_prepare"
    assert sorted(options(state, 0)) == sorted([f"prep:{spy}", "skip"])
    state = act(state, 0, f"prep:{spy}")
    assert state.seats[0].espionage == [spy] and state.seats[0].hand == [wmd]


def test_asean_lets_a_nationalist_army_be_built_in_its_spaces_only() -> None:
    """ASEAN: "Nationalist pieces in Indonesia, the Philippines and Southeast Asia are always
    in supply" - a Nationalist Army "Must still be in supply when built (which is generally
    achieved if the right Status card is in play)" and needs no Nationalist piece beside it:
    with ASEAN it may be built in those three spaces, nowhere else."""
    state = scenario(active=NA, step="action")
    nationalist = NATS.index("nationalist")
    build = next(c.id for c in tables().cards if c.type == "build_army" and c.nat == nationalist)
    give(state, 2, "hand", [build])
    assert not _builds(options(act(state, 2, f"play:{build}"), 2))
    give(state, 2, "prepared", [cid("ASEAN")])
    state = act(state, 2, f"play:{build}")
    assert _builds(options(state, 2)) == {"indonesia", "philippines", "southeast_asia"}


def test_red_army_reserves_in_team_play_its_owner_pays_from_its_own_hand() -> None:
    """Red Army Reserves in team play: "Discard 3 cards from hand" is its user's hand ("When
    the rules or a card specifies 'you' ... must discard, then that player must discard the
    cards"): with 2 cards it is not offered, whatever the teammate holds; with 3 only its
    owner pays."""
    state = scenario(variant="6p", active=SOV)
    card = cid("Red Army Reserves")
    owner = next(seat for seat in (2, 3) if card in state.seats[seat].deck)
    mate = 5 - owner
    give(state, owner, "prepared", [card])
    give(state, owner, "hand", state.seats[owner].deck[:2])
    give(state, mate, "hand", state.seats[mate].deck[:5])
    assert f"use:{card}" not in options(state, owner)
    give(state, owner, "hand", state.seats[owner].deck[:1])
    state = act(state, owner, f"use:{card}")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "pay" and decision.seats == (owner,)


def test_afghan_intervention_token_is_spoiled_by_the_enemy_it_battles() -> None:
    """Afghan Intervention: "Place a Soviet supply token in Afghanistan; then recruit an Army
    in Afghanistan; then battle (?) in Afghanistan." The enemy there contests the space,
    "spoiling the token's supply": the new Army battles only through a supply line (a Soviet
    Army in Central Asia) or by paying Organic Supply."""
    base = [("moscow", "soviet", "army"), ("afghanistan", "nationalist", "army")]
    card = cid("Afghan Intervention")
    enemy = pc("afghanistan", "nationalist", "army")
    own = pc("afghanistan", "soviet", "army")
    for extra, offered in (([("central_asia", "soviet", "army")], f"x:{enemy}"), ([], "")):
        state = scenario(pieces=[*base, *extra], step="action")
        give(state, 0, "hand", [card, cid("Build Army", 0, SOV)])
        state = act(act(state, 0, f"play:{card}"), 0, f"p:0:{sp('afghanistan')}")
        expected = [offered] if offered else [f"organic:{own}"]
        assert sp("afghanistan") * 8 in state.tokens
        assert [o for o in options(state, 0) if o != "skip"] == expected
