"""Rulebook audit, pass 5: each card's deciding words at their edges."""

from __future__ import annotations

from warroom.games.qmg_sf import board, effects
from warroom.games.qmg_sf.content import COUNTRIES, tables
from warroom.games.qmg_sf.state import ALLIES, AXIS, SfState
from warroom.games.qmg_sf.tests.helpers import (
    act,
    blank,
    desperate_attack,
    hand,
    ids,
    kind_of,
    put,
    sp,
)


def test_italian_submarines_takes_a_fleet_and_a_card_of_its_faction() -> None:
    """Italian Submarines: "Eliminate an Allies fleet in South Atlantic or Western
    Mediterranean, unless the Allies discard a card of that piece's faction": a carrier is
    no fleet, and only a UK card saves a UK fleet."""
    s = blank(phase="action", active=AXIS)
    put(s, "UK", "carrier", "western_med")
    hand(s, AXIS, 61)
    hand(s, ALLIES, 24, 3)
    assert not effects.playable(s, AXIS, 61)
    fleet = put(s, "UK", "fleet", "western_med")
    s = act(s, "play61")
    assert ids(s) == [f"e{fleet}"]
    s = act(s, f"e{fleet}")
    assert kind_of(s) == "fx_unless" and sorted(ids(s)) == ["allow", "d3"]
    s = act(s, "d3")
    assert s.loc[fleet] == sp("western_med") and 3 not in s.hands[ALLIES]


def test_operation_corkscrew_needs_tunisia_and_a_target() -> None:
    """Operation Corkscrew: "If the Allies control Tunisia: Eliminate an Axis piece in
    Sicily or Sardinia." Neither the condition nor the target may be missing."""
    s = blank(phase="action", active=ALLIES)
    inf = put(s, "Pact", "infantry", "sicily")
    assert not effects.playable(s, ALLIES, 36)
    s.control[sp("tunisia")] = ALLIES
    s.touch()
    assert effects.playable(s, ALLIES, 36)
    board.eliminate(s, inf)
    put(s, "Pact", "infantry", "naples")
    s.touch()
    assert not effects.playable(s, ALLIES, 36)


def test_mare_nostrum_gains_two_only_while_the_axis_control_malta() -> None:
    """Mare Nostrum: "If the Axis control Malta: Gain 2 VP." """
    s = blank(phase="action", active=AXIS)
    hand(s, AXIS, 64)
    assert not effects.playable(s, AXIS, 64)
    s.control[sp("malta")] = AXIS
    s.touch()
    before = s.vp[AXIS]
    s = act(s, "play64")
    assert s.vp[AXIS] == before + 2


def test_ploesti_raid_with_an_empty_axis_hand_still_gains_the_vp() -> None:
    """Ploesti Raid: "Gain 1 VP; the Axis discard 1 card": the Axis choose the card; with
    none in hand the VP is still gained."""
    s = blank(phase="action", active=ALLIES)
    hand(s, ALLIES, 37)
    before = s.vp[ALLIES]
    t = act(s, "play37")
    assert t.vp[ALLIES] == before + 1 and kind_of(t) != "fx_enemy_discard"
    hand(s, AXIS, 64, 65)
    t = act(s, "play37")
    assert kind_of(t) == "fx_enemy_discard" and sorted(ids(t)) == ["d64", "d65"]
    t = act(t, "d65")
    assert t.hands[AXIS] == [64]


def test_lend_lease_draws_what_is_left() -> None:
    """Lend-Lease: "Draw 2 cards" with one card left: "draw as many as you can"."""
    s = blank(phase="action", active=ALLIES)
    hand(s, ALLIES, 24)
    s.decks[ALLIES] = [3]
    s = act(s, "play24")
    assert s.hands[ALLIES] == [3] and s.decks[ALLIES] == []


def test_tobruk_garrison_deploys_in_desert_spaces_only() -> None:
    """Tobruk Garrison: "Deploy a UK infantry in a Desert Climate space": never Malta or
    Cyprus (controlled and supplied, not Desert)."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "fleet", "eastern_med")
    hand(s, ALLIES, 11)
    s = act(s, "play11")
    spaces = [int(o[1:].split("-")[0]) for o in ids(s) if o.startswith("d")]
    assert spaces and all(tables().desert[x] for x in spaces)
    assert sp("egypt") in spaces


def test_carrier_illustrious_airplane_in_or_adjacent_to_the_carrier() -> None:
    """Carrier Illustrious: "Deploy a UK carrier; then you may deploy a UK airplane in or
    adjacent to that carrier's space": onto it or into Gibraltar beside Western
    Mediterranean, never Malta (not adjacent)."""
    s = blank(phase="action", active=ALLIES)
    hand(s, ALLIES, 17)
    s = act(s, "play17")
    s = act(s, f"d{sp('western_med')}")
    carrier = next(p for p in board.pieces_at(s, sp("western_med")))
    opts = ids(s)
    assert "skip" in opts and f"d{sp('western_med')}-{carrier}" in opts
    assert f"d{sp('gibraltar')}" in opts and f"d{sp('malta')}" not in opts


def test_rashid_ali_coup_recruits_in_an_unoccupied_allied_iraq() -> None:
    """Rashid Ali Coup: "Activate Iraq for the Axis, if possible; then you may recruit a
    Pact infantry in Iraq": with Iraq on the Allies side its force occupies it (no recruit,
    nothing to do); once that force is gone Iraq may be recruited into, taking control."""
    s = blank(phase="action", active=AXIS)
    board.activate(s, COUNTRIES.index("Iraq"), ALLIES)
    s.touch()
    assert not effects.playable(s, AXIS, 60)
    s.mcf[sp("iraq")] = 0
    s.touch()
    hand(s, AXIS, 60)
    s = act(s, "play60")
    s = act(s, f"d{sp('iraq')}")
    assert s.control[sp("iraq")] == AXIS


def test_folgore_division_recruits_in_an_unoccupied_allied_malta() -> None:
    """Folgore Division: "Recruit a Pact infantry in Malta or a Desert Climate space":
    recruiting takes an unoccupied enemy space, not an occupied one."""
    s = blank(phase="action", active=AXIS)
    hand(s, AXIS, 63)
    t = act(s, "play63")
    assert f"d{sp('malta')}" in ids(t) and f"d{sp('cyprus')}" not in ids(t)
    t = act(t, f"d{sp('malta')}")
    assert t.control[sp("malta")] == AXIS
    put(s, "UK", "infantry", "malta")
    t = act(s, "play63")
    assert f"d{sp('malta')}" not in ids(t)


def test_fliegerkorps_x_deploys_on_land_in_or_next_to_sicily() -> None:
    """Fliegerkorps X: "Deploy a German airplane in Sicily or an adjacent land space":
    Naples is adjacent ("Sicily and Naples are adjacent land spaces"); a carrier at sea is
    not a land space."""
    s = blank(phase="action", active=AXIS)
    put(s, "Pact", "carrier", "tyrrhenian")
    hand(s, AXIS, 43)
    s = act(s, "play43")
    spaces = {int(o[1:].split("-")[0]) for o in ids(s) if o.startswith("d")}
    assert {sp("sicily"), sp("naples")} <= spaces
    assert sp("tyrrhenian") not in spaces and sp("rome") not in spaces


def test_operation_marita_after_yugoslavia_is_active_still_attacks() -> None:
    """Operation Marita: "Declare war on Yugoslavia, if possible; then you may attack a land
    space with a German force": with Yugoslavia already active it is an attack card; with no
    attack either it does nothing and cannot be played (ruling 12)."""
    s = blank(phase="action", active=AXIS)
    board.activate(s, COUNTRIES.index("Yugoslavia"), ALLIES)
    s.touch()
    assert not effects.playable(s, AXIS, 45)
    put(s, "Germany", "infantry", "albania")
    assert effects.playable(s, AXIS, 45)


def test_operation_avalanche_attacks_before_usa_at_war() -> None:
    """Operation Avalanche: "Attack Naples or Rome with a USA force; then you may deploy a
    USA infantry." Before USA at War "USA pieces cannot move or be deployed": only the
    optional deploy is lost, the attack stands (a card is unplayable only for a step it
    must do)."""
    s = blank(phase="action", active=ALLIES, round_=3)
    s.control[sp("sicily")] = ALLIES
    put(s, "USA", "infantry", "sicily")
    put(s, "Pact", "infantry", "naples")
    assert effects.playable(s, ALLIES, 34)
    assert not effects.playable(s, ALLIES, 35)  # Liberty Ships must deploy a USA fleet


def test_montgomery_deploys_the_tank_only_where_it_can_attack() -> None:
    """Montgomery Takes Command: "Deploy a UK tank in a Desert Climate space; then attack
    with a force containing that tank." The attack is no option ("resolution of a card's
    text must be followed precisely"), so the tank is not deployed where it could not attack
    (Arabia, with nothing to attack beside it); beside Western Desert it is."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "egypt")
    put(s, "UK", "fleet", "eastern_med")
    hand(s, ALLIES, 20)
    s = act(s, "play20")
    spaces = {int(o[1:].split("-")[0]) for o in ids(s) if o.startswith("d")}
    assert sp("egypt") in spaces and sp("arabia") not in spaces
    s = act(s, f"d{sp('egypt')}")
    assert kind_of(s) == "fx_follow" and "stay" not in ids(s)


def _allies_attack(defender: str, target: str, source: str, cards_: tuple[int, ...]) -> SfState:
    """The Allies' Desperate Attack from `source` on an Axis `defender` infantry in `target`,
    the Axis holding `cards_`: the defender's first decision. Iraq is first activated for the
    Axis, its Minor Country Force gone (an MCF would let any Axis faction's card be used)."""
    s = blank(phase="action", active=ALLIES)
    board.activate(s, COUNTRIES.index("Iraq"), AXIS)
    s.mcf[sp("iraq")] = 0
    s.control[sp(source)] = ALLIES
    put(s, "UK", "infantry", source)
    put(s, defender, "infantry", target)
    hand(s, ALLIES, 7, 8)
    hand(s, AXIS, *cards_)
    return desperate_attack(s, (7, 8), 2, source, target)


def test_a_desert_stand_fast_only_in_a_desert_space() -> None:
    """Folgore Division and 5th Light Division: Stand Fast "Desert Climate spaces" only:
    in Tripoli, not in Tunisia; and each only for a defender of its faction."""
    s = _allies_attack("Pact", "tripoli", "tunisia", (63, 42))
    assert "sf63" in ids(s) and "sf42" not in ids(s)
    s = _allies_attack("Pact", "tunisia", "algeria", (63, 42))
    assert not any(o.startswith("sf") for o in ids(s))


def test_rashid_ali_coup_stands_fast_in_iraq_for_a_pact_defender() -> None:
    """Rashid Ali Coup: Stand Fast in Iraq only; "A card's reaction can only be used in
    conjunction with a piece of the same faction": a German infantry alone cannot use it."""
    s = _allies_attack("Germany", "iraq", "palestine_jordan", (60,))
    assert "sf60" not in ids(s)
    s = _allies_attack("Pact", "iraq", "palestine_jordan", (60,))
    assert "sf60" in ids(s)
    s = _allies_attack("Pact", "syria_lebanon", "palestine_jordan", (60,))
    assert "sf60" not in ids(s)


def test_rock_of_gibraltar_and_or_deploys_at_least_one() -> None:
    """Rock of Gibraltar: "Deploy a UK fleet in South Atlantic and/or a UK infantry in
    Gibraltar": one or both, never neither. With the fleet skipped the infantry must be
    deployed; with the fleet deployed it may be skipped; with Gibraltar closed (Axis
    control) the fleet may not be skipped."""
    s = blank(phase="action", active=ALLIES)
    hand(s, ALLIES, 3)
    s = act(s, "play3")
    fleet = f"d{sp('south_atlantic')}"
    assert sorted(ids(s)) == sorted(["skip", fleet])
    assert ids(act(s, "skip")) == [f"d{sp('gibraltar')}"]
    assert "skip" in ids(act(s, fleet))
    s = blank(phase="action", active=ALLIES)
    s.control[sp("gibraltar")] = AXIS
    hand(s, ALLIES, 3)
    assert ids(act(s, "play3")) == [fleet]


def test_mediterranean_station_with_no_fleet_left_redeploys_one_then_follows() -> None:
    """Mediterranean Station: "Deploy a UK fleet in Western Mediterranean or Eastern
    Mediterranean; then move that fleet or attack with a force containing that fleet." With
    every UK fleet on the board one may be removed to deploy it ("remove one or more pieces
    from the board to make them available"), and "that fleet" is the one deployed; deploying
    fewer skips the follow-up."""
    s = blank(phase="action", active=ALLIES)
    fleets = [put(s, "UK", "fleet", x) for x in ("south_atlantic", "red_sea", "levantine")]
    fleets.append(put(s, "UK", "fleet", "aegean"))
    put(s, "Pact", "fleet", "gulf_of_sidra")
    hand(s, ALLIES, 5)
    s = act(s, "play5")
    assert sorted(ids(s)) == sorted(["skip", *(f"free{p}" for p in fleets)])
    assert kind_of(act(s, "skip")) != "fx_follow"
    s = act(act(s, f"free{fleets[0]}"), f"d{sp('eastern_med')}")
    assert s.loc[fleets[0]] == sp("eastern_med")
    assert kind_of(s) == "fx_follow" and f"a2-{sp('gulf_of_sidra')}" in ids(s)


def test_mid_war_usa_cards_before_usa_at_war() -> None:
    """Before USA at War ("USA pieces cannot move or be deployed (but may be recruited)"):
    Arsenal of Democracy and Ninth Air Force must deploy and cannot be played; Halverson
    Project recruits and Lend-Lease draws, so both can (docs/content.md: "two draw or
    recruit ... and two deploy")."""
    s = blank(phase="action", active=ALLIES, round_=tables().usa_at_war - 1)
    put(s, "UK", "infantry", "egypt")
    s.decks[ALLIES] = [3]
    playable = {c: effects.playable(s, ALLIES, c) for c in (24, 25, 26, 32)}
    assert playable == {24: True, 25: True, 26: False, 32: False}
    s.round = tables().usa_at_war
    s.touch()
    assert effects.playable(s, ALLIES, 26) and effects.playable(s, ALLIES, 32)


def test_bulgarian_army_needs_an_axis_bulgaria() -> None:
    """Bulgarian Army: "If the Axis control Bulgaria: Deploy a Pact infantry in or adjacent
    to Bulgaria": not while Bulgaria is neutral; once active for the Axis, in Bulgaria (its
    neutral neighbours and the sea without a fleet take no infantry)."""
    s = blank(phase="action", active=AXIS)
    assert not effects.playable(s, AXIS, 59)
    board.activate(s, COUNTRIES.index("Bulgaria"), AXIS)
    s.touch()
    hand(s, AXIS, 59)
    assert ids(act(s, "play59")) == [f"d{sp('bulgaria')}"]
