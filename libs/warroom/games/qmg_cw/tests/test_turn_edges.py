"""Issue 19: reaction timing after battles, own-card requirements, "at any time during your
own Bloc's turn" (Organic Supply, own pieces), team steps, team-divided discards,
reconstructed content (Siberia, the Nationalist Navy) and the card examples of "Card Types"
and "Interpreting Cards"."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.scoring import phase_points
from warroom.games.qmg_cw.setup import new_state
from warroom.games.qmg_cw.state import NA, NATIONALIST, SOV, WEST, CwState, piece_kind, piece_nat

from .helpers import RULES, act, cid, give, kind, options, pass_reactions, pc, scenario, sp

SOVIET_CHAIN = [
    ("moscow", "soviet", "army"),
    ("white_russia", "soviet", "army"),
    ("east_europe", "soviet", "army"),
]


def test_after_battle_window_opens_when_a_reaction_saves_the_target() -> None:
    """ "Use immediately after you battle in a land space": Berlin Airlift saves the Western
    Army in Germany, and Offensive Doctrine may still be used, since the Soviets battled."""
    state = scenario(
        pieces=[*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")],
        step="action",
    )
    battle, doctrine, airlift = (
        cid("Land Battle", 0, SOV),
        cid("Offensive Doctrine"),
        cid("Berlin Airlift"),
    )
    give(state, 0, "hand", [battle])
    give(state, 0, "espionage", [doctrine])
    give(state, 1, "espionage", [airlift])
    west = pc("germany", "western", "army")
    state = act(state, 0, f"play:{battle}")
    state = act(state, 0, f"x:{west}")
    state = act(state, 1, f"use:{airlift}")
    state = pass_reactions_except(state, SOV)
    assert west in state.pieces
    assert kind(state) == "react" and f"use:{doctrine}" in options(state, 0)
    state = act(state, 0, f"use:{doctrine}")
    assert kind(state) == "fx_build" and f"p:0:{sp('france')}" in options(state, 0)


def test_after_battle_window_opens_when_air_defense_saves_the_target() -> None:
    """The same trigger when the defender's Air Defense loses its Air Force instead of the
    Western Army: the Soviets battled, so Offensive Doctrine is offered."""
    pieces = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    pieces += [("germany", "western", "air"), ("france", "western", "army")]
    state = scenario(pieces=pieces, step="action")
    battle, doctrine = cid("Land Battle", 0, SOV), cid("Offensive Doctrine")
    give(state, 0, "hand", [battle])
    give(state, 0, "espionage", [doctrine])
    west, air_force = pc("germany", "western", "army"), pc("germany", "western", "air")
    state = act(state, 0, f"play:{battle}")
    state = act(state, 0, f"x:{west}")
    state = act(state, 1, f"ad:{air_force}")
    state = act(state, 0, "pass")  # no Interceptor
    state = pass_reactions_except(state, SOV)
    assert west in state.pieces and air_force not in state.pieces
    assert kind(state) == "react" and f"use:{doctrine}" in options(state, 0)


def pass_reactions_except(state: CwState, bloc: int) -> CwState:
    """Pass "any time" windows of other Blocs until the given Bloc is asked to react."""
    while kind(state) in ("react", "react_order"):
        decision = RULES.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        if decision.kind == "react" and state.seats[seat].bloc == bloc:
            return state
        first = decision.options_for(seat)[0].id
        state = act(state, seat, "pass" if decision.kind == "react" else first)
    return state


def test_own_piece_removal_in_the_action_step_and_inside_a_build() -> None:
    """ "At any time during your own Bloc's turn, you may remove your own Bloc's piece": in the
    Action step, and inside a Build Army card when every Soviet Army is on the board."""
    spaces = [s for s in tables().space_ids if not tables().is_sea[tables().space(s)]]
    far = [s for s in spaces if s not in ("moscow", "white_russia", "ukraine", "caucasus")]
    far = [s for s in far if s not in ("central_asia", "urals", "siberia")][:12]
    state = scenario(pieces=[("moscow", "soviet", "army"), *((s, "soviet", "army") for s in far)])
    state = act(state, 0, "done")
    state = act(state, 0, "pass")  # the Air step
    assert kind(state) == "action" and "remove" in options(state, 0)
    build = cid("Build Army", 0, SOV)
    give(state, 0, "hand", [build])
    state = act(state, 0, f"play:{build}")
    assert kind(state) == "fx_build"
    assert not [o for o in options(state, 0) if o.startswith("p:")]  # all 13 Armies placed
    victim = pc(far[-1], "soviet", "army")
    state = act(state, 0, f"free:{victim}")
    assert victim not in state.pieces and kind(state) == "fx_build"
    state = act(state, 0, f"p:0:{sp('ukraine')}")
    assert pc("ukraine", "soviet", "army") in state.pieces


def test_organic_supply_while_a_card_resolves() -> None:
    """Organic Supply "at any time during your own Bloc's turn": an Indian Army recruited into
    contested Afghanistan (India open: out of supply) pays a card and battles in the same card."""
    state = scenario(pieces=[("afghanistan", "soviet", "army")], active=NA, step="action")
    war = cid("Indo-Pakistani War")
    give(state, 2, "hand", [war, cid("OPEC")])
    state = act(state, 2, f"play:{war}")
    state = act(state, 2, f"p:0:{sp('afghanistan')}")
    state = act(state, 2, "skip")  # no Air Force
    indian, soviet = pc("afghanistan", "indian", "army"), pc("afghanistan", "soviet", "army")
    assert kind(state) == "fx_battle" and f"x:{soviet}" not in options(state, 2)
    state = act(state, 2, f"organic:{indian}")
    state = act(state, 2, f"d:{cid('OPEC')}")
    assert indian in state.organic and kind(state) == "fx_battle"
    state = act(state, 2, f"x:{soviet}")
    state = act(state, 0, "pass")
    assert soviet not in state.pieces


def test_a_teammates_pass_leaves_the_action_step_to_the_other() -> None:
    """Only one teammate may play in the Action step; one's pass does not close it for both."""
    state = scenario(variant="4p", active=NA, step="action")
    builds = [c.id for c in tables().cards if c.name == "Build Army" and c.nat == 2]
    build = next(c for c in builds if c in state.seats[2].deck)
    give(state, 2, "hand", [build])
    give(state, 3, "hand", state.seats[3].deck[:1])
    state.pieces = sorted([pc("china", "chinese", "army")])
    state = act(state, 3, "pass")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "action" and decision.seats == (2,)
    state = act(state, 2, f"play:{build}")
    state = act(state, 2, f"p:0:{sp('manchuria')}")
    state = pass_reactions(state)
    assert kind(state) != "action"  # played: the step is over for both


def test_a_teammates_pass_leaves_the_discard_and_espionage_steps_to_the_other() -> None:
    """The Discard and Espionage steps go to one teammate as the Action step does: one's pass
    leaves the step open for the other, whose discard then closes it for both."""
    for step, prefix in (("discard_step", "discard"), ("esp_step", "espdisc")):
        state = scenario(variant="4p", active=NA, step=step)
        deck = state.seats[2].deck
        esp = next(c for c in deck if tables().cards[c].type == "espionage")
        other = next(c for c in deck if tables().cards[c].type != "espionage")
        give(state, 2, "hand", [esp, other])
        give(state, 3, "hand", state.seats[3].deck[:2])
        decision = RULES.decision(state)
        assert decision is not None and set(decision.seats) == {2, 3}
        state = act(state, 3, "pass")
        decision = RULES.decision(state)
        assert decision is not None and decision.kind == step and decision.seats == (2,)
        state = act(state, 2, f"{prefix}:{other}")
        if step == "esp_step":
            state = act(state, 2, f"esp:{esp}")
            assert state.seats[2].espionage == [esp]
        assert kind(state) != step
        assert other not in state.seats[2].hand
    state = scenario(variant="4p", active=NA, step="discard_step")
    give(state, 2, "hand", state.seats[2].deck[:2])
    give(state, 3, "hand", state.seats[3].deck[:2])
    state = act(state, 2, f"discard:{state.seats[2].hand[0]}")
    assert kind(state) != "discard_step"  # seat 3 never answered: the step is over for both


def test_bloc_draw_deck_discards_are_divided_by_the_team() -> None:
    """McCarthyism: "Each Bloc must discard 2 draw deck cards"; the Non-Aligned teammates
    divide theirs as they see fit (here seat 3 gives both)."""
    state = scenario(variant="4p", active=WEST)
    mccarthy = cid("McCarthyism and the Red Scare")
    give(state, 1, "espionage", [mccarthy])
    decks = [len(p.deck) for p in state.seats]
    state = act(state, 1, f"use:{mccarthy}")
    assert kind(state) == "bloc_deck"
    decision = RULES.decision(state)
    assert decision is not None and set(decision.seats) == {2, 3}
    state = act(state, 3, "dd")
    state = act(state, 3, "dd")
    after = [len(p.deck) for p in state.seats]
    assert after == [decks[0] - 2, decks[1] - 2, decks[2], decks[3] - 2]


def test_every_starting_piece_is_in_supply() -> None:
    """Invariant of the setup data: every starting Army, Navy and Air Force traces supply
    (Siberia through Moscow), except Nationalist pieces, which the Supply step never removes."""
    for variant in ("3p", "6p"):
        state = new_state(1, variant)
        supply = board.Supply(state)
        for p in state.pieces:
            assert supply.supplied(p) or piece_nat(p) == NATIONALIST, p
    state = new_state(1, "3p")
    assert board.Supply(state).supplied(pc("siberia", "soviet", "army"))


def test_suez_crisis_brings_the_nationalist_navy_into_play() -> None:
    """Reconstructed: Suez Crisis recruits a Nationalist Army in North Africa and a Nationalist
    Navy in the Mediterranean (the only way the Nationalist Navy enters play)."""
    state = scenario(active=NA, step="action")
    suez = cid("Suez Crisis")
    give(state, 2, "hand", [suez])
    state = act(state, 2, f"play:{suez}")
    state = act(state, 2, "br:0")
    state = act(state, 2, f"p:0:{sp('north_africa')}")
    state = act(state, 2, f"p:1:{sp('mediterranean')}")
    navy = pc("mediterranean", "nationalist", "navy")
    assert navy in state.pieces and piece_kind(navy) == 1
    assert pc("north_africa", "nationalist", "army") in state.pieces


def test_conducator_ceausescu_places_a_token_then_builds_in_the_balkans() -> None:
    """Card Types example: "Place a Soviet supply token in the Balkans; then build an Army in
    the Balkans"; the Army there is in supply and scores the token's bonus when uncontested."""
    state = scenario(pieces=SOVIET_CHAIN, step="action")
    card = cid("Conducător Ceaușescu")
    give(state, 0, "hand", [card])
    state = act(state, 0, f"play:{card}")
    assert sp("balkans") * 8 + 0 in state.tokens
    assert f"p:0:{sp('balkans')}" in options(state, 0)
    state = act(state, 0, f"p:0:{sp('balkans')}")
    army = pc("balkans", "soviet", "army")
    assert army in state.pieces and board.Supply(state).supplied(army)
    points = phase_points(state)[SOV]
    without = state.clone()
    without.tokens.remove(sp("balkans") * 8 + 0)
    contested = state.clone()
    contested.pieces = sorted([*state.pieces, pc("balkans", "western", "army")])
    assert points - phase_points(without)[SOV] == 1  # the token's bonus VP
    assert phase_points(contested)[SOV] == points - 1  # none while contested


def test_seato_recruits_near_the_south_china_sea_once_per_turn() -> None:
    """Card Types example: SEATO, once per turn in the Begin Turn step, discards 3 cards to
    recruit a Western piece in or adjacent to the South China Sea."""
    state = scenario(active=WEST)
    seato = cid("SEATO")
    give(state, 1, "prepared", [seato])
    give(state, 1, "hand", [cid("Build Army", i, WEST) for i in range(6)])
    state = act(state, 1, f"use:{seato}")
    for _ in range(3):
        state = act(state, 1, options(state, 1)[0])
    assert kind(state) == "fx_recruit"
    offered = options(state, 1)
    assert f"p:1:{sp('south_china_sea')}" in offered and f"p:0:{sp('philippines')}" in offered
    assert f"p:0:{sp('india')}" not in offered
    state = act(state, 1, f"p:1:{sp('south_china_sea')}")
    state = pass_reactions(state)
    assert pc("south_china_sea", "western", "navy") in state.pieces
    assert len(state.seats[1].hand) == 3
    assert f"use:{seato}" not in options(state, 1)  # once per turn


def test_the_missile_gap_prepares_a_wmd_from_hand() -> None:
    """Card Types example: The Missile Gap discards 3 cards to prepare a Western WMD card
    outside the Action step (in the Begin Turn step)."""
    state = scenario(active=WEST)
    gap, minuteman = cid("The Missile Gap"), cid("Minuteman ICBM")
    give(state, 1, "prepared", [gap])
    give(state, 1, "hand", [minuteman, *(cid("Build Army", i, WEST) for i in range(3))])
    state = act(state, 1, f"use:{gap}")
    for _ in range(3):
        state = act(state, 1, next(o for o in options(state, 1) if o != f"d:{minuteman}"))
    assert kind(state) == "fx_prepare" and options(state, 1) == [f"prep:{minuteman}", "skip"]
    state = act(state, 1, f"prep:{minuteman}")
    assert minuteman in state.seats[1].prepared and state.seats[1].hand == []


def test_indo_pakistani_war_benefits_are_independent() -> None:
    """Interpreting Cards: with Indo-Pakistani War "you could recruit an Army and/or an Air
    Force without initiating a battle", and "you are not required to recruit the Army or Air
    Force to initiate a battle"."""
    pieces = [
        ("india", "indian", "army"),
        ("afghanistan", "indian", "army"),
        ("afghanistan", "soviet", "army"),
    ]
    state = scenario(pieces=pieces, active=NA, step="action")
    war = cid("Indo-Pakistani War")
    give(state, 2, "hand", [war])
    played = act(state, 2, f"play:{war}")
    # recruit the Air Force only, then no battle
    only_air = act(played, 2, "skip")
    only_air = act(only_air, 2, f"p:2:{sp('india')}")
    only_air = act(only_air, 2, "skip")
    assert pc("india", "indian", "air") in only_air.pieces
    assert pc("afghanistan", "soviet", "army") in only_air.pieces
    # recruit nothing, battle anyway
    battle = act(act(played, 2, "skip"), 2, "skip")
    assert f"x:{pc('afghanistan', 'soviet', 'army')}" in options(battle, 2)


def test_piece_restrictions_override_card_text() -> None:
    """Pieces: "recruiting an Army in a space where you already have an Army, the new Army is
    not recruited and that part of the card's text is ignored" (no such placement offered)."""
    state = scenario(pieces=[("india", "indian", "army")], active=NA, step="action")
    war = cid("Indo-Pakistani War")
    give(state, 2, "hand", [war])
    state = act(state, 2, f"play:{war}")
    assert f"p:0:{sp('india')}" not in options(state, 2)
    assert f"p:0:{sp('afghanistan')}" in options(state, 2)


def test_team_play_start_either_teammate_discards_the_wmd() -> None:
    """Team Play: "if the START Treaty card is used, either player on a Bloc may discard a WMD
    to avoid losing Victory Points" (6 players: the Western Green-deck player does)."""
    state = scenario(variant="6p", active=SOV)
    start = cid("START Treaty")
    soviet_seat = next(i for i, s in enumerate(state.seats) if start in s.deck)
    give(state, soviet_seat, "espionage", [start])
    wmd = next(
        c.id
        for c in tables().cards
        if c.type == "wmd" and c.bloc == SOV and c.id in state.seats[soviet_seat].deck
    )
    give(state, soviet_seat, "prepared", [wmd])
    west_seats = state.bloc_seats(WEST)
    west_wmd = next(
        c.id for c in tables().cards if c.type == "wmd" and c.id in state.seats[west_seats[1]].deck
    )
    give(state, west_seats[1], "prepared", [west_wmd])
    state.vp = [5, 5, 5]
    state = act(state, soviet_seat, f"use:{start}")
    while kind(state) == "fx_own_wmd":
        decision = RULES.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        state = act(state, seat, options(state, seat)[0])
    assert west_wmd in state.seats[west_seats[1]].discard_up
    assert state.vp == [5, 5, 2]


def test_in_card_organic_supply_may_be_paid_by_the_teammate() -> None:
    """ "Either teammate on a Bloc can discard a card for Organic Supply": inside a card, with
    an empty hand, the card's user still gets the option and the teammate pays."""
    state = scenario(
        variant="4p", pieces=[("afghanistan", "soviet", "army")], active=NA, step="action"
    )
    war = cid("Indo-Pakistani War")
    user = next(s for s in (2, 3) if war in state.seats[s].deck)
    mate = 5 - user
    give(state, user, "hand", [war])
    give(state, mate, "hand", state.seats[mate].deck[:1])
    state = act(state, user, f"play:{war}")
    state = act(state, user, f"p:0:{sp('afghanistan')}")
    state = act(state, user, "skip")
    indian = pc("afghanistan", "indian", "army")
    assert state.seats[user].hand == [] and f"organic:{indian}" in options(state, user)
    state = act(state, user, f"organic:{indian}")
    state = act(state, mate, options(state, mate)[0])
    assert indian in state.organic and state.seats[mate].hand == []
