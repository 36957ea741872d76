"""Rulebook audit: each test states the rulebook sentence it checks."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import NATS
from warroom.games.qmg_cw.effects import card
from warroom.games.qmg_cw.scoring import phase_points
from warroom.games.qmg_cw.state import ARMY, NA, NATIONALIST, SOV, WEST, CwState
from warroom.games.qmg_cw.turn import REALLOC_TYPES as REALLOC

from .helpers import act, cid, give, kind, options, pass_reactions, pc, scenario, sp


def test_draw_step_with_more_than_seven_cards_draws_nothing() -> None:
    """ "You must draw until your hand has 7 cards ... If you have more than 7 cards, you do
    not need to discard": a player given an eighth card by its teammate draws none."""
    state = scenario("4p", pieces=[("india", "indian", "army")], active=NA, step="discard_step")
    mine, mate = state.bloc_seats(NA)
    give(state, mine, "hand", state.seats[mine].deck[:7])
    give(state, mate, "hand", state.seats[mate].deck[:7])
    deck = len(state.seats[mine].deck)
    state = act(state, mate, f"give:{state.seats[mate].hand[0]}")
    while kind(state) == "esp_step":
        seat = next(s for s in (mine, mate) if "pass" in options(state, s))
        state = act(state, seat, "pass")
    assert len(state.seats[mine].hand) == 8
    assert len(state.seats[mine].deck) == deck
    assert len(state.seats[mate].hand) == 7


SOVIET_CHAIN = [
    ("moscow", "soviet", "army"),
    ("white_russia", "soviet", "army"),
    ("east_europe", "soviet", "army"),
]


def _soviet_battle_in_germany(pieces: list[tuple[str, str, str]]) -> tuple[CwState, int]:
    """6 players: a Soviet teammate plays a Land Battle card against the Western Army in
    Germany; returns the position at the defence and the Soviet seat that played."""
    state = scenario("6p", pieces=[*SOVIET_CHAIN, *pieces], active=SOV, step="action")
    seat = state.bloc_seats(SOV)[0]
    battle = next(c for c in state.seats[seat].deck if card(c).type == "land_battle")
    give(state, seat, "hand", [battle])
    state = act(state, seat, f"play:{battle}")
    return act(state, seat, f"x:{pc('germany', 'western', 'army')}"), seat


def test_a_teammates_pass_does_not_forfeit_the_others_reaction_to_a_battle() -> None:
    """ "Status, WMD, and Espionage cards are used at the discretion of the player of the
    card": the Western teammate without Berlin Airlift lets the Army go, and the teammate
    holding it may still save the Army (6 players)."""
    airlift = cid("Berlin Airlift")
    state = scenario("6p")
    owner = next(s for s in state.bloc_seats(WEST) if airlift in state.seats[s].deck)
    mate = next(s for s in state.bloc_seats(WEST) if s != owner)
    pieces = [("germany", "soviet", "army"), ("germany", "western", "army")]
    state, _ = _soviet_battle_in_germany(pieces)
    give(state, owner, "espionage", [airlift])
    assert kind(state) == "defend"
    state = act(state, mate, "pass")
    west = pc("germany", "western", "army")
    assert west in state.pieces
    assert kind(state) == "defend" and f"use:{airlift}" in options(state, owner)
    state = act(state, owner, f"use:{airlift}")
    state = pass_reactions(state)
    assert west in state.pieces


def test_a_teammates_pass_does_not_forfeit_the_others_interceptor() -> None:
    """ "Either teammate on a Bloc may decide to use an Air Force in a battle": one Soviet
    teammate declines to intercept the Air Defense, the other intercepts and the Western
    Army is removed (6 players)."""
    pieces = [
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
        ("baltic_sea", "soviet", "navy"),
        ("baltic_sea", "soviet", "air"),
    ]
    state, seat = _soviet_battle_in_germany(pieces)
    mate = next(s for s in state.bloc_seats(SOV) if s != seat)
    west = pc("germany", "western", "army")
    state = act(state, state.bloc_seats(WEST)[0], f"ad:{pc('france', 'western', 'air')}")
    assert kind(state) == "intercept"
    state = act(state, mate, "pass")
    assert kind(state) == "intercept"
    state = act(state, seat, f"ic:{pc('baltic_sea', 'soviet', 'air')}")
    assert kind(state) == "defend"
    for s in state.bloc_seats(WEST):
        state = act(state, s, "pass")
    assert west not in state.pieces


def test_a_teammates_done_in_the_supply_step_leaves_organic_supply_to_the_other() -> None:
    """ "Either teammate on a Bloc can discard a card for Organic Supply (see Organic Supply,
    page 14) for any piece of that Bloc" and the Supply step is taken jointly: one Soviet
    teammate is done, the other still pays for the Army in Korea, which stays (6 players)."""
    state = scenario(
        "6p",
        pieces=[("moscow", "soviet", "army"), ("korea", "soviet", "army")],
        active=SOV,
        step="supply",
    )
    first, second = state.bloc_seats(SOV)
    for seat in (first, second):
        give(state, seat, "hand", state.seats[seat].deck[:2])
    korea = pc("korea", "soviet", "army")
    state = act(state, first, "done")
    assert kind(state) == "supply" and korea in state.pieces
    state = act(state, second, f"organic:{korea}")
    state = act(state, second, f"d:{state.seats[second].hand[0]}")
    if kind(state) == "supply":
        state = act(state, second, "done")
    assert korea in state.pieces


def test_berlin_airlift_saves_an_army_from_the_supply_step() -> None:
    """Berlin Airlift: "Use when a Western Army in or adjacent to Germany is about to be
    removed. This Army is not removed." The Supply step removes pieces too: the Western
    Army in East Europe, out of supply, stays when the West uses the card (3 players)."""
    airlift = cid("Berlin Airlift")
    state = scenario(pieces=[("east_europe", "western", "army")], active=WEST, step="supply")
    give(state, 1, "espionage", [airlift])
    give(state, 1, "hand", state.seats[1].deck[:1])
    army = pc("east_europe", "western", "army")
    state = act(state, 1, "done")
    assert kind(state) == "defend" and options(state, 1) == [f"use:{airlift}", "pass"]
    state = act(state, 1, f"use:{airlift}")
    state = pass_reactions(state)
    assert army in state.pieces
    assert airlift in state.seats[1].discard_up


def test_supply_step_asks_before_removing_only_where_a_card_could_apply() -> None:
    """An out-of-supply Western Army far from Germany goes at once; one next to Germany is
    "about to be removed" and the West (holding a face-down card) may react or let it go."""
    pieces = [("east_europe", "western", "army"), ("korea", "western", "army")]
    state = scenario(pieces=pieces, active=WEST, step="supply")
    give(state, 1, "espionage", [cid("Kennan Telegram")])
    give(state, 1, "hand", state.seats[1].deck[:1])
    state = act(state, 1, "done")
    assert pc("korea", "western", "army") not in state.pieces
    assert kind(state) == "defend" and options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert pc("east_europe", "western", "army") not in state.pieces


def test_a_teammates_eliminate_leaves_the_orphan_air_force_relocation_to_the_other() -> None:
    """ "If your Air Force ever finds itself in a space without an Army or Navy of the same
    nationality, you have a choice: either eliminate your Air Force, or discard a card from
    hand to relocate it": one Western teammate chooses to eliminate it, the other still pays
    a card and relocates it to France (6 players)."""
    pieces = [
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
        ("france", "western", "army"),
    ]
    state, _ = _soviet_battle_in_germany(pieces)
    first, second = state.bloc_seats(WEST)
    give(state, second, "hand", state.seats[second].deck[:1])
    for seat in (first, second):
        state = act(state, seat, "pass")
    assert kind(state) == "orphan"
    state = act(state, first, "elim")
    assert kind(state) == "orphan"
    state = act(state, second, f"reloc:{sp('france')}")
    state = act(state, second, f"d:{state.seats[second].hand[0]}")
    assert pc("france", "western", "air") in state.pieces
    assert pc("germany", "western", "air") not in state.pieces


def test_out_of_supply_air_force_rebases_but_makes_no_air_strike() -> None:
    """ "An out-of-supply Air Force cannot perform an air strike" and "An out-of-supply Air
    Force may be rebased": the Western Air Force with the unsupplied Navy in the North
    Atlantic (France contested) strikes nobody but may be rebased to Japan."""
    pieces = [
        ("north_atlantic", "western", "navy"),
        ("north_atlantic", "western", "air"),
        ("france", "western", "army"),
        ("france", "soviet", "army"),
        ("japan", "western", "army"),
        ("spain", "soviet", "army"),
    ]
    state = scenario(pieces=pieces, active=WEST, step="air")
    air_power = next(c for c in state.seats[1].deck if card(c).type == "air_power")
    give(state, 1, "hand", [air_power, state.seats[1].deck[0]])
    af = pc("north_atlantic", "western", "air")
    assert not board.Supply(state).supplied(af)
    assert f"rebase:{af}:{sp('japan')}" in options(state, 1)
    state = act(state, 1, f"air:{air_power}")
    assert not [o for o in options(state, 1) if o.startswith("st:")]


def test_nationalist_army_is_never_recruited_on_a_printed_supply_symbol() -> None:
    """A Nationalist piece "Can never be built or recruited in a space with a printed supply
    symbol": a Nationalist Army is recruited in the Balkans but never in India or Italy."""
    state = scenario(active=NA)
    spaces = board.build_spaces(state, NATIONALIST, ARMY, [sp("india"), sp("italy")], True)
    assert spaces == []
    assert board.build_spaces(state, NATIONALIST, ARMY, [sp("balkans")], True) == [sp("balkans")]


def test_air_defense_needs_no_supply_but_an_interceptor_does() -> None:
    """ "an out-of-supply Air Force may use air defense" (on another Bloc's turn), while an
    Interceptor is "one of your own supplied Air Forces in the same or an adjacent space":
    the West defends Germany with its unsupplied Air Force in the North Atlantic; the Soviet
    Air Force in the Baltic Sea may intercept, the unsupplied one in Italy may not."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("north_atlantic", "western", "navy"),
        ("north_atlantic", "western", "air"),
        ("baltic_sea", "soviet", "navy"),
        ("baltic_sea", "soviet", "air"),
        ("italy", "soviet", "army"),
        ("italy", "western", "army"),
        ("italy", "soviet", "air"),
    ]
    state = scenario(pieces=pieces, step="action")
    supply = board.Supply(state)
    assert not supply.supplied(pc("north_atlantic", "western", "air"))
    assert not supply.supplied(pc("italy", "soviet", "air"))
    battle = next(c for c in state.seats[0].deck if card(c).type == "land_battle")
    give(state, 0, "hand", [battle])
    state = act(state, 0, f"play:{battle}")
    state = act(state, 0, f"x:{pc('germany', 'western', 'army')}")
    defender = pc("north_atlantic", "western", "air")
    assert options(state, 1) == [f"ad:{defender}", "pass"]
    state = act(state, 1, f"ad:{defender}")
    assert options(state, 0) == [f"ic:{pc('baltic_sea', 'soviet', 'air')}", "pass"]


def test_an_air_force_is_recruited_only_with_a_supplied_army_or_navy() -> None:
    """Recruit: "an Air Force must be recruited in the same space as a supplied Army or Navy
    of the same nationality": NATO recruits no Air Force with the unsupplied Navy in the
    North Atlantic, but may once an Army in Canada supplies that Navy."""
    for canada, offered in ((False, False), (True, True)):
        pieces = [("north_atlantic", "western", "navy"), ("united_kingdom", "soviet", "army")]
        if canada:
            pieces.append(("canada", "western", "army"))
        state = scenario(pieces=pieces, active=WEST)
        nato = cid("NATO")
        give(state, 1, "prepared", [nato])
        give(state, 1, "hand", state.seats[1].deck[:3])
        state = act(state, 1, f"use:{nato}")
        for c in list(state.seats[1].hand):
            state = act(state, 1, f"d:{c}")
        navy = pc("north_atlantic", "western", "navy")
        assert board.Supply(state).supplied(navy) is offered
        assert (f"p:2:{sp('north_atlantic')}" in options(state, 1)) is offered
        assert f"p:0:{sp('spain')}" in options(state, 1)


def test_an_any_time_wmd_may_be_used_in_the_own_discard_and_espionage_steps() -> None:
    """Project 941 Akula: "Use any time." The Soviets may use it in their own Discard step
    and, had they not, in their Espionage step (before, only in the Begin Turn, Air and
    Action steps and after a card resolved)."""
    akula = cid("Project 941 Akula")
    for step in ("discard_step", "esp_step"):
        state = scenario(pieces=[("moscow", "soviet", "army")], step=step)
        give(state, 0, "prepared", [akula])
        state.vp[0] = 5
        assert f"use:{akula}" in options(state, 0)
        state = act(state, 0, f"use:{akula}")
        assert akula in state.seats[0].discard_up


def test_an_enemy_may_use_an_any_time_wmd_before_the_begin_turn_step() -> None:
    """Akula "can be launched at any time" (Reaction Example): at the start of the West's
    turn, before the West uses its prepared MX Peacekeeper, the Soviets may use Akula to
    discard it (the example only forbids doing so once the MX Peacekeeper is used)."""
    akula, mx = cid("Project 941 Akula"), cid("MX Peacekeeper")
    state = scenario(pieces=[("moscow", "soviet", "army")], step="esp_step")
    give(state, 0, "prepared", [akula])
    give(state, 1, "prepared", [mx])
    state.vp = [5, 20, 5]
    state = act(state, 0, "pass")
    assert kind(state) == "react" and state.active == WEST
    state = act(state, 0, f"use:{akula}")
    state = act(state, 0, f"t:{WEST}")
    state = act(state, 0, "br:0")
    state = act(state, 0, f"w:{mx}")
    state = pass_reactions(state)
    assert kind(state) == "begin" and mx not in state.seats[1].prepared


def test_the_moving_bloc_gets_no_window_before_its_own_begin_turn_step() -> None:
    """Ruling 23: the window before a Begin Turn step is the enemies' ("any time"); the
    moving Bloc uses its own "any time" card in its Begin Turn step, so it is not asked
    twice (before, the West was asked to react or pass, then offered the card again)."""
    polaris = cid("Polaris SLBM")
    state = scenario(pieces=[("moscow", "soviet", "army")], step="esp_step")
    give(state, 1, "prepared", [polaris])
    give(state, 0, "hand", state.seats[0].deck[:2])
    state.vp = [5, 20, 5]
    state = act(state, 0, "pass")
    assert kind(state) == "begin" and state.active == WEST
    assert f"use:{polaris}" in options(state, 1)


def test_an_any_time_card_in_the_begin_turn_step_leaves_reallocate_resources() -> None:
    """ "First, you may Reallocate Resources ... Then (in any order you choose), you may use
    any prepared cards that specify this step": a Begin Turn card closes Reallocate
    Resources, an "any time" card (it specifies no step) does not."""
    polaris = cid("Polaris SLBM")
    state = scenario(active=WEST)
    give(state, 1, "prepared", [polaris])
    hand = [c for c in state.seats[1].deck if card(c).type == "event"][:3]
    give(state, 1, "hand", hand)
    state.vp = [5, 20, 5]
    assert "realloc" in options(state, 1)
    state = act(state, 1, f"use:{polaris}")
    state = act(state, 1, f"t:{SOV}")
    state = pass_reactions(state)
    assert kind(state) == "begin" and "realloc" in options(state, 1)


def test_reallocate_resources_in_team_play() -> None:
    """ "Once per turn, in your Begin Turn step, you may use Reallocate Resources (Both
    teammates in a Bloc may do this.) ... discard 3 cards from your hand to search your
    draw deck for a card ... Only Build Army, Build Navy, Land Battle, Sea Battle, or Air
    Power cards ... Non-Aligned Bloc players may choose a card of any nationality in their
    deck": each teammate once, paying from its own hand (a "you" discard: "that player must
    discard the cards") and searching its own deck only."""
    state = scenario(variant="4p", active=NA)
    seats = state.bloc_seats(NA)
    for seat in seats:
        events = [c for c in state.seats[seat].deck if card(c).type not in REALLOC][:3]
        give(state, seat, "hand", events)
    first, second = seats
    assert "realloc" in options(state, first) and "realloc" in options(state, second)
    state = act(state, first, "realloc")
    assert kind(state) == "pay" and not options(state, second)
    for _ in range(3):
        state = act(state, first, options(state, first)[0])
    assert kind(state) == "realloc_pick"
    own = {c for c in state.seats[first].deck if card(c).type in REALLOC}
    assert {int(o[2:]) for o in options(state, first)} == own
    nats = {card(c).nat for c in own}
    assert len(nats) >= 2  # any nationality of the Non-Aligned deck
    state = act(state, first, options(state, first)[0])
    assert "realloc" not in options(state, first) and "realloc" in options(state, second)
    assert len(state.seats[first].hand) == 1


def test_a_teammate_may_use_its_after_you_build_an_army_card_on_the_others_army() -> None:
    """2S4 Tyulpan Mortar: "Use immediately after you build an Army." In team play "you" is
    the Bloc ("Unless a card specifies an enemy or another Bloc, a card always refers to the
    pieces and cards of its own Bloc"; only discards narrow "you" to one player): the Soviet
    teammate holding it may use it on the Army its teammate just built (ruling 24)."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("white_russia", "soviet", "army"),
        ("east_europe", "western", "army"),
    ]
    state = scenario("6p", pieces=pieces, active=SOV, step="action")
    tyulpan = cid("2S4 Tyulpan Mortar")
    owner = next(s for s in state.bloc_seats(SOV) if tyulpan in state.seats[s].deck)
    builder = next(s for s in state.bloc_seats(SOV) if s != owner)
    give(state, owner, "prepared", [tyulpan])
    build = next(c for c in state.seats[builder].deck if card(c).type == "build_army")
    give(state, builder, "hand", [build])
    state = act(state, builder, f"play:{build}")
    state = act(state, builder, f"p:0:{sp('east_europe')}")
    assert kind(state) == "react" and f"use:{tyulpan}" in options(state, owner)
    state = act(state, owner, f"use:{tyulpan}")
    state = act(state, owner, f"t:{WEST}")
    west = pc("east_europe", "western", "army")
    state = act(state, owner, f"x:{west}")
    while kind(state) == "defend":
        seat = next(s for s in state.bloc_seats(WEST) if "pass" in options(state, s))
        state = act(state, seat, "pass")
    assert west not in state.pieces
    assert state.esc[SOV * 3 + WEST] == 1


def test_supply_step_removes_an_out_of_supply_air_force_with_its_army() -> None:
    """ "Supply step: Remove your out-of-supply pieces from the board"; "An Air Force is in
    supply if it is in the same space as a supplied Army or Navy of the same nationality".
    The Air Force of an out-of-supply Army is itself out of supply and goes with it: it is not
    an orphan that may pay to relocate next door (to an Army paid for by Organic Supply)."""
    pieces = [
        ("turkey", "soviet", "army"),
        ("middle_east", "soviet", "army"),
        ("middle_east", "soviet", "air"),
    ]
    state = scenario("3p", pieces=pieces, active=SOV, step="supply")
    seat = state.bloc_seats(SOV)[0]
    give(state, seat, "hand", state.seats[seat].deck[:3])
    state = act(state, seat, f"organic:{pc('turkey', 'soviet', 'army')}")
    state = act(state, seat, options(state, seat)[0])
    state = act(state, seat, "done")
    assert kind(state) == "discard_step"
    assert state.pieces == [pc("turkey", "soviet", "army")]


def test_a_navy_is_never_built_where_the_bloc_has_a_navy() -> None:
    """ "Each Bloc may have at most one Navy per Sea space": a Build Navy next to Moscow offers
    the Arctic Ocean only while no Soviet Navy is there."""
    pieces = [("moscow", "soviet", "army"), ("arctic_ocean", "soviet", "navy")]
    state = scenario(pieces=pieces, active=SOV, step="action")
    seat = state.bloc_seats(SOV)[0]
    build = next(c for c in state.seats[seat].deck if card(c).type == "build_navy")
    give(state, seat, "hand", [build])
    state = act(state, seat, f"play:{build}")
    assert kind(state) == "fx_build"
    assert f"p:1:{sp('arctic_ocean')}" not in options(state, seat)
    state = state.clone()
    state.pieces.remove(pc("arctic_ocean", "soviet", "navy"))
    assert f"p:1:{sp('arctic_ocean')}" in options(state, seat)


def test_rebase_builds_the_air_force_with_a_supplied_army_elsewhere() -> None:
    """Rebase: "Discard any card from hand to remove one of your Air Forces from the board and
    build it elsewhere" - a build, so only beside a supplied Army or Navy of its nationality
    (Ukraine), never with the out-of-supply Army in Korea nor where it already is."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("moscow", "soviet", "air"),
        ("ukraine", "soviet", "army"),
        ("korea", "soviet", "army"),
    ]
    state = scenario(pieces=pieces, active=SOV, step="air")
    seat = state.bloc_seats(SOV)[0]
    give(state, seat, "hand", state.seats[seat].deck[:1])
    air = pc("moscow", "soviet", "air")
    assert [o for o in options(state, seat) if o.startswith("rebase:")] == [
        f"rebase:{air}:{sp('ukraine')}"
    ]


def test_a_supply_token_serves_its_own_nationality_uncontested() -> None:
    """Supply tokens: "A piece can never trace supply or earn a bonus Victory Point from a
    different nationality's Supply token" and "An enemy piece in the same space as your Supply
    token still has the effect of contesting the space, spoiling the token's supply and Victory
    Point benefits" (a Chinese token in Korea)."""
    chinese = 8 * sp("korea") + NATS.index("chinese")
    state = scenario(pieces=[("korea", "soviet", "army")])
    state.tokens = [chinese]
    assert not board.Supply(state).supplied(pc("korea", "soviet", "army"))
    assert phase_points(state) == [1, 0, 0]
    state = scenario(pieces=[("korea", "chinese", "army")])
    state.tokens = [chinese]
    assert board.Supply(state).supplied(pc("korea", "chinese", "army"))
    assert phase_points(state) == [0, 0, 2]
    state = scenario(pieces=[("korea", "chinese", "army"), ("korea", "western", "army")])
    state.tokens = [chinese]
    assert not board.Supply(state).supplied(pc("korea", "chinese", "army"))
    assert phase_points(state) == [0, 1, 1]


def test_a_battle_needs_a_supplied_attacker_not_a_supplied_defender() -> None:
    """Supply and Battle: "An Army or Navy must be in supply to initiate a battle" and
    "Defending Armies and Navies do not need to be in supply": the supplied Soviet Army in
    contested Ukraine may battle the (out-of-supply) Western Army there; the Soviet Army in
    Turkey, out of supply, may not battle the Western Army beside it."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("ukraine", "soviet", "army"),
        ("ukraine", "western", "army"),
        ("turkey", "soviet", "army"),
        ("turkey", "western", "army"),
    ]
    state = scenario(pieces=pieces, active=SOV, step="action")
    supply = board.Supply(state)
    assert supply.supplied(pc("ukraine", "soviet", "army"))
    assert not supply.supplied(pc("ukraine", "western", "army"))
    assert not supply.supplied(pc("turkey", "soviet", "army"))
    seat = state.bloc_seats(SOV)[0]
    battle = next(c for c in state.seats[seat].deck if card(c).type == "land_battle")
    give(state, seat, "hand", [battle])
    state = act(state, seat, f"play:{battle}")
    assert options(state, seat) == [f"x:{pc('ukraine', 'western', 'army')}", "skip"]


def test_one_teammate_prepares_in_the_espionage_step_from_its_own_hand() -> None:
    """Team Play: "Only one teammate may prepare a card during the Espionage step", and "In
    order to prepare an Espionage card, you must first discard a card from hand (your teammate
    cannot discard a card on your behalf)": each teammate is offered only its own cards, and
    once one prepares, the step is over for both."""
    state = scenario("4p", pieces=[("india", "indian", "army")], active=NA, step="esp_step")
    hands = {}
    for seat in state.bloc_seats(NA):
        deck = state.seats[seat].deck
        spy = next(c for c in deck if card(c).type == "espionage")
        other = next(c for c in deck if card(c).type != "espionage")
        give(state, seat, "hand", [spy, other])
        hands[seat] = (spy, other)
    for seat, (_, other) in hands.items():
        assert options(state, seat) == [f"espdisc:{other}", "pass", "remove"]
    first = state.bloc_seats(NA)[0]
    spy, other = hands[first]
    state = act(state, first, f"espdisc:{other}")
    state = act(state, first, f"esp:{spy}")
    assert state.seats[first].espionage == [spy]
    assert other in state.seats[first].discard_down
    assert kind(state) != "esp_step"
