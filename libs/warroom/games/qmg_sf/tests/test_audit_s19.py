"""Rulebook audit (session 19): combat edges, reaction windows and who may use them.

The first test failed before its fix; the others pin edges the engine already had right."""

from __future__ import annotations

from warroom.games.qmg_sf import supply, views
from warroom.games.qmg_sf.state import ALLIES, AXIS, PACT, UK
from warroom.games.qmg_sf.tests.helpers import (
    act,
    blank,
    desperate_attack,
    hand,
    ids,
    kind_of,
    move,
    put,
    sp,
)


def test_defender_anti_air_needs_a_piece_of_its_faction_still_in_the_space() -> None:
    """Anti-Air: "If you are defending, this card must belong to the same faction as a piece
    in the attacked space". The Allies lose the only USA piece in Tobruk; when the Pact then
    remove an airplane to continue, no USA piece is in the space, so a USA Anti-Air card
    cannot end the round (a UK one still can)."""
    s = blank(phase="action", round_=8)
    put(s, "Pact", "infantry", "benghazi")
    pact_plane = put(s, "Pact", "airplane", "benghazi")
    put(s, "UK", "infantry", "tobruk")
    usa_plane = put(s, "USA", "airplane", "tobruk")
    hand(s, AXIS, 55, 56)
    hand(s, ALLIES, 25)  # Halverson Project: Anti-Air (USA)
    s = desperate_attack(s, (55, 56), PACT, "benghazi", "tobruk")
    s = act(s, f"rm{usa_plane}")
    s = act(s, f"rm{pact_plane}")
    assert kind_of(s) == "c_def"  # no Anti-Air window: the round began
    s2 = blank(phase="action", round_=8)
    put(s2, "Pact", "infantry", "benghazi")
    pact_plane = put(s2, "Pact", "airplane", "benghazi")
    put(s2, "UK", "infantry", "tobruk")
    usa_plane = put(s2, "USA", "airplane", "tobruk")
    hand(s2, AXIS, 55, 56)
    hand(s2, ALLIES, 25, 8)  # and Desert Air Force: Anti-Air (UK)
    s2 = desperate_attack(s2, (55, 56), PACT, "benghazi", "tobruk")
    s2 = act(act(s2, f"rm{usa_plane}"), f"rm{pact_plane}")
    assert kind_of(s2) == "c_aa_def" and ids(s2) == ["pass", "aa8"]


def test_a_carrier_may_be_the_last_piece_of_an_attacking_force() -> None:
    """Sea: "A carrier cannot be removed to continue an attack, but may be the last piece in
    an attacking force." A UK fleet and carrier attack two Pact fleets: the fleet may be
    removed to continue (the carrier stays), the carrier never."""
    s = blank(phase="action", active=ALLIES, round_=8)
    fleet = put(s, "UK", "fleet", "eastern_med")
    carrier = put(s, "UK", "carrier", "eastern_med")
    p1 = put(s, "Pact", "fleet", "gulf_of_sidra")
    p2 = put(s, "Pact", "fleet", "gulf_of_sidra")
    hand(s, ALLIES, 21, 22)
    s = desperate_attack(s, (21, 22), UK, "eastern_med", "gulf_of_sidra")
    s = act(s, f"rm{p1}")
    assert kind_of(s) == "c_cont" and f"rm{fleet}" in ids(s) and f"rm{carrier}" not in ids(s)
    s = act(s, f"rm{fleet}")
    assert kind_of(s) == "c_def" and s.combat is not None and s.combat.force == [carrier]
    assert ids(s) == [f"rm{p2}"]


def test_tank_unloads_first_then_infantry_but_not_airplane() -> None:
    """Unloading: "a transported tank can unload into an unoccupied enemy-controlled space,
    take control of it, and then allow an infantry (but not an airplane) being transported by a
    different fleet to unload into the same space" (Second Movement step)."""
    s = blank(phase="move2")
    s.control[sp("tobruk")] = ALLIES
    fleets = [put(s, "Pact", "fleet", "gulf_of_sidra") for _ in range(3)]
    tank = put(s, "Pact", "tank", "gulf_of_sidra", on=fleets[0])
    inf = put(s, "Pact", "infantry", "gulf_of_sidra", on=fleets[1])
    plane = put(s, "Pact", "airplane", "gulf_of_sidra", on=fleets[2])
    s.control[sp("tobruk")] = ALLIES
    s.step_changes = {}
    s.touch()
    assert move(inf, "tobruk") not in ids(s) and move(plane, "tobruk") not in ids(s)
    s = act(s, move(tank, "tobruk"))
    assert move(inf, "tobruk") in ids(s) and move(plane, "tobruk") not in ids(s)


def test_a_transported_infantry_interdicts_adjacent_land() -> None:
    """Supply Paths: "Infantry, tanks, and airplanes interdict supply in adjacent, unoccupied
    land spaces" (the only exception named is "A carrier without an airplane"). A Pact infantry
    aboard a fleet in Levantine Sea attacks Palestine-Jordan; the UK infantry there cannot
    Retreat to Syria-Lebanon, whose only way to Red Sea is the emptied Palestine-Jordan, which
    the transported infantry interdicts ("The retreating piece must follow the normal movement
    rules")."""
    s = blank(phase="action")
    s.control[sp("syria_lebanon")] = ALLIES
    s.control[sp("arabia")] = AXIS
    fleet = put(s, "Pact", "fleet", "levantine")
    put(s, "Pact", "infantry", "levantine", on=fleet)
    uk = put(s, "UK", "infantry", "palestine_jordan")
    hand(s, AXIS, 60, 61)
    hand(s, ALLIES, 9)  # Western Desert Force: Retreat (UK)
    assert not supply.passable(s, ALLIES)[sp("cyprus")]  # unoccupied, beside the infantry
    s = desperate_attack(s, (60, 61), PACT, "levantine", "palestine_jordan")
    assert kind_of(s) == "c_def" and ids(s) == [f"rm{uk}"]


def test_a_position_edited_in_place_is_answered_afresh() -> None:
    """Stand Fast: "When defending, you may use a card with the Stand Fast reaction instead of
    removing a piece" (Tobruk Garrison: Tobruk or El Alamein). The defender is asked, then
    given the card by editing the position in place (as a position is set up): the next
    question must offer the Stand Fast, and the public view must show the edited VPs; before,
    both were served from the memo of the unedited state."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "benghazi")
    uk = put(s, "UK", "infantry", "tobruk")
    s.control[sp("tobruk")] = ALLIES
    hand(s, AXIS, 55, 56)
    s = desperate_attack(s, (55, 56), PACT, "benghazi", "tobruk")
    assert ids(s) == [f"rm{uk}"]
    before = views.make_view(s, None)
    s.hands[ALLIES] = [11]  # Tobruk Garrison: Stand Fast (Tobruk, El Alamein)
    s.vp[AXIS] = 4
    assert ids(s) == [f"rm{uk}", "sf11"]
    after = views.make_view(s, None)
    assert before.public.vp[AXIS] == 0 and after.public.vp[AXIS] == 4


def test_defending_factions_are_read_from_the_space_when_asked() -> None:
    """Factions and Reactions: "For the defender, this means the faction of a piece in the
    defending space during that attack round"; support: "The airplane or fleet must belong to
    the same faction as a piece currently in the attacked space this attack round". A USA
    airplane placed in Tobruk after the round opened (a position set up in place) lets the
    Allies use the USA Exchange and lose a USA airplane beside Tobruk; before, the factions
    noted when the round opened (UK only) were used."""
    s = blank(phase="action", round_=8)
    put(s, "Pact", "infantry", "benghazi")
    uk = put(s, "UK", "infantry", "tobruk")
    s.control[sp("tobruk")] = ALLIES
    hand(s, AXIS, 55, 56)
    s = desperate_attack(s, (55, 56), PACT, "benghazi", "tobruk")
    assert kind_of(s) == "c_def" and ids(s) == [f"rm{uk}"]
    usa = put(s, "USA", "airplane", "tobruk")
    beside = put(s, "USA", "airplane", "el_alamein")
    hand(s, ALLIES, 26)  # Arsenal of Democracy: Exchange (USA)
    assert {f"rm{beside}", f"ex26-{usa}", f"ex26-{beside}"} <= set(ids(s))


def test_control_at_the_step_start_is_the_position_as_set_up() -> None:
    """ "Your airplane cannot end its move in a land space that you did not control at the
    beginning of the step": a position whose control is edited in place before the step's
    first move counts as the step's start (the Axis airplane may land in Egypt handed to the
    Axis), while a space the rules capture during the step still bars it (the Pact infantry
    walking into Western Desert)."""
    from warroom.games.qmg_sf.movement import destinations

    s = blank("move1", AXIS)
    plane = put(s, "Pact", "airplane", "tobruk")
    walker = put(s, "Pact", "infantry", "benghazi")
    put(s, "Pact", "infantry", "tobruk")
    s.control[sp("egypt")] = AXIS
    s.control[sp("el_alamein")] = AXIS
    s.touch()
    assert (sp("egypt"), -1) in destinations(s, plane, "move1")
    assert s.control[sp("western_desert")] == AXIS
    s.control[sp("western_desert")] = ALLIES
    s.touch()
    s = act(s, f"m{walker}-{sp('western_desert')}")
    assert s.control[sp("western_desert")] == AXIS
    assert (sp("western_desert"), -1) not in destinations(s, plane, "move1")
