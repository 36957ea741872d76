"""The rulebook's worked examples as scenario tests (supply, build, Nationalist build,
reaction, WMD cost & escalation, Balance of Power, card examples)."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.scoring import balance_of_power
from warroom.games.qmg_cw.state import NA, SOV, WEST

from .helpers import act, cid, give, kind, options, pass_reactions, pc, scenario, sp


def test_supply_example_afghanistan() -> None:
    """A Soviet Army in contested Afghanistan is supplied through an uncontested line to Moscow."""
    state = scenario(
        pieces=[
            ("moscow", "soviet", "army"),
            ("central_asia", "soviet", "army"),
            ("afghanistan", "soviet", "army"),
            ("afghanistan", "western", "army"),
        ]
    )
    assert board.Supply(state).supplied(pc("afghanistan", "soviet", "army"))
    state.pieces.append(pc("central_asia", "western", "army"))
    state.pieces.sort()
    assert not board.Supply(state).supplied(pc("afghanistan", "soviet", "army"))


def test_contested_supply_symbol_needs_another_symbol() -> None:
    """An Army in a contested space with a Supply symbol must trace to a different symbol."""
    state = scenario(pieces=[("india", "indian", "army"), ("india", "western", "army")])
    assert not board.Supply(state).supplied(pc("india", "indian", "army"))
    state = scenario(pieces=[("india", "indian", "army")])
    assert board.Supply(state).supplied(pc("india", "indian", "army"))


def test_build_example_china_after_organic_supply() -> None:
    """Manchuria's Chinese Army is out of supply; after Organic Supply a Build Chinese Army
    may go to open China (a Supply symbol), never to Korea."""
    state = scenario(pieces=[("manchuria", "chinese", "army")], active=NA, step="action")
    build = cid("Build Army", 0, NA)
    assert state_card_nat(build) == "chinese"
    give(state, 2, "hand", [build, cid("OPEC")])
    manchuria = pc("manchuria", "chinese", "army")
    state = act(state, 2, "organic")
    assert options(state, 2) == [f"organic:{manchuria}", "cancel"]
    state = act(state, 2, f"organic:{manchuria}")
    state = act(state, 2, f"d:{cid('OPEC')}")
    assert manchuria in state.organic
    state = act(state, 2, f"play:{build}")
    assert kind(state) == "fx_build"
    offered = options(state, 2)
    assert f"p:0:{sp('china')}" in offered
    assert f"p:0:{sp('korea')}" not in offered


def test_build_without_supplied_neighbour_is_impossible() -> None:
    """Without the Army in Manchuria supplied there is nowhere to build."""
    state = scenario(pieces=[("manchuria", "chinese", "army")], active=NA, step="action")
    build = cid("Build Army", 0, NA)
    give(state, 2, "hand", [build])
    state = act(state, 2, f"play:{build}")
    assert options(state, 2) == ["skip"]


def state_card_nat(card_id: int) -> str:
    """A card's nationality name."""
    from warroom.games.qmg_cw.content import NATS, tables

    return NATS[tables().cards[card_id].nat]


def test_nationalist_build_example_anc() -> None:
    """With African National Congress prepared, a Nationalist Army may be built in Sub-Saharan
    Africa (always in supply) but not in Central America, Organic Supply or not."""
    state = scenario(pieces=[("south_america", "nationalist", "army")], active=NA, step="action")
    build = next(
        c for c in range(216) if state_card_nat(c) == "nationalist" and _type(c) == "build_army"
    )
    give(state, 2, "prepared", [cid("African National Congress")])
    give(state, 2, "hand", [build, cid("OPEC")])
    army = pc("south_america", "nationalist", "army")
    state = act(state, 2, "organic")
    state = act(state, 2, f"organic:{army}")
    state = act(state, 2, f"d:{cid('OPEC')}")
    state = act(state, 2, f"play:{build}")
    offered = options(state, 2)
    assert f"p:0:{sp('sub_saharan_africa')}" in offered
    assert f"p:0:{sp('central_america')}" not in offered
    assert f"p:0:{sp('china')}" not in offered


def _type(card_id: int) -> str:
    from warroom.games.qmg_cw.content import tables

    return tables().cards[card_id].type


def test_nationalists_stay_when_out_of_supply() -> None:
    """The Supply step removes out-of-supply pieces except Nationalist ones."""
    state = scenario(
        pieces=[
            ("balkans", "nationalist", "army"),
            ("korea", "chinese", "army"),
            ("china", "chinese", "army"),
        ],
        active=NA,
        step="supply",
    )
    assert options(state, 2) == ["done"]
    state = act(state, 2, "done")
    assert pc("korea", "chinese", "army") not in state.pieces
    assert pc("balkans", "nationalist", "army") in state.pieces
    assert pc("china", "chinese", "army") in state.pieces


def test_reaction_example_mx_peacekeeper_then_akula() -> None:
    """West uses MX Peacekeeper on Tyulpan and Kondensator; the Soviets react with Project 941
    Akula on Minuteman and cannot reach the MX Peacekeeper, already used."""
    state = scenario(active=WEST)
    akula, f_prog = cid("Project 941 Akula"), cid('"F" Chemical & Biological Warfare Programs')
    tyulpan, kondensator = cid("2S4 Tyulpan Mortar"), cid("Kondensator Rocket Artillery")
    minuteman, mx = cid("Minuteman ICBM"), cid("MX Peacekeeper")
    give(state, 0, "prepared", [akula, f_prog, tyulpan, kondensator])
    give(state, 1, "prepared", [minuteman, mx])
    state.vp = [5, 20, 0]
    state = act(state, 1, f"use:{mx}")
    state = act(state, 1, f"t:{SOV}")
    assert state.vp[WEST] == 10
    state = act(state, 1, "br:0")
    state = act(state, 1, f"w:{tyulpan}")
    state = act(state, 1, f"w:{kondensator}")
    assert kind(state) == "react"
    assert options(state, 0) == [f"use:{akula}", "pass"]
    state = act(state, 0, f"use:{akula}")
    state = act(state, 0, f"t:{WEST}")
    state = act(state, 0, "br:0")
    assert options(state, 0) == [f"w:{minuteman}"]
    state = act(state, 0, f"w:{minuteman}")
    state = pass_reactions(state)
    assert state.seats[0].prepared == [f_prog]
    assert state.seats[1].prepared == []
    assert {tyulpan, kondensator, akula} <= set(state.seats[0].discard_up)
    assert {mx, minuteman} <= set(state.seats[1].discard_up)
    assert kind(state) == "begin"


def test_wmd_cost_and_escalation_example_east_wind() -> None:
    """Non-Aligned at level 2 against the West, West at 1 against the Non-Aligned: East Wind
    costs 3 - 1 = 2 VPs and raises only the Non-Aligned level, to 3."""
    state = scenario(pieces=[("korea", "western", "army"), ("china", "chinese", "army")], active=NA)
    east_wind = cid("East Wind MRBM")
    give(state, 2, "prepared", [east_wind])
    give(
        state,
        1,
        "hand",
        [cid("Build Army", 0, WEST), cid("Build Army", 1, WEST), cid("Build Army", 2, WEST)],
    )
    state.esc[NA * 3 + WEST] = 2
    state.esc[WEST * 3 + NA] = 1
    state.vp = [0, 0, 10]
    state = act(state, 2, f"use:{east_wind}")
    state = act(state, 2, f"t:{WEST}")
    assert state.vp[NA] == 8
    assert state.level(NA, WEST) == 3
    assert state.level(WEST, NA) == 1
    korea = pc("korea", "western", "army")
    state = act(state, 2, f"x:{korea}")
    state = act(state, 1, "pass")
    assert korea not in state.pieces
    for _ in range(3):
        state = act(state, 1, options(state, 1)[0])
    assert state.seats[1].hand == []


def test_wmd_cannot_drive_vp_negative() -> None:
    """A WMD whose cost exceeds the Bloc's VPs cannot be used."""
    state = scenario(active=NA)
    east_wind = cid("East Wind MRBM")
    give(state, 2, "prepared", [east_wind])
    state.vp = [0, 0, 2]
    assert f"use:{east_wind}" not in options(state, 2)
    state.vp = [0, 0, 3]
    assert f"use:{east_wind}" in options(state, 2)


def test_balance_of_power_example() -> None:
    """Soviet 78, West 70, Non-Aligned 57: the West gives 2 VPs (68 and 59)."""
    assert balance_of_power([78, 70, 57]) == ([78, 68, 59], None)


def test_balance_of_power_impossible_calls_the_game() -> None:
    """When the second Bloc cannot close the gap without falling 20 behind, the leader wins."""
    vp, winner = balance_of_power([80, 62, 50])
    assert winner == 0
    assert vp == [80, 62, 50]


def test_balance_of_power_tied_leaders_give_equally() -> None:
    """Two tied leaders 20+ ahead both give the same number of VPs."""
    vp, winner = balance_of_power([10, 40, 40])
    assert winner is None
    assert vp[1] == vp[2] and vp[1] - vp[0] <= 19


def test_palestine_liberation_organization_eliminates_without_army() -> None:
    """Eliminate needs no friendly Army in the space (Battle vs. Eliminate)."""
    state = scenario(pieces=[("middle_east", "western", "army")], active=NA)
    plo = cid("Palestine Liberation Organization")
    give(state, 2, "espionage", [plo])
    state = act(state, 2, f"use:{plo}")
    state = act(state, 2, "br:1")
    army = pc("middle_east", "western", "army")
    state = act(state, 2, f"x:{army}")
    assert "ad:" not in " ".join(options(state, 1))
    state = act(state, 1, "pass")
    assert army not in state.pieces


def test_opec_counts_nationalist_pieces() -> None:
    """OPEC: +2 VP per Nationalist piece in or adjacent to the Middle East."""
    state = scenario(
        pieces=[
            ("middle_east", "nationalist", "army"),
            ("turkey", "nationalist", "army"),
            ("balkans", "nationalist", "army"),
        ],
        active=NA,
    )
    opec = cid("OPEC")
    give(state, 2, "espionage", [opec])
    state = act(state, 2, f"use:{opec}")
    state = pass_reactions(state)
    assert state.vp[NA] == 4


def test_perestroika_then_category_b_order_is_free() -> None:
    """Reactions to the Begin Turn step resolve one at a time in any order (Reactions)."""
    state = scenario(pieces=[("moscow", "soviet", "army"), ("white_russia", "soviet", "army")])
    cat_b, perestroika = cid("Category B and V Reserves Called Up"), cid("Perestroika")
    give(state, 0, "espionage", [cat_b, perestroika])
    state = act(state, 0, f"use:{cat_b}")
    state = act(state, 0, f"p:0:{sp('ukraine')}")
    state = pass_reactions(state)
    state = act(state, 0, f"use:{perestroika}")
    state = act(state, 0, f"x:{pc('ukraine', 'soviet', 'army')}")
    state = act(state, 0, "done")
    assert state.vp[SOV] == 2
    assert pc("ukraine", "soviet", "army") not in state.pieces


def test_build_example_new_army_in_china_is_in_supply() -> None:
    """Build example, stated outcome: "Since China has a Supply symbol, the new Army is
    immediately in supply" (the Manchuria Army paid for with Organic Supply first)."""
    state = scenario(pieces=[("manchuria", "chinese", "army")], active=NA, step="action")
    build = cid("Build Army", 0, NA)
    give(state, 2, "hand", [build, cid("OPEC")])
    manchuria = pc("manchuria", "chinese", "army")
    state = act(state, 2, "organic")
    state = act(state, 2, f"organic:{manchuria}")
    state = act(state, 2, f"d:{cid('OPEC')}")
    state = act(state, 2, f"play:{build}")
    state = act(state, 2, f"p:0:{sp('china')}")
    china = pc("china", "chinese", "army")
    assert china in state.pieces and board.Supply(state).supplied(china)


def test_build_example_without_manchuria_only_a_recruit_places_an_army() -> None:
    """Build example: "If China did not have an Army in Manchuria, there would be no way to
    build an Army. The Non-Aligned player would have to use a card that allowed it to
    recruit" (Korean Volunteers recruits a Chinese Army in Korea)."""
    state = scenario(active=NA, step="action")
    build, volunteers = cid("Build Army", 0, NA), cid("Korean Volunteers")
    give(state, 2, "hand", [build, volunteers])
    tried = act(state, 2, f"play:{build}")
    assert options(tried, 2) == ["skip"]
    state = act(state, 2, f"play:{volunteers}")
    state = act(state, 2, f"p:0:{sp('korea')}")
    assert pc("korea", "chinese", "army") in state.pieces


def test_nationalist_build_example_anc_builds_in_supply_and_scores() -> None:
    """Nationalist example, stated outcome: the Army built in Sub-Saharan Africa is in supply
    there (African National Congress), is not removed, and the card's Scoring Phase bonus
    (+1 VP with Sub-Saharan Africa held by a Nationalist Army uncontested) applies."""
    from warroom.games.qmg_cw.flow import Ctx
    from warroom.games.qmg_cw.scoring import scoring_phase

    state = scenario(pieces=[("south_america", "nationalist", "army")], active=NA, step="action")
    build = next(
        c for c in range(216) if state_card_nat(c) == "nationalist" and _type(c) == "build_army"
    )
    give(state, 2, "prepared", [cid("African National Congress")])
    give(state, 2, "hand", [build])
    state = act(state, 2, f"play:{build}")
    state = act(state, 2, f"p:0:{sp('sub_saharan_africa')}")
    army = pc("sub_saharan_africa", "nationalist", "army")
    assert army in state.pieces and board.Supply(state).supplied(army)
    before = state.vp[NA]
    scoring_phase(state, Ctx())
    # 2 Armies on the board + 1 ANC bonus (no printed symbol, no token there)
    assert state.vp[NA] - before == 3
