"""Combat sentences of the rulebook, one test each: land and sea battles, Air Strikes, Air
Defense, Interceptors, Air Forces (rebase, orphans), "about to be removed", battle versus
eliminate, contested spaces, escalation by battles and the "after you battle" reactions.
Each docstring quotes the sentence it checks."""

from __future__ import annotations

from typing import Any

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.effects import card
from warroom.games.qmg_cw.state import NA, SOV, WEST, CwState

from .helpers import RULES, act, cid, give, kind, options, pass_reactions, pc, scenario, sp

Piece = tuple[str, str, str]

SOVIET_CHAIN: list[Piece] = [
    ("moscow", "soviet", "army"),
    ("white_russia", "soviet", "army"),
    ("east_europe", "soviet", "army"),
]


def _first(state: CwState, seat: int, ctype: str, nat: int | None = None) -> int:
    """The first card of a type (and nationality) in a seat's deck."""
    return next(
        c
        for c in state.seats[seat].deck
        if card(c).type == ctype and (nat is None or card(c).nat == nat)
    )


def _play(
    pieces: list[Piece],
    ctype: str = "land_battle",
    bloc: int = SOV,
    variant: str = "3p",
    nat: int | None = None,
) -> tuple[CwState, int]:
    """A Bloc's Action step with one battle card of the type played; returns the position at
    the card's first decision and the seat that played it."""
    state = scenario(variant, pieces=pieces, active=bloc, step="action")
    seat = state.bloc_seats(bloc)[0]
    battle = _first(state, seat, ctype, nat)
    give(state, seat, "hand", [battle])
    return act(state, seat, f"play:{battle}"), seat


def _battle(
    pieces: list[Piece], space: str, piece: str = "army", **play: Any
) -> tuple[CwState, int, int]:
    """`_play` a battle card and target the Western piece (`piece`: its kind) in `space`;
    returns the position (the defender to answer), the attacking seat and the target."""
    state, seat = _play(pieces, **play)
    target = pc(space, "western", piece)
    return act(state, seat, f"x:{target}"), seat, target


def _targets(state: CwState, seat: int) -> list[str]:
    """The battle/strike options offered to a seat."""
    return [o for o in options(state, seat) if o.startswith(("x:", "st:"))]


def _all_pass(state: CwState, bloc: int) -> CwState:
    """Every seat of a Bloc passes the pending decision."""
    for seat in state.bloc_seats(bloc):
        if "pass" in options(state, seat):
            state = act(state, seat, "pass")
    return state


# ---------------------------------------------------------------- what a battle needs


def test_a_battle_removes_the_enemy_army_barring_a_reaction() -> None:
    """ "In order to battle another Bloc's Army or Navy, you must have a supplied Army or Navy
    in the same space, and play or use a card that allows you to battle in that space. Then,
    barring some other reaction, the enemy Army or Navy you're battling is removed from the
    board." """
    state, seat = _play(
        [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    )
    west = pc("germany", "western", "army")
    assert _targets(state, seat) == [f"x:{west}"]
    state = act(state, seat, f"x:{west}")
    assert kind(state) == "defend" and options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert west not in state.pieces
    assert pc("germany", "soviet", "army") in state.pieces


def test_no_battle_without_an_own_army_in_the_space() -> None:
    """ "you must have a supplied Army or Navy in the same space": a supplied Soviet Army next
    to Germany (East Europe) battles nobody in Germany; the card offers only to skip."""
    state, seat = _play([*SOVIET_CHAIN, ("germany", "western", "army")])
    assert _targets(state, seat) == []
    assert options(state, seat) == ["skip"]


def test_the_last_enemy_piece_in_a_space_is_battled_and_the_space_is_uncontested() -> None:
    """ "A space with pieces from only one Bloc is uncontested": once the last Western piece
    in Germany is battled away, the Soviet Army there holds Germany uncontested."""
    state, seat = _play(
        [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    )
    germany = sp("germany")
    assert board.contested(board.occupants(state)[germany])
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert not board.contested(board.occupants(state)[germany])


def test_a_land_battle_card_never_battles_a_navy() -> None:
    """ "There are two types of battles: Land Battles and Sea Battles": a Land Battle card
    offers the Western Army in Germany but not the Western Navy in the Baltic Sea, though a
    supplied Soviet Navy shares the sea with it."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("baltic_sea", "soviet", "navy"),
        ("baltic_sea", "western", "navy"),
    ]
    state, seat = _play(pieces)
    assert _targets(state, seat) == [f"x:{pc('germany', 'western', 'army')}"]


def test_a_sea_battle_needs_an_own_navy_in_the_sea() -> None:
    """Sea Battle: "you must have a supplied Army or Navy in the same space": the Soviet Sea
    Battle card battles the Western Navy in the Baltic Sea with the Soviet Navy there, and
    nothing with only Soviet Armies on the coast."""
    coast = [*SOVIET_CHAIN, ("baltic_sea", "western", "navy")]
    state, seat = _play(coast, "sea_battle")
    assert _targets(state, seat) == []
    state, seat = _play([*coast, ("baltic_sea", "soviet", "navy")], "sea_battle")
    west = pc("baltic_sea", "western", "navy")
    assert _targets(state, seat) == [f"x:{west}"]
    state = act(state, seat, f"x:{west}")
    state = _all_pass(state, WEST)
    assert west not in state.pieces


def test_a_sea_battle_card_never_battles_an_army() -> None:
    """ "There are two types of battles: Land Battles and Sea Battles": the Soviet Sea Battle
    card offers no Western Army in Germany beside the Soviet Army there."""
    pieces = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    state, seat = _play(pieces, "sea_battle")
    assert _targets(state, seat) == []


def test_an_out_of_supply_army_may_not_initiate_a_battle_but_organic_supply_may_pay() -> None:
    """ "An Army or Navy must be in supply to initiate a battle." / "You may use Organic Supply
    to supply a piece initiating battle.": the cut-off Soviet Army in Italy battles nobody
    until the Soviets discard a card for it."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("italy", "soviet", "army"),
        ("italy", "western", "army"),
    ]
    state, seat = _play(pieces)
    state.seats[seat].hand.append(state.seats[seat].deck.pop())
    state.pending = None
    italy = pc("italy", "soviet", "army")
    assert _targets(state, seat) == []
    assert f"organic:{italy}" in options(state, seat)
    state = act(state, seat, f"organic:{italy}")
    state = act(state, seat, options(state, seat)[0])
    assert _targets(state, seat) == [f"x:{pc('italy', 'western', 'army')}"]


def test_an_army_on_a_contested_supply_symbol_traces_to_another_to_battle() -> None:
    """ "An Army in a contested space with a Supply symbol must trace supply to a different
    Supply symbol": alone in contested Germany the Soviet Army may not battle; with the chain
    from Moscow through East Europe it may."""
    duel = [("germany", "soviet", "army"), ("germany", "western", "army")]
    state, seat = _play([("moscow", "soviet", "army"), *duel])
    assert _targets(state, seat) == []
    state, seat = _play([*SOVIET_CHAIN, *duel])
    assert _targets(state, seat) == [f"x:{pc('germany', 'western', 'army')}"]


def test_both_enemies_in_a_space_one_battle_removes_one() -> None:
    """ "If both enemy Blocs are in a space, you may only battle one with a single battle
    action.": both the Western and the Nationalist Army in the Balkans are offered; battling
    the Western one leaves the Nationalist Army, and only the level against the West rises."""
    pieces = [
        *SOVIET_CHAIN,
        ("balkans", "soviet", "army"),
        ("balkans", "western", "army"),
        ("balkans", "nationalist", "army"),
    ]
    state, seat = _play(pieces)
    west, nat = pc("balkans", "western", "army"), pc("balkans", "nationalist", "army")
    assert sorted(_targets(state, seat)) == sorted([f"x:{west}", f"x:{nat}"])
    state = act(state, seat, f"x:{west}")
    state = _all_pass(state, WEST)
    state = pass_reactions(state)
    assert west not in state.pieces and nat in state.pieces
    assert state.level(SOV, WEST) == 1 and state.level(SOV, NA) == 0


def test_no_battle_against_the_own_bloc_of_another_nationality() -> None:
    """ "In order to battle another Bloc's Army or Navy": a Chinese Army beside an Indian Army
    is never a target of a Non-Aligned battle (one Bloc, even in a team game), and "a
    Nationalist Land Battle card only allows a Nationalist Army to battle"."""
    pieces = [
        ("china", "chinese", "army"),
        ("india", "indian", "army"),
        ("tibet", "indian", "army"),
        ("tibet", "western", "army"),
    ]
    state, seat = _play(pieces, bloc=NA, variant="4p", nat=2)  # a Chinese Land Battle
    assert _targets(state, seat) == []
    state, seat = _play(pieces, bloc=NA, variant="4p", nat=3)  # an Indian Land Battle
    assert _targets(state, seat) == [f"x:{pc('tibet', 'western', 'army')}"]


def test_defending_armies_need_no_supply() -> None:
    """ "Defending Armies and Navies do not need to be in supply.": the cut-off Western Army in
    Ukraine is battled and removed."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("ukraine", "soviet", "army"),
        ("ukraine", "western", "army"),
    ]
    state, seat = _play(pieces)
    west = pc("ukraine", "western", "army")
    assert not board.Supply(state).supplied(west)
    state = act(state, seat, f"x:{west}")
    state = act(state, 1, "pass")
    assert west not in state.pieces


# ---------------------------------------------------------------- escalation


def test_a_land_battle_card_escalates_against_the_battled_bloc() -> None:
    """ "the Land Battle card played also increases the Soviet vs. Western Bloc escalation
    level to 1" (Extended Example) and "Only the user's level against the target moves":
    the Western level against the Soviets stays 0."""
    state, seat = _play(
        [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    )
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    assert state.level(SOV, WEST) == 1 and state.level(WEST, SOV) == 0


def test_a_battle_card_with_no_target_escalates_nothing() -> None:
    """ "When you use a card that has a radiation symbol on it, advance the appropriate
    Escalation Level marker" (ruling 13: the target is the Bloc battled): a Land Battle card
    that battles nobody moves no level."""
    state, seat = _play([*SOVIET_CHAIN, ("germany", "western", "army")])
    state = act(state, seat, "skip")
    assert all(state.level(a, b) == 0 for a in range(3) for b in range(3) if a != b)


# ---------------------------------------------------------------- Air Defense and Interceptors


def test_air_defense_loses_an_adjacent_air_force_instead() -> None:
    """ "If you are being battled and are about to lose your Army or Navy, you may instead lose
    an Air Force in the same or an adjacent space.": the Western Air Force in France saves the
    Army in Germany; the one in the United Kingdom (two spaces away) is not offered."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
        ("united_kingdom", "western", "army"),
        ("united_kingdom", "western", "air"),
    ]
    state, seat, west = _battle(pieces, "germany")
    france = pc("france", "western", "air")
    assert options(state, 1) == [f"ad:{france}", "pass"]
    state = act(state, 1, f"ad:{france}")
    assert kind(state) == "intercept" and options(state, seat) == ["pass"]
    state = act(state, seat, "pass")
    assert west in state.pieces and france not in state.pieces


def test_the_defender_may_use_the_air_force_in_the_battle_space() -> None:
    """Air Defense: "an Air Force in the same ... space": the Western Air Force in Germany
    itself is lost instead of its Army."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
    ]
    state, seat = _play(pieces)
    west, air = pc("germany", "western", "army"), pc("germany", "western", "air")
    state = act(state, seat, f"x:{west}")
    state = act(state, 1, f"ad:{air}")
    state = act(state, seat, "pass")
    assert west in state.pieces and air not in state.pieces


def test_air_defense_in_a_sea_battle() -> None:
    """ "about to lose your Army or Navy, you may instead lose an Air Force": the Western Air
    Force with the Army in Germany defends the Navy in the Baltic Sea."""
    pieces = [
        *SOVIET_CHAIN,
        ("baltic_sea", "soviet", "navy"),
        ("baltic_sea", "western", "navy"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
    ]
    state, seat = _play(pieces, "sea_battle")
    navy, air = pc("baltic_sea", "western", "navy"), pc("germany", "western", "air")
    state = act(state, seat, f"x:{navy}")
    assert f"ad:{air}" in options(state, 1)


def test_interceptor_lets_the_battle_through_until_air_defense_again() -> None:
    """ "you may intercept the Air Defense by removing one of your own supplied Air Forces in
    the same or an adjacent space to the battle. This will allow the original battle to go
    through ... unless of course the defender has another eligible Air Force and decides to use
    Air Defense again!" and "taking turns to commit their Air Forces one at a time": two
    Western Air Forces against one Soviet interceptor save the Army."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
        ("italy", "western", "army"),
        ("italy", "western", "air"),
        ("east_europe", "soviet", "air"),
    ]
    state, seat, west = _battle(pieces, "germany")
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    soviet_air = pc("east_europe", "soviet", "air")
    assert options(state, seat) == [f"ic:{soviet_air}", "pass"]
    state = act(state, seat, f"ic:{soviet_air}")
    assert kind(state) == "defend" and options(state, 1) == [
        f"ad:{pc('italy', 'western', 'air')}",
        "pass",
    ]
    state = act(state, 1, f"ad:{pc('italy', 'western', 'air')}")
    assert options(state, seat) == ["pass"]  # the Soviets have no Air Force left
    state = act(state, seat, "pass")
    assert west in state.pieces
    assert soviet_air not in state.pieces


def test_intercepted_air_defense_removes_the_army() -> None:
    """Extended Example: "The Western Air Force in France is removed to use Air Defense ...
    the Soviets ... remove the Air Force in Germany as an Interceptor. The Western Army in Italy
    is removed." """
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "soviet", "air"),
        ("italy", "soviet", "army"),
        ("italy", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state, seat = _play(pieces)
    assert board.Supply(state).supplied(pc("italy", "soviet", "army"))
    west = pc("italy", "western", "army")
    state = act(state, seat, f"x:{west}")
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    state = act(state, seat, f"ic:{pc('germany', 'soviet', 'air')}")
    assert options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert west not in state.pieces
    assert pc("germany", "soviet", "army") in state.pieces


def test_a_bloc_not_in_the_battle_lends_no_air_force() -> None:
    """ "A Bloc not involved in a battle cannot use an Air Force to support either of the
    combatants.": the Non-Aligned Air Force next to Germany is offered to nobody, and the
    Non-Aligned seat has nothing to decide."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("balkans", "nationalist", "army"),
        ("balkans", "nationalist", "air"),
    ]
    state, seat = _play(pieces)
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    assert options(state, 1) == ["pass"]
    assert options(state, 2) == []


def test_air_defense_is_not_used_against_an_air_strike() -> None:
    """ "(You may not use Air Defense against Air Strikes, only battles.)": a Soviet Air Strike
    on the Western Army in Germany offers the Western Air Force in France nothing, while
    Berlin Airlift ("about to be removed") still answers it."""
    pieces = [
        *SOVIET_CHAIN,
        ("east_europe", "soviet", "air"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state = scenario(pieces=pieces, active=SOV, step="air")
    air = _first(state, 0, "air_power")
    give(state, 0, "hand", [air])
    airlift = cid("Berlin Airlift")
    give(state, 1, "espionage", [airlift])
    west = pc("germany", "western", "army")
    state = act(state, 0, f"air:{air}")
    state = act(state, 0, f"st:{west}")
    assert options(state, 1) == [f"use:{airlift}", "pass"]
    state = act(state, 1, f"use:{airlift}")
    state = pass_reactions(state)
    assert west in state.pieces and pc("france", "western", "air") in state.pieces


def test_air_defense_is_not_used_against_an_eliminate() -> None:
    """ "You may not use Air Defense if an Army or Navy is eliminated!" (Extended Example:
    "Since the card specifies eliminate, the Air Force in France cannot come to the aid of the
    Army in Germany")."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state = scenario(pieces=pieces, active=SOV)
    kondensator = cid("Kondensator Rocket Artillery")
    give(state, 0, "prepared", [kondensator])
    state.vp[SOV] = 5
    state = act(state, 0, f"use:{kondensator}")
    if kind(state) == "pick_target":
        state = act(state, 0, f"t:{WEST}")
    west = pc("germany", "western", "army")
    state = act(state, 0, f"x:{west}")
    assert options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert west not in state.pieces


def test_an_eliminate_needs_no_friendly_army() -> None:
    """ "When a card directs you to eliminate an enemy piece, no battle occurs, so the battle
    rules do not apply ... you can use the Palestine Liberation Organization card without
    having a friendly army in the Middle East.": and no "after you battle" window opens."""
    state = scenario(pieces=[("middle_east", "western", "army")], active=NA)
    plo = cid("Palestine Liberation Organization")
    seat = next(s for s in state.bloc_seats(NA) if plo in state.seats[s].deck)
    give(state, seat, "espionage", [plo])
    state = act(state, seat, f"use:{plo}")
    state = act(state, seat, options(state, seat)[1])
    west = pc("middle_east", "western", "army")
    assert _targets(state, seat) == [f"x:{west}"]
    state = act(state, seat, f"x:{west}")
    state = act(state, 1, "pass")
    assert west not in state.pieces


# ---------------------------------------------------------------- Air Strikes


def test_an_air_strike_reaches_the_same_or_an_adjacent_space_only() -> None:
    """ "An Air Strike eliminates an enemy piece in the same or an adjacent space.": the
    Western Air Force in France reaches Germany and the North Atlantic, not East Europe."""
    pieces = [
        ("france", "western", "army"),
        ("france", "western", "air"),
        ("germany", "soviet", "army"),
        ("east_europe", "soviet", "army"),
        ("north_atlantic", "soviet", "navy"),
    ]
    state = scenario(pieces=pieces, active=WEST, step="air")
    air = _first(state, 1, "air_power")
    give(state, 1, "hand", [air])
    state = act(state, 1, f"air:{air}")
    expected = {
        f"st:{pc('germany', 'soviet', 'army')}",
        f"st:{pc('north_atlantic', 'soviet', 'navy')}",
    }
    assert set(_targets(state, 1)) == expected


def test_an_air_strike_on_a_shielded_space_may_only_hit_the_air_force() -> None:
    """ "You may not use an Air Strike to eliminate an enemy Army or Navy if that Enemy has an
    Air Force in the same space. In that case, your Air Strike may only target the enemy Air
    Force.": the strike removes the Soviet Air Force in Germany and leaves its Army."""
    pieces = [
        ("france", "western", "army"),
        ("france", "western", "air"),
        ("germany", "soviet", "army"),
        ("germany", "soviet", "air"),
    ]
    state = scenario(pieces=pieces, active=WEST, step="air")
    air = _first(state, 1, "air_power")
    give(state, 1, "hand", [air])
    state = act(state, 1, f"air:{air}")
    soviet_air = pc("germany", "soviet", "air")
    assert _targets(state, 1) == [f"st:{soviet_air}"]
    state = act(state, 1, f"st:{soviet_air}")
    state = act(state, 0, "pass")
    assert soviet_air not in state.pieces and pc("germany", "soviet", "army") in state.pieces
    assert state.level(WEST, SOV) == 1


def test_an_air_strike_never_hits_the_own_bloc() -> None:
    """ "An Air Strike eliminates an enemy piece": a Chinese Air Strike offers the Western Army
    in Manchuria and never the Indian or Chinese Armies around it (4 players)."""
    pieces = [
        ("china", "chinese", "army"),
        ("china", "chinese", "air"),
        ("szechuan", "indian", "army"),
        ("manchuria", "western", "army"),
    ]
    state = scenario("4p", pieces=pieces, active=NA, step="air")
    seat = state.bloc_seats(NA)[0]
    air = _first(state, seat, "air_power", 2)
    give(state, seat, "hand", [air])
    state = act(state, seat, f"air:{air}")
    assert _targets(state, seat) == [f"st:{pc('manchuria', 'western', 'army')}"]


def test_an_air_strike_opens_no_after_battle_window() -> None:
    """An Air Strike "eliminates"; "Use immediately after you battle in a land space" (Offensive
    Doctrine) is not offered after a Soviet Air Strike on Germany."""
    pieces = [*SOVIET_CHAIN, ("east_europe", "soviet", "air"), ("germany", "western", "army")]
    state = scenario(pieces=pieces, active=SOV, step="air")
    air = _first(state, 0, "air_power")
    give(state, 0, "hand", [air])
    doctrine = cid("Offensive Doctrine")
    give(state, 0, "espionage", [doctrine])
    state = act(state, 0, f"air:{air}")
    state = act(state, 0, f"st:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    state = pass_reactions(state)
    assert doctrine in state.seats[0].espionage
    assert kind(state) == "action"


# ---------------------------------------------------------------- reactions after battles


def test_offensive_doctrine_after_a_land_battle_not_a_sea_battle() -> None:
    """ "Offensive Doctrine (Espionage): Use immediately after you battle in a land space.":
    offered after the Soviet battle in Germany, not after the sea battle in the Baltic Sea."""
    sea = [*SOVIET_CHAIN, ("baltic_sea", "soviet", "navy"), ("baltic_sea", "western", "navy")]
    doctrine = cid("Offensive Doctrine")
    state, seat = _play(sea, "sea_battle")
    give(state, seat, "espionage", [doctrine])
    state = act(state, seat, f"x:{pc('baltic_sea', 'western', 'navy')}")
    state = act(state, 1, "pass")
    assert kind(state) != "react"
    assert doctrine in state.seats[seat].espionage
    land = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    state, seat = _play(land)
    give(state, seat, "espionage", [doctrine])
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert kind(state) == "react" and f"use:{doctrine}" in options(state, seat)
    state = act(state, seat, f"use:{doctrine}")
    assert f"p:0:{sp('france')}" in options(state, seat)


# ---------------------------------------------------------------- Air Forces off their Army


def test_an_air_force_left_alone_is_eliminated_or_relocated_to_an_unsupplied_host() -> None:
    """ "If your Air Force ever finds itself in a space without an Army or Navy of the same
    nationality, you have a choice: either eliminate your Air Force, or discard a card from hand
    to relocate it to an adjacent space with an Army or Navy of the same nationality. That Army
    or Navy does not have to be in supply, unlike when you rebase.": the Western Air Force in
    Germany may move to the cut-off Army in Italy."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
        ("italy", "western", "army"),
        ("italy", "soviet", "army"),
    ]
    state, seat = _play(pieces)
    give(state, 1, "hand", state.seats[1].deck[:1])
    assert not board.Supply(state).supplied(pc("italy", "western", "army"))
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert kind(state) == "orphan"
    assert options(state, 1) == ["elim", f"reloc:{sp('italy')}"]


def test_an_orphaned_air_force_with_an_empty_hand_is_eliminated() -> None:
    """ "either eliminate your Air Force, or discard a card from hand to relocate it": with no
    card in hand the West may only eliminate the Air Force."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
        ("france", "western", "army"),
    ]
    state, seat = _play(pieces)
    assert state.seats[1].hand == []
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert options(state, 1) == ["elim"]
    state = act(state, 1, "elim")
    assert pc("germany", "western", "air") not in state.pieces


def test_rebase_builds_elsewhere_with_a_supplied_host_one_air_force_per_space() -> None:
    """ "Rebase - Discard any card from hand to remove one of your Air Forces from the board and
    build it elsewhere." and "A Bloc may only have one Air Force in a space.": the Soviet Air
    Force in East Europe may go to supplied Moscow, not to White Russia (Air Force there) nor
    stay in East Europe; with an empty hand it may not rebase."""
    pieces = [
        *SOVIET_CHAIN,
        ("east_europe", "soviet", "air"),
        ("white_russia", "soviet", "air"),
    ]
    state = scenario(pieces=pieces, active=SOV, step="air")
    af = pc("east_europe", "soviet", "air")
    assert not [o for o in options(state, 0) if o.startswith(f"rebase:{af}:")]
    give(state, 0, "hand", state.seats[0].deck[:1])
    dests = {o.split(":")[2] for o in options(state, 0) if o.startswith(f"rebase:{af}:")}
    assert dests == {str(sp("moscow"))}


# ---------------------------------------------------------------- batch 2: teams, protections, pools


def test_either_defending_teammate_may_use_air_defense() -> None:
    """ "Either teammate on a Bloc may decide to use an Air Force in a battle.": in a 5-player
    game both Western seats are offered the Air Force in France, and the second may use it
    after the first passed."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state, seat, west = _battle(pieces, "germany", variant="5p")
    first, second = state.bloc_seats(WEST)
    air = pc("france", "western", "air")
    assert options(state, first) == [f"ad:{air}", "pass"] == options(state, second)
    state = act(state, first, "pass")
    state = act(state, second, f"ad:{air}")
    assert kind(state) == "intercept"
    state = act(state, seat, "pass")
    assert west in state.pieces


def test_the_non_aligned_defends_against_a_soviet_battle() -> None:
    """ "If you are being battled and are about to lose your Army or Navy, you may instead lose
    an Air Force": the Non-Aligned teammates (4 players) may lose the Chinese Air Force in China
    to save the Chinese Army in Manchuria, which the Soviets battle from Siberia's chain."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("siberia", "soviet", "army"),
        ("manchuria", "soviet", "army"),
        ("manchuria", "chinese", "army"),
        ("china", "chinese", "army"),
        ("china", "chinese", "air"),
    ]
    state, seat = _play(pieces, variant="4p")
    target = pc("manchuria", "chinese", "army")
    assert _targets(state, seat) == [f"x:{target}"]
    state = act(state, seat, f"x:{target}")
    air = pc("china", "chinese", "air")
    for s in state.bloc_seats(NA):
        assert options(state, s) == [f"ad:{air}", "pass"]
    assert state.level(SOV, NA) == 1


def test_berlin_airlift_keeps_the_battled_army_and_the_battle_still_escalates() -> None:
    """Extended Example: "The Soviet player uses Preemptive Attack to initiate a battle in
    Germany; the Land Battle card played also increases the Soviet vs. Western Bloc escalation
    level to 1." then "The Western Bloc player uses Berlin Airlift, and does not remove the
    Western Bloc Army." """
    pieces = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    state, seat = _play(pieces)
    airlift = cid("Berlin Airlift")
    give(state, 1, "espionage", [airlift])
    west = pc("germany", "western", "army")
    state = act(state, seat, f"x:{west}")
    assert state.level(SOV, WEST) == 1
    assert options(state, 1) == [f"use:{airlift}", "pass"]
    state = act(state, 1, f"use:{airlift}")
    state = pass_reactions(state)
    assert west in state.pieces and state.level(SOV, WEST) == 1


def test_berlin_airlift_covers_armies_in_or_adjacent_to_germany_only() -> None:
    """ "Berlin Airlift (Espionage): Use when a Western Army in or adjacent to Germany is about
    to be removed.": it is offered for the Western Army in Italy (adjacent to Germany), not for
    the one in Spain, nor for the Western Navy in the Baltic Sea."""
    airlift = cid("Berlin Airlift")
    for space, offered in (("italy", True), ("spain", False)):
        pieces = [*SOVIET_CHAIN, ("balkans", "soviet", "army")]
        pieces += [(space, "soviet", "army"), (space, "western", "army")]
        state, seat = _play(pieces)
        give(state, 1, "espionage", [airlift])
        state.organic.append(pc(space, "soviet", "army"))  # paid Organic Supply (Spain)
        west = pc(space, "western", "army")
        state = act(state, seat, f"x:{west}")
        assert (f"use:{airlift}" in options(state, 1)) is offered
    sea = [*SOVIET_CHAIN, ("baltic_sea", "soviet", "navy"), ("baltic_sea", "western", "navy")]
    state, seat = _play(sea, "sea_battle")
    give(state, 1, "espionage", [airlift])
    state = act(state, seat, f"x:{pc('baltic_sea', 'western', 'navy')}")
    assert options(state, 1) == ["pass"]


def test_offensive_doctrine_may_free_an_army_when_the_pool_is_empty() -> None:
    """ "At any time during your own Bloc's turn, you may remove your own Bloc's piece from the
    board (thereby making it available to be built or recruited)": with all 13 Soviet Armies
    on the board, Offensive Doctrine ("Build a Soviet Army in or adjacent to the space just
    battled") offers to free an Army, then builds it next to Germany."""
    spread = ["ukraine", "caucasus", "urals", "siberia", "central_asia", "balkans", "scandinavia"]
    spread += ["mongolia", "manchuria"]
    pieces = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    pieces += [(s, "soviet", "army") for s in spread]
    state, seat = _play(pieces)
    assert not board.available(state, 0, 0)
    doctrine = cid("Offensive Doctrine")
    give(state, seat, "espionage", [doctrine])
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    state = act(state, seat, f"use:{doctrine}")
    assert not [o for o in options(state, seat) if o.startswith("p:")]
    manchuria = pc("manchuria", "soviet", "army")
    assert f"free:{manchuria}" in options(state, seat)
    state = act(state, seat, f"free:{manchuria}")
    assert f"p:0:{sp('france')}" in options(state, seat)


def test_a_sea_battle_air_defense_two_spaces_away_is_not_offered() -> None:
    """Air Defense: "an Air Force in the same or an adjacent space": the Western Air Force in
    the United Kingdom is two spaces from the Baltic Sea and cannot save the Navy there."""
    pieces = [
        *SOVIET_CHAIN,
        ("baltic_sea", "soviet", "navy"),
        ("baltic_sea", "western", "navy"),
        ("united_kingdom", "western", "army"),
        ("united_kingdom", "western", "air"),
    ]
    state, seat = _play(pieces, "sea_battle")
    navy = pc("baltic_sea", "western", "navy")
    state = act(state, seat, f"x:{navy}")
    assert options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert navy not in state.pieces
    assert state.level(SOV, WEST) == 1


def test_an_interceptor_two_spaces_away_is_not_offered() -> None:
    """Interceptors: "one of your own supplied Air Forces in the same or an adjacent space to
    the battle": the supplied Soviet Air Force in Moscow is too far from Germany."""
    pieces = [
        *SOVIET_CHAIN,
        ("moscow", "soviet", "air"),
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state, seat = _play(pieces)
    state = act(state, seat, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    assert options(state, seat) == ["pass"]


def test_the_attackers_air_force_in_the_battle_space_may_intercept() -> None:
    """Interceptors: "in the same ... space to the battle": the Soviet Air Force in Germany
    intercepts and its Army stays."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "soviet", "air"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state, seat, west = _battle(pieces, "germany")
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    air = pc("germany", "soviet", "air")
    assert options(state, seat) == [f"ic:{air}", "pass"]
    state = act(state, seat, f"ic:{air}")
    state = act(state, 1, "pass")
    assert west not in state.pieces and air not in state.pieces
    assert pc("germany", "soviet", "army") in state.pieces


def test_organic_supply_in_a_battle_is_not_offered_with_an_empty_hand() -> None:
    """ "you may discard a card from hand to put an Army or Navy in supply": with no card left
    in hand the cut-off Soviet Army in Italy cannot be paid for and battles nobody."""
    pieces = [
        ("moscow", "soviet", "army"),
        ("italy", "soviet", "army"),
        ("italy", "western", "army"),
    ]
    state, seat = _play(pieces)
    assert state.seats[seat].hand == []
    assert options(state, seat) == ["skip"]


# ---------------------------------------------------------------- batch 3: straits, WMD battles


MED_WEST: list[Piece] = [
    ("italy", "western", "army"),
    ("mediterranean", "western", "navy"),
    ("mediterranean", "western", "air"),
]


def _western_strike(pieces: list[Piece]) -> tuple[CwState, list[str]]:
    """The West plays Air Power in its Air step; returns the position and the strike options."""
    state = scenario(pieces=pieces, active=WEST, step="air")
    air = _first(state, 1, "air_power")
    give(state, 1, "hand", [air])
    state = act(state, 1, f"air:{air}")
    return state, _targets(state, 1)


def test_an_air_strike_crosses_an_open_strait_only() -> None:
    """ "A strait is open to you if no enemy Army occupies the Land space with the anchor icon.
    If the strait is open, then the two sea spaces are considered adjacent": the Western Air
    Force in the Mediterranean strikes the Soviet Navy in the Black Sea across the Bosporus,
    not once a Soviet Army holds Turkey."""
    navy = f"st:{pc('black_sea', 'soviet', 'navy')}"
    soviets: list[Piece] = [("ukraine", "soviet", "army"), ("black_sea", "soviet", "navy")]
    _, targets = _western_strike([*MED_WEST, *soviets])
    assert navy in targets
    _, targets = _western_strike([*MED_WEST, *soviets, ("turkey", "soviet", "army")])
    assert navy not in targets
    assert f"st:{pc('turkey', 'soviet', 'army')}" in targets


def test_air_defense_across_a_strait_closed_to_the_defender_is_not_offered() -> None:
    """Air Defense "in the same or an adjacent space", with "If the strait is open, then the
    two sea spaces are considered adjacent; otherwise, the spaces are not considered
    adjacent": the Western Air Force in the Mediterranean defends the Navy in the Black Sea
    across an open Bosporus, not across one a Soviet Army in Turkey closes."""
    base: list[Piece] = [
        ("moscow", "soviet", "army"),
        ("ukraine", "soviet", "army"),
        ("black_sea", "soviet", "navy"),
        ("black_sea", "western", "navy"),
        *MED_WEST,
    ]
    air = f"ad:{pc('mediterranean', 'western', 'air')}"
    for extra, offered in (([], True), ([("turkey", "soviet", "army")], False)):
        state, seat = _play([*base, *extra], "sea_battle")
        state = act(state, seat, f"x:{pc('black_sea', 'western', 'navy')}")
        assert (air in options(state, 1)) is offered


def test_an_air_strike_from_a_sea_air_force_hits_a_coastal_army() -> None:
    """ "An Air Strike eliminates an enemy piece in the same or an adjacent space": the Western
    Air Force with the Navy in the Mediterranean eliminates the Soviet Army in the Balkans,
    and the Air Power card adds its "?" symbol against the Soviets."""
    state, targets = _western_strike([*MED_WEST, ("balkans", "soviet", "army")])
    army = pc("balkans", "soviet", "army")
    assert targets == [f"st:{army}"]
    state = act(state, 1, f"st:{army}")
    state = act(state, 0, "pass")
    assert army not in state.pieces and state.level(WEST, SOV) == 1


def test_building_an_air_force_with_air_power_escalates_nothing() -> None:
    """ "An Air Power card increases the escalation level if it is used for an Air Strike": an
    Air Power card used to build an Air Force moves no level."""
    state = scenario(pieces=[*SOVIET_CHAIN, ("germany", "western", "army")], active=SOV, step="air")
    air = _first(state, 0, "air_power")
    give(state, 0, "hand", [air])
    state = act(state, 0, f"air:{air}")
    state = act(state, 0, f"af:{sp('east_europe')}")
    assert pc("east_europe", "soviet", "air") in state.pieces
    assert all(state.level(a, b) == 0 for a in range(3) for b in range(3) if a != b)


def test_tyulpan_battles_only_the_enemy_it_targets_in_the_built_space() -> None:
    """2S4 Tyulpan Mortar: "Use immediately after you build an Army. Battle an enemy in the same
    space as the Army just built." and "If both enemy Blocs are in a space, you may only battle
    one with a single battle action": targeting the Non-Aligned Bloc, the Soviets battle the
    Nationalist Army in the Balkans, never the Western one there."""
    pieces = [*SOVIET_CHAIN, ("balkans", "western", "army"), ("balkans", "nationalist", "army")]
    state = scenario(pieces=pieces, active=SOV, step="action")
    build = _first(state, 0, "build_army")
    tyulpan = cid("2S4 Tyulpan Mortar")
    give(state, 0, "hand", [build])
    give(state, 0, "prepared", [tyulpan])
    state = act(state, 0, f"play:{build}")
    state = act(state, 0, f"p:0:{sp('balkans')}")
    state = act(state, 0, f"use:{tyulpan}")
    state = act(state, 0, f"t:{NA}")
    assert _targets(state, 0) == [f"x:{pc('balkans', 'nationalist', 'army')}"]
    assert state.level(SOV, NA) == 1 and state.level(SOV, WEST) == 0


def test_an_eliminated_army_leaves_its_air_force_to_be_relocated() -> None:
    """ "If your Air Force ever finds itself in a space without an Army or Navy of the same
    nationality, you have a choice": Kondensator eliminates the Western Army in Germany and
    the West chooses for the Air Force left there."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
        ("france", "western", "army"),
    ]
    state = scenario(pieces=pieces, active=SOV)
    kondensator = cid("Kondensator Rocket Artillery")
    give(state, 0, "prepared", [kondensator])
    give(state, 1, "hand", state.seats[1].deck[:4])
    state.vp[SOV] = 5
    state = act(state, 0, f"use:{kondensator}")
    if kind(state) == "pick_target":
        state = act(state, 0, f"t:{WEST}")
    state = act(state, 0, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert kind(state) == "orphan"
    assert options(state, 1) == ["elim", f"reloc:{sp('france')}"]


def test_a_non_aligned_sea_battle_needs_a_navy_of_the_cards_nationality() -> None:
    """ "when using a Non-Aligned Bloc card, you must adhere to the nationality stated on the
    card": the Indian Sea Battle card battles the Western Navy in the Indian Ocean with the
    Indian Navy there; the Chinese one has no Chinese Navy to battle with."""
    pieces = [
        ("india", "indian", "army"),
        ("indian_ocean", "indian", "navy"),
        ("indian_ocean", "western", "navy"),
    ]
    navy = pc("indian_ocean", "western", "navy")
    state, seat = _play(pieces, "sea_battle", bloc=NA, nat=3)
    assert _targets(state, seat) == [f"x:{navy}"]
    state, seat = _play(pieces, "sea_battle", bloc=NA, nat=2)
    assert _targets(state, seat) == []


# ---------------------------------------------------------------- batch 4: contested spaces, repeats


def test_open_uncontested_and_contested_spaces() -> None:
    """ "A space with no pieces in it is open. A space with pieces from only one Bloc is
    uncontested. A space with pieces from two or three different Blocs is contested." and
    "enemy pieces may occupy the same space": the Chinese and Indian pieces of one Bloc do
    not contest each other's neighbourhood; three Blocs in the Balkans contest it."""
    pieces = [
        ("balkans", "soviet", "army"),
        ("balkans", "western", "army"),
        ("balkans", "nationalist", "army"),
        ("india", "indian", "army"),
        ("india", "indian", "air"),
        ("germany", "soviet", "army"),
    ]
    state = scenario(pieces=pieces)
    occ = board.occupants(state)
    assert occ[sp("spain")] == 0
    assert not board.contested(occ[sp("india")]) and not board.contested(occ[sp("germany")])
    assert board.contested(occ[sp("balkans")])


def test_each_battle_card_escalates_again() -> None:
    """ "When you use a card that has a radiation symbol on it, advance the appropriate
    Escalation Level marker as many spaces on the track as the number of symbols on the card":
    Preemptive Attack's Land Battle in the Begin Turn step and a second Land Battle in the
    Action step raise the Soviet level against the West to 2."""
    pieces = [
        *SOVIET_CHAIN,
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("balkans", "soviet", "army"),
        ("balkans", "western", "army"),
    ]
    state = scenario(pieces=pieces, active=SOV)
    preemptive = cid("Preemptive Attack")
    battles = [c for c in state.seats[0].deck if card(c).type == "land_battle"][:2]
    give(state, 0, "espionage", [preemptive])
    give(state, 0, "hand", battles)
    state = act(state, 0, f"use:{preemptive}")
    state = act(state, 0, f"play:{battles[0]}")
    state = act(state, 0, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    state = pass_reactions(state)
    assert state.level(SOV, WEST) == 1
    while kind(state) != "action":
        state = act(state, 0, "done" if "done" in options(state, 0) else "pass")
        state = pass_reactions(state)
    state = act(state, 0, f"play:{battles[1]}")
    state = act(state, 0, f"x:{pc('balkans', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert state.level(SOV, WEST) == 2
    assert pc("germany", "western", "army") not in state.pieces
    assert pc("balkans", "western", "army") not in state.pieces


def test_a_nationalist_army_battles_only_when_a_status_card_supplies_it() -> None:
    """ "a Nationalist Land Battle card only allows a Nationalist Army to battle", "An Army or
    Navy must be in supply to initiate a battle" and Arab League: "Nationalist pieces in the
    Middle East and North Africa are always in supply": the Nationalist Army in the Middle
    East battles the Western Army there only with Arab League prepared (or Organic Supply)."""
    pieces = [("middle_east", "nationalist", "army"), ("middle_east", "western", "army")]
    west = f"x:{pc('middle_east', 'western', 'army')}"
    state, seat = _play(pieces, bloc=NA, nat=4)
    assert _targets(state, seat) == []
    state, seat = _play(pieces, bloc=NA, nat=4)
    give(state, seat, "prepared", [cid("Arab League")])
    assert _targets(state, seat) == [west]
    state = act(state, seat, west)
    state = act(state, 1, "pass")
    assert pc("middle_east", "western", "army") not in state.pieces
    assert state.level(NA, WEST) == 1


def test_a_battle_in_a_three_bloc_space_leaves_it_contested() -> None:
    """ "A space with pieces from two or three different Blocs is contested": after the Soviets
    battle the Western Army out of the Balkans, the Nationalist Army still contests it."""
    pieces = [
        *SOVIET_CHAIN,
        ("balkans", "soviet", "army"),
        ("balkans", "western", "army"),
        ("balkans", "nationalist", "army"),
    ]
    state, seat = _play(pieces)
    state = act(state, seat, f"x:{pc('balkans', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert board.contested(board.occupants(state)[sp("balkans")])


def test_a_card_battle_needs_a_supplied_piece_in_the_enemys_space() -> None:
    """ "When a card directs you to battle, you must follow all of the rules set out above. For
    example if you play Indo-Pakistani War, you must have a supplied piece in the same space as
    the enemy, if you wish to battle.": the Indian Army in India does not battle the Western
    Army next door in Afghanistan."""
    state = scenario(
        pieces=[("india", "indian", "army"), ("afghanistan", "western", "army")],
        active=NA,
        step="action",
    )
    war = cid("Indo-Pakistani War")
    give(state, 2, "hand", [war])
    state = act(state, 2, f"play:{war}")
    while kind(state) in ("fx_recruit",):
        state = act(state, 2, "skip")
    assert kind(state) == "fx_battle" and _targets(state, 2) == []


def test_an_intercepted_battle_orphans_the_air_force_left_with_the_removed_army() -> None:
    """Interceptors "allow the original battle to go through, and result in the removal of the
    enemy Army", and "If your Air Force ever finds itself in a space without an Army or Navy of
    the same nationality, you have a choice": the West loses France's Air Force to Air
    Defense, the Soviets intercept, the Army in Germany goes and its own Air Force there must
    be eliminated or relocated (to France)."""
    pieces = [
        *SOVIET_CHAIN,
        ("east_europe", "soviet", "air"),
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("germany", "western", "air"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state, seat = _play(pieces)
    give(state, 1, "hand", state.seats[1].deck[:1])
    west = pc("germany", "western", "army")
    state = act(state, seat, f"x:{west}")
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    state = act(state, seat, f"ic:{pc('east_europe', 'soviet', 'air')}")
    assert options(state, 1) == [f"ad:{pc('germany', 'western', 'air')}", "pass"]
    state = act(state, 1, "pass")
    assert west not in state.pieces
    assert kind(state) == "orphan" and options(state, 1) == ["elim", f"reloc:{sp('france')}"]


def test_any_non_aligned_air_force_may_defend_and_intercept() -> None:
    """Air Defense "lose an Air Force in the same or an adjacent space" and Interceptors
    "removing one of your own supplied Air Forces" name no nationality (only cards do: "when
    using a Non-Aligned Bloc card, you must adhere to the nationality stated on the card"):
    the West defends its Army in Tibet against an Indian Land Battle with its Air Force in
    Afghanistan, and the Chinese Air Force in Szechuan intercepts it."""
    pieces = [
        ("india", "indian", "army"),
        ("tibet", "indian", "army"),
        ("tibet", "western", "army"),
        ("afghanistan", "western", "army"),
        ("afghanistan", "western", "air"),
        ("china", "chinese", "army"),
        ("szechuan", "chinese", "army"),
        ("szechuan", "chinese", "air"),
    ]
    state, seat, west = _battle(pieces, "tibet", bloc=NA, nat=3)
    state = act(state, 1, f"ad:{pc('afghanistan', 'western', 'air')}")
    chinese = pc("szechuan", "chinese", "air")
    assert options(state, seat) == [f"ic:{chinese}", "pass"]
    state = act(state, seat, f"ic:{chinese}")
    state = act(state, 1, "pass")
    assert west not in state.pieces


def test_an_eliminate_is_no_battle_for_offensive_doctrine() -> None:
    """ "When a card directs you to eliminate an enemy piece, no battle occurs": after
    Kondensator eliminates the Western Army in Germany, Offensive Doctrine ("Use immediately
    after you battle in a land space") is not offered."""
    pieces = [*SOVIET_CHAIN, ("germany", "soviet", "army"), ("germany", "western", "army")]
    state = scenario(pieces=pieces, active=SOV)
    kondensator, doctrine = cid("Kondensator Rocket Artillery"), cid("Offensive Doctrine")
    give(state, 0, "prepared", [kondensator])
    give(state, 0, "espionage", [doctrine])
    state.vp[SOV] = 5
    state = act(state, 0, f"use:{kondensator}")
    if kind(state) == "pick_target":
        state = act(state, 0, f"t:{WEST}")
    state = act(state, 0, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    while kind(state) != "begin":
        assert f"use:{doctrine}" not in options(state, 0)
        state = _step(state)
    assert doctrine in state.seats[0].espionage


def _step(state: CwState) -> CwState:
    """The first seat asked passes, or else takes its first option."""
    decision = RULES.decision(state)
    assert decision is not None
    seat = decision.seats[0]
    ids = [o.id for o in decision.options_for(seat)]
    return act(state, seat, "pass" if "pass" in ids else ids[0])


def test_after_an_interceptor_the_defender_may_still_use_another_reaction() -> None:
    """ "This will allow the original battle to go through ... unless of course the defender
    has another eligible Air Force" and "barring some other reaction, the enemy Army or Navy
    you're battling is removed": after the Soviet interceptor, the West is asked again and
    saves the Army in Germany with Berlin Airlift."""
    pieces = [
        *SOVIET_CHAIN,
        ("east_europe", "soviet", "air"),
        ("germany", "soviet", "army"),
        ("germany", "western", "army"),
        ("france", "western", "army"),
        ("france", "western", "air"),
    ]
    state, seat = _play(pieces)
    airlift = cid("Berlin Airlift")
    give(state, 1, "espionage", [airlift])
    west = pc("germany", "western", "army")
    state = act(state, seat, f"x:{west}")
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    state = act(state, seat, f"ic:{pc('east_europe', 'soviet', 'air')}")
    assert options(state, 1) == [f"use:{airlift}", "pass"]
    state = act(state, 1, f"use:{airlift}")
    state = pass_reactions(state)
    assert west in state.pieces
    assert pc("france", "western", "air") not in state.pieces
    assert pc("east_europe", "soviet", "air") not in state.pieces


def test_one_teammate_strikes_and_the_whole_defending_team_is_asked() -> None:
    """ "Only one teammate may perform the Air step" and "Status, WMD, and Espionage cards are
    used at the discretion of the player of the card": in 6 players one Soviet teammate's Air
    Strike on the Western Army in Germany closes the step for the other, and each Western
    teammate answers for itself (the one holding Berlin Airlift may use it)."""
    pieces = [*SOVIET_CHAIN, ("east_europe", "soviet", "air"), ("germany", "western", "army")]
    state = scenario("6p", pieces=pieces, active=SOV, step="air")
    first, second = state.bloc_seats(SOV)
    air = _first(state, first, "air_power")
    give(state, first, "hand", [air])
    give(state, second, "hand", [_first(state, second, "air_power")])
    airlift = cid("Berlin Airlift")
    owner = next(s for s in state.bloc_seats(WEST) if airlift in state.seats[s].deck)
    mate = next(s for s in state.bloc_seats(WEST) if s != owner)
    give(state, owner, "espionage", [airlift])
    state = act(state, first, f"air:{air}")
    west = pc("germany", "western", "army")
    state = act(state, first, f"st:{west}")
    assert options(state, mate) == ["pass"] and options(state, owner) == [f"use:{airlift}", "pass"]
    state = act(state, mate, "pass")
    assert west in state.pieces
    state = act(state, owner, "pass")
    assert west not in state.pieces
    state = pass_reactions(state)
    assert kind(state) == "action"
