"""Rulebook audit, session 19: each test states the rulebook sentence it checks and failed
before the fix it guards."""

from __future__ import annotations

from warroom.games.qmg_cw import views
from warroom.games.qmg_cw.effects import card
from warroom.games.qmg_cw.state import NA, SOV, WEST

from .helpers import RULES, act, cid, give, kind, options, pass_reactions, pc, scenario, sp

SOVIET_CHAIN = [
    ("moscow", "soviet", "army"),
    ("white_russia", "soviet", "army"),
    ("east_europe", "soviet", "army"),
]


def test_air_power_may_free_an_air_force_when_none_is_left() -> None:
    """ "if all are in play, no more are available to be built or recruited" and "At any time
    during your own Bloc's turn, you may remove your own Bloc's piece from the board (thereby
    making it available to be built or recruited)": with all 3 Soviet Air Forces on the
    board, the Air Power card may free one and build it beside the supplied Army in Ukraine
    (ruling 8: inside a build of the Bloc's own card whose kind has no piece left)."""
    airs = [("moscow", "soviet", "air"), ("white_russia", "soviet", "air")]
    airs.append(("east_europe", "soviet", "air"))
    state = scenario(
        "3p", pieces=[*SOVIET_CHAIN, ("ukraine", "soviet", "army"), *airs], active=SOV, step="air"
    )
    air_power = next(c for c in state.seats[SOV].deck if card(c).type == "air_power")
    give(state, SOV, "hand", [air_power])
    state = act(state, SOV, f"air:{air_power}")
    assert kind(state) == "fx_air_power"
    freed = pc("east_europe", "soviet", "air")
    assert f"free:{freed}" in options(state, SOV)
    state = act(state, SOV, f"free:{freed}")
    assert kind(state) == "fx_air_power" and freed not in state.pieces
    state = act(state, SOV, f"af:{sp('ukraine')}")
    assert pc("ukraine", "soviet", "air") in state.pieces


def test_air_power_offers_organic_supply_for_the_air_forces_army() -> None:
    """ "At any time during your own Bloc's turn, you may discard a card from hand to put an
    Army or Navy in supply" (ruling 7: in every build and battle decision of the Bloc's own
    card) and "Build Air Force - ... The Army or Navy must be in supply at the moment the
    Air Force is built": the cut-off Soviet Army in Korea is paid for inside the Air Power
    card, and the Air Force is then built with it."""
    state = scenario("3p", pieces=[*SOVIET_CHAIN, ("korea", "soviet", "army")], step="air")
    air_power = next(c for c in state.seats[SOV].deck if card(c).type == "air_power")
    give(state, SOV, "hand", [air_power, state.seats[SOV].deck[0]])
    state = act(state, SOV, f"air:{air_power}")
    korea = pc("korea", "soviet", "army")
    assert f"af:{sp('korea')}" not in options(state, SOV)
    state = act(state, SOV, f"organic:{korea}")
    state = act(state, SOV, f"d:{state.seats[SOV].hand[0]}")
    assert kind(state) == "fx_air_power"
    state = act(state, SOV, f"af:{sp('korea')}")
    assert pc("korea", "soviet", "air") in state.pieces


def test_organic_supply_may_make_an_interceptor_during_the_battle() -> None:
    """ "At any time during your own Bloc's turn, you may discard a card from hand to put an
    Army or Navy in supply" and "you may intercept the Air Defense by removing one of your
    own supplied Air Forces in the same or an adjacent space to the battle": when the West
    answers with Air Defense, the Soviets pay for their cut-off Navy in the North Atlantic,
    whose Air Force then intercepts, and the Western Army in Germany is removed."""
    west = pc("germany", "western", "army")
    pieces = [
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
        ("north_atlantic", "soviet", "navy"),
        ("north_atlantic", "soviet", "air"),
    ]
    state = scenario("3p", pieces=[*SOVIET_CHAIN, *pieces], active=SOV, step="action")
    battle = next(c for c in state.seats[SOV].deck if card(c).type == "land_battle")
    give(state, SOV, "hand", [battle, state.seats[SOV].deck[0]])
    state = act(state, SOV, f"play:{battle}")
    state = act(state, SOV, f"x:{west}")
    state = act(state, WEST, f"ad:{pc('france', 'western', 'air')}")
    assert kind(state) == "intercept"
    navy, air = pc("north_atlantic", "soviet", "navy"), pc("north_atlantic", "soviet", "air")
    assert f"ic:{air}" not in options(state, SOV)
    state = act(state, SOV, f"organic:{navy}")
    state = act(state, SOV, f"d:{state.seats[SOV].hand[0]}")
    assert kind(state) == "intercept"
    state = act(state, SOV, f"ic:{air}")
    if kind(state) == "defend":
        state = act(state, WEST, "pass")
    assert west not in state.pieces


def test_a_position_edited_after_apply_is_answered_afresh() -> None:
    """ "Use when a Western Army in or adjacent to Germany is about to be removed" (Berlin
    Airlift): a position set up by editing the state `apply` returned (the West's card put
    face down after the Soviets chose their target) is answered from that position, not from
    the options `apply` kept with it: the West may save its Army."""
    airlift = cid("Berlin Airlift")
    west = pc("germany", "western", "army")
    pieces = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    state = scenario("3p", pieces=pieces, active=SOV, step="action")
    battle = next(c for c in state.seats[SOV].deck if card(c).type == "land_battle")
    give(state, SOV, "hand", [battle])
    state = act(state, SOV, f"play:{battle}")
    state = act(state, SOV, f"x:{west}")
    assert kind(state) == "defend" and options(state, WEST) == ["pass"]
    state.seats[WEST].deck.remove(airlift)  # edited in place, not through `give`
    state.seats[WEST].espionage.append(airlift)
    assert f"use:{airlift}" in options(state, WEST)
    state = act(state, WEST, f"use:{airlift}")
    state = pass_reactions(state)
    assert west in state.pieces


def test_the_view_of_a_position_edited_in_place_shows_the_edit() -> None:
    """ "Other players may always know the number of cards in your hand" and "Face-up Status
    and WMD cards are of course known to all players": a view of a state edited in place after
    it was viewed shows the new hand count and the new face-up card, not the first view."""
    state = scenario("3p", pieces=SOVIET_CHAIN, active=SOV, step="action")
    before = views.view(state, WEST)
    assert before.seats[SOV].hand_count == 0
    wmd = next(c for c in state.seats[SOV].deck if card(c).type == "wmd")
    state.seats[SOV].deck.remove(wmd)
    state.seats[SOV].prepared.append(wmd)
    state.seats[SOV].hand.append(state.seats[SOV].deck.pop())
    after = views.view(state, WEST)
    assert after.seats[SOV].hand_count == 1
    assert list(after.seats[SOV].prepared) == [wmd]


def test_organic_supply_inside_a_recruit_lets_the_air_force_join_the_new_army() -> None:
    """ "an Air Force must be recruited in the same space as a supplied Army or Navy of the same
    nationality" and "At any time during your own Bloc's turn, you may discard a card from hand
    to put an Army or Navy in supply": Indo-Pakistani War recruits an Indian Army into India,
    contested by a Western Army (so out of supply: "An Army in a contested space with a Supply
    symbol must trace supply to a different Supply symbol"); the Non-Aligned Bloc pays for it
    and recruits the Indian Air Force with it."""
    war = cid("Indo-Pakistani War")
    state = scenario("3p", pieces=[("india", "western", "army")], active=NA, step="action")
    give(state, NA, "hand", [war, state.seats[NA].deck[0]])
    state = act(state, NA, f"play:{war}")
    state = act(state, NA, f"p:0:{sp('india')}")
    army = pc("india", "indian", "army")
    assert kind(state) == "fx_recruit" and f"p:2:{sp('india')}" not in options(state, NA)
    state = act(state, NA, f"organic:{army}")
    state = act(state, NA, f"d:{state.seats[NA].hand[0]}")
    state = act(state, NA, f"p:2:{sp('india')}")
    assert pc("india", "indian", "air") in state.pieces


def test_akula_may_answer_a_wmd_as_soon_as_it_is_prepared() -> None:
    """Project 941 Akula: "Use any time. Discard a prepared enemy WMD card" (the Reaction
    Example: it "can be launched at any time"): when the West prepares Minuteman ICBM in its
    Action step, the Soviets may discard it at once, not only after some later card resolves."""
    akula, minuteman = cid("Project 941 Akula"), cid("Minuteman ICBM")
    state = scenario("3p", pieces=SOVIET_CHAIN, active=WEST, step="action")
    give(state, SOV, "prepared", [akula])
    give(state, WEST, "hand", [minuteman])
    state = act(state, WEST, f"prep:{minuteman}")
    # still the West's turn, straight after the preparation (its Supply step not begun)
    assert state.active == WEST and [f.kind for f in state.stack].count("supply") == 0
    assert kind(state) == "react" and f"use:{akula}" in options(state, SOV)
    state = act(state, SOV, f"use:{akula}")
    state = act(state, SOV, f"t:{WEST}")
    state = act(state, SOV, "br:0")
    state = act(state, SOV, f"w:{minuteman}")
    assert minuteman not in state.seats[WEST].prepared
    assert minuteman in state.seats[WEST].discard_up


def test_each_bloc_and_teammate_is_asked_by_the_position_when_its_turn_to_react_comes() -> None:
    """ "If more than one Bloc can react to a trigger, Blocs take turns reacting" and "Status,
    WMD, and Espionage cards are used at the discretion of the player of the card": who may
    react is read when the Bloc's turn to react comes. In a position edited in place while the
    West weighs its Polaris SLBM (6 players), the other Western player, now holding Trident
    SLBM, and the Non-Aligned player, now holding Project 596, are each asked in turn."""
    polaris, trident, bomb = cid("Polaris SLBM"), cid("Trident SLBM"), cid("Project 596")
    state = scenario("6p", pieces=SOVIET_CHAIN, active=SOV, step="action")
    state.vp = [10, 10, 10]
    soviet = state.bloc_seats(SOV)[0]
    west = next(s for s in state.bloc_seats(WEST) if polaris in state.seats[s].deck)
    mate = next(s for s in state.bloc_seats(WEST) if s != west)
    asian = next(s for s in state.bloc_seats(NA) if bomb in state.seats[s].deck)
    build = next(c for c in state.seats[soviet].deck if card(c).type == "build_army")
    give(state, soviet, "hand", [build])
    give(state, west, "prepared", [polaris])
    state = act(state, soviet, f"play:{build}")
    state = act(state, soviet, f"p:0:{sp('ukraine')}")
    assert kind(state) == "react" and options(state, west) == [f"use:{polaris}", "pass"]
    assert trident in state.seats[mate].deck  # the other Western deck
    state.seats[mate].deck.remove(trident)  # edited in place
    state.seats[mate].prepared.append(trident)
    state.seats[asian].deck.remove(bomb)
    state.seats[asian].prepared.append(bomb)
    state = act(state, west, "pass")
    assert kind(state) == "react" and f"use:{trident}" in options(state, mate)
    state = act(state, mate, "pass")
    assert kind(state) == "react" and f"use:{bomb}" in options(state, asian)


def test_a_step_with_nothing_to_decide_in_a_set_up_position_moves_on() -> None:
    """ "Supply step: Remove your out-of-supply pieces from the board", then the optional
    Discard and Espionage steps and "Draw step: You must draw until your hand has 7 cards": a
    position set up at the Soviet Supply step with every piece in supply and empty hands has
    nothing to decide there, so the turn runs on to the West's Begin Turn step."""
    state = scenario("3p", pieces=SOVIET_CHAIN, active=SOV, step="supply")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "begin" and decision.seats == (WEST,)
    state = act(state, WEST, "done")
    assert len(state.seats[SOV].hand) == 7
    assert state.active == WEST and kind(state) == "air"
    assert all(p in state.pieces for p in (pc(s, n, k) for s, n, k in SOVIET_CHAIN))


def test_an_any_time_card_may_be_used_before_the_scoring_phase() -> None:
    """Project 941 Akula: "Use any time. ... force one enemy to lose 4 VPs", and "There is a
    Scoring Phase after every even-numbered round": when round 2 ends with the Non-Aligned
    Bloc 20 VPs ahead of both others, the Soviets may use Akula before the Scoring Phase, and
    no Bloc then leads by 20 ("At the end of any Scoring Phase, if the Bloc in first place has
    at least 20 more VPs than the Bloc in last place, the game ends")."""
    akula = cid("Project 941 Akula")
    state = scenario("3p", active=NA, step="esp_step")
    state.round = 2
    state.vp = [10, 10, 30]
    give(state, SOV, "prepared", [akula])
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "react" and SOV in decision.seats
    state = act(state, SOV, f"use:{akula}")
    state = act(state, SOV, f"t:{NA}")
    state = act(state, SOV, "br:1")
    state = pass_reactions(state)
    assert not state.over and state.round == 3
    assert state.vp == [10, 10, 26]
