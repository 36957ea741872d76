"""Card audit, session 19: every card's printed clauses against the engine.

The audit compared each card's text in `content/cards.yaml` (the 25 rulebook texts first)
with what `effects.py` does. The clauses below were not pinned by a test before; each test
quotes the card and the rule it checks. They passed when written: the audit found the
engine already right on them (see the session's report).
"""

from __future__ import annotations

from warroom.games.qmg_cw.state import NA, SOV, WEST

from .helpers import act, cid, give, kind, options, pass_reactions, pc, scenario, sp


def test_minuteman_may_discard_a_wmd_of_either_player_of_the_target_bloc() -> None:
    """Minuteman ICBM: "Discard a prepared enemy WMD card or 8 of one enemy player's draw
    deck cards": the first branch names the enemy Bloc's cards ("one enemy player's" only for
    the draw deck), so with the Soviets played by two teammates either one's WMD may go."""
    state = scenario(variant="6p", active=WEST)
    minuteman = cid("Minuteman ICBM")
    give(state, 0, "prepared", [minuteman])
    red, maroon = state.bloc_seats(SOV)
    kondensator, satan = cid("Kondensator Rocket Artillery"), cid("SS-18 Satan ICBM")
    give(state, red, "prepared", [kondensator])
    give(state, maroon, "prepared", [satan])
    state.vp = [10, 20, 10]
    state = act(state, 0, f"use:{minuteman}")
    state = act(state, 0, f"t:{SOV}")
    state = act(state, 0, "br:0")
    assert options(state, 0) == [f"w:{kondensator}", f"w:{satan}"]
    state = act(state, 0, f"w:{satan}")
    assert satan in state.seats[maroon].discard_up
    assert state.seats[red].prepared == [kondensator]


def test_mx_peacekeeper_deck_shortfall_costs_a_vp_per_card() -> None:
    """MX Peacekeeper: "... or 9 of one enemy player's draw deck cards"; "If an enemy WMD card
    requires you to discard a card from your draw deck ... and you cannot, your Bloc
    immediately loses 1 Victory Point for each card you are unable to discard"."""
    state = scenario(active=WEST)
    mx = cid("MX Peacekeeper")
    give(state, 1, "prepared", [mx])
    state.seats[0].deck = state.seats[0].deck[:4]
    state.vp = [10, 20, 10]
    state = act(state, 1, f"use:{mx}")
    state = act(state, 1, f"t:{SOV}")
    assert state.vp[WEST] == 10  # cost 10, the Soviets' level against the West 0
    state = act(state, 1, "br:1")
    assert state.seats[0].deck == [] and state.vp[SOV] == 10 - 5


def test_akula_on_an_enemy_turn_costs_nothing_and_stops_at_zero_vp() -> None:
    """Project 941 Akula (WMD, cost 0): "Use any time. ... or force one enemy to lose 4 VPs":
    usable by a Bloc with no VPs on the West's turn, and the West's VPs stop at 0 (the track
    starts at 0, ruling 12)."""
    state = scenario(active=WEST, step="action")
    akula = cid("Project 941 Akula")
    give(state, 0, "prepared", [akula])
    state.vp = [0, 3, 10]
    plan = cid("Alliance for Progress")
    give(state, 1, "hand", [plan])
    state = act(state, 1, f"play:{plan}")
    state = act(state, 1, "skip")
    assert kind(state) == "react" and f"use:{akula}" in options(state, 0)
    state = act(state, 0, f"use:{akula}")
    state = act(state, 0, f"t:{WEST}")
    state = act(state, 0, "br:1")
    assert state.vp == [0, 0, 10]


def test_seven_days_needs_germany_uncontested_by_any_enemy_piece() -> None:
    """Seven Days to the River Rhine: "Gain +4 VP if a Soviet Army occupies Germany
    uncontested"; "A space with pieces from two or three different Blocs is contested", an
    enemy Air Force included."""
    days = cid("Seven Days to the River Rhine")
    for extra, gain in (([], 4), ([("germany", "nationalist", "air")], 0)):
        state = scenario(pieces=[("germany", "soviet", "army"), *extra])
        give(state, 0, "espionage", [days])
        state.vp = [0, 0, 0]
        state = act(state, 0, f"use:{days}")
        assert state.vp[SOV] == gain


def test_perestroika_pays_for_three_armies_at_most() -> None:
    """Perestroika: "Gain +2 VP for each of up to 3 Soviet Armies you eliminate": after the
    third Army no more is offered."""
    spaces = ("moscow", "siberia", "urals", "ukraine")
    state = scenario(pieces=[(s, "soviet", "army") for s in spaces])
    card = cid("Perestroika")
    give(state, 0, "espionage", [card])
    state.vp = [0, 0, 0]
    state = act(state, 0, f"use:{card}")
    for space in spaces[:3]:
        state = act(state, 0, f"x:{pc(space, 'soviet', 'army')}")
    assert kind(state) == "begin" and state.vp[SOV] == 6
    assert state.pieces == [pc("ukraine", "soviet", "army")]


def test_berlin_airlift_answers_an_air_strike_one_space_from_germany_only() -> None:
    """Berlin Airlift: "Use when a Western Army in or adjacent to Germany is about to be
    removed": an Air Strike "eliminates" the Army in France (next to Germany) and the card
    saves it; a battle against the Army in Spain (two spaces away) does not offer it."""
    pieces = [("france", "western", "army"), ("germany", "soviet", "army")]
    state = scenario(pieces=[*pieces, ("germany", "soviet", "air")], step="air")
    air, airlift = cid("Air Power", 0, SOV), cid("Berlin Airlift")
    give(state, 0, "hand", [air])
    give(state, 1, "espionage", [airlift])
    state = act(state, 0, f"air:{air}")
    state = act(state, 0, f"st:{pc('france', 'western', 'army')}")
    assert options(state, 1) == [f"use:{airlift}", "pass"]
    state = act(state, 1, f"use:{airlift}")
    state = pass_reactions(state)
    assert pc("france", "western", "army") in state.pieces
    chain = [(s, "soviet", "army") for s in ("germany", "france", "spain")]
    state = scenario(pieces=[*chain, ("spain", "western", "army")], step="action")
    battle = cid("Land Battle", 0, SOV)
    give(state, 0, "hand", [battle])
    give(state, 1, "espionage", [airlift])
    state = act(state, 0, f"play:{battle}")
    state = act(state, 0, f"x:{pc('spain', 'western', 'army')}")
    assert options(state, 1) == ["pass"]


def test_b59_answers_a_built_navy_not_a_recruited_one() -> None:
    """The B-59 Submarine Incident: "Use when an enemy builds a Navy in the same space as a
    Soviet Navy"; "Pay careful attention to whether a card directs you to build or recruit":
    NATO's recruited Navy opens no B-59 window."""
    state = scenario(pieces=[("north_atlantic", "soviet", "navy")], active=WEST)
    b59, nato = cid("The B-59 Submarine Incident"), cid("NATO")
    give(state, 0, "espionage", [b59])
    give(state, 1, "prepared", [nato])
    give(state, 1, "hand", [cid("Build Army", n, WEST) for n in range(3)])
    state = act(state, 1, f"use:{nato}")
    for _ in range(3):
        state = act(state, 1, options(state, 1)[0])
    state = act(state, 1, f"p:1:{sp('north_atlantic')}")
    assert kind(state) == "begin" and state.level(WEST, SOV) == 0


def test_tyulpan_follows_a_build_not_a_recruit() -> None:
    """2S4 Tyulpan Mortar: "Use immediately after you build an Army": Korean War's "Recruit a
    Soviet Army in Korea" is no build, so the Mortar is not offered after it."""
    chain = [(s, "soviet", "army") for s in ("moscow", "siberia", "manchuria")]
    state = scenario(pieces=[*chain, ("korea", "western", "army")], step="action")
    war, mortar = cid("Korean War"), cid("2S4 Tyulpan Mortar")
    give(state, 0, "hand", [war])
    give(state, 0, "prepared", [mortar])
    state = act(state, 0, f"play:{war}")
    state = act(state, 0, f"p:0:{sp('korea')}")
    assert kind(state) == "fx_battle"
    assert f"use:{mortar}" not in options(state, 0)


def test_plo_never_recruits_beside_another_non_aligned_nationality() -> None:
    """Palestine Liberation Organization: "Recruit a Nationalist Army in the Middle East or
    eliminate an enemy Army in the Middle East"; "The Non-Aligned Bloc cannot have pieces from
    its different nationalities in the same space": with a Chinese Army there the recruit is
    ignored, the elimination still open."""
    pieces = [("middle_east", "chinese", "army"), ("middle_east", "western", "army")]
    state = scenario(pieces=pieces, active=NA)
    card = cid("Palestine Liberation Organization")
    give(state, 2, "espionage", [card])
    state = act(state, 2, f"use:{card}")
    assert options(state, 2) == ["br:0", "br:1"]
    assert options(act(state, 2, "br:0"), 2) == ["skip"]
    elim = act(state, 2, "br:1")
    assert options(elim, 2) == [f"x:{pc('middle_east', 'western', 'army')}", "skip"]


def test_opec_counts_every_nationalist_piece_kind_and_no_other_nationality() -> None:
    """OPEC: "Gain +2 VP for each Nationalist piece in or adjacent to the Middle East": an
    Army, an Air Force and a Navy next door count; a Chinese Army beside it does not."""
    state = scenario(
        pieces=[
            ("middle_east", "nationalist", "army"),
            ("middle_east", "nationalist", "air"),
            ("mediterranean", "nationalist", "navy"),
            ("caucasus", "chinese", "army"),
            ("sub_saharan_africa", "nationalist", "army"),
        ],
        active=NA,
    )
    card = cid("OPEC")
    give(state, 2, "espionage", [card])
    state.vp = [0, 0, 0]
    state = act(state, 2, f"use:{card}")
    assert state.vp[NA] == 6
