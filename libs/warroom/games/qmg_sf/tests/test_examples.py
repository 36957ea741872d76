"""Scenario tests for the rulebook's worked examples (other than the Example of Play)."""

from __future__ import annotations

from warroom.games.qmg_sf import board, effects, supply
from warroom.games.qmg_sf.content import COUNTRIES
from warroom.games.qmg_sf.movement import destinations
from warroom.games.qmg_sf.state import ALLIES, AXIS, SfState
from warroom.games.qmg_sf.tests.helpers import act, blank, hand, ids, kind_of, move, pieces, put, sp

GREECE = COUNTRIES.index("Greece")


def supply_example() -> tuple[SfState, int]:
    """The Supply Example position; the UK infantry in Malta."""
    s = blank()
    board.activate(s, GREECE, AXIS)
    s.control[sp("el_alamein")] = AXIS
    s.control[sp("egypt")] = AXIS
    malta = put(s, "UK", "infantry", "malta")
    put(s, "UK", "fleet", "ionian")
    put(s, "UK", "fleet", "aegean")
    put(s, "Pact", "airplane", "athens")
    put(s, "Pact", "fleet", "gulf_of_gabes")
    put(s, "Pact", "airplane", "el_alamein")
    put(s, "Pact", "infantry", "egypt")
    return s, malta


def test_supply_example() -> None:
    """Malta traces supply through Ionian, Aegean, Levantine and Palestine-Jordan to Red Sea."""
    s, malta = supply_example()
    assert supply.is_supplied(s, malta)
    reached = supply.reach(s, 2)
    for space in ("ionian", "aegean", "levantine", "palestine_jordan", "red_sea"):
        assert sp(space) in reached, space
    assert sp("gulf_of_sidra") not in reached  # the Pact fleet in Gulf of Gabes interdicts it
    assert sp("eastern_med") not in reached  # the Pact airplane in El Alamein interdicts it
    assert sp("syria_lebanon") not in reached  # Axis-controlled


def test_supply_example_must_use_palestine_jordan() -> None:
    """'supply must be traced through Palestine-Jordan': without it Malta is cut off."""
    s, malta = supply_example()
    s.control[sp("palestine_jordan")] = AXIS
    assert not supply.is_supplied(s, malta)


def test_supply_example_occupied_spaces_are_not_interdicted() -> None:
    """Emptying the Aegean lets the Pact airplane in Athens interdict it."""
    s, malta = supply_example()
    board.remove(s, pieces(s, "UK", "fleet", "aegean")[0])
    assert not supply.is_supplied(s, malta)


def test_malta_depot_keeps_malta_supplied() -> None:
    """Once the Malta Depot marker is placed, Allies pieces in Malta are always supplied."""
    s, malta = supply_example()
    s.control[sp("palestine_jordan")] = AXIS
    s.malta_depot = True
    assert supply.is_supplied(s, malta)


def airplane_example() -> tuple[SfState, int, int, int]:
    """The airplane-movement position: UK airplane in Tobruk, carrier, fleet."""
    s = blank(phase="move1", active=ALLIES)
    board.activate(s, GREECE, ALLIES)
    s.control[sp("crete")] = AXIS
    s.control[sp("tobruk")] = ALLIES
    plane = put(s, "UK", "airplane", "tobruk")
    carrier = put(s, "UK", "carrier", "gulf_of_gabes")
    fleet = put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "infantry", "gibraltar")
    return s, plane, carrier, fleet


def test_airplane_movement_example() -> None:
    """Carrier in Gulf of Gabes, Malta, the fleet 1 space away: yes; Athens (3 away), Crete (Axis): no."""
    s, plane, carrier, fleet = airplane_example()
    dests = destinations(s, plane, "move1")
    assert (sp("gulf_of_gabes"), carrier) in dests
    assert (sp("malta"), -1) in dests
    assert (sp("eastern_med"), fleet) in dests
    assert all(d[0] != sp("athens") for d in dests)
    assert all(d[0] != sp("crete") for d in dests)


def test_airplane_lands_on_carrier_then_carrier_moves() -> None:
    """'The airplane can move onto the carrier ... The carrier may then also move.'"""
    s, plane, carrier, _ = airplane_example()
    s = act(s, move(plane, "gulf_of_gabes", carrier))
    s = act(s, move(carrier, "western_med"))
    assert s.loc[plane] == sp("western_med") and s.on[plane] == carrier


def test_airplane_cannot_jump_over_neutral() -> None:
    """Airplanes jump over water and enemy spaces, never over neutral ones."""
    s = blank()
    s.control[sp("bulgaria")] = -1
    plane = put(s, "Pact", "airplane", "albania")
    put(s, "Pact", "fleet", "ionian")
    s.control[sp("aegean")] = -2
    dests = {d[0] for d in destinations(s, plane, "move1")}
    assert sp("athens") not in dests  # neutral itself
    assert sp("sicily") in dests  # over the Ionian Sea


def test_naval_transport_example() -> None:
    """Second Movement step: the fleet moves to Tyrrhenian Sea; then the tank unloads into Naples."""
    s = blank(phase="move2")
    fleet = put(s, "Pact", "fleet", "ionian")
    tank = put(s, "Pact", "tank", "ionian", on=fleet)
    put(s, "Pact", "infantry", "rome")
    s = act(s, move(fleet, "tyrrhenian"))
    assert s.loc[tank] == sp("tyrrhenian")
    s = act(s, move(tank, "naples"))
    assert s.loc[tank] == sp("naples") and s.on[tank] == -1


def test_second_movement_infantry_unload_only_into_controlled() -> None:
    """Infantry may not unload into an enemy-controlled space in the Second Movement step; a tank may."""
    s = blank(phase="move2")
    f1 = put(s, "Pact", "fleet", "eastern_med")
    f2 = put(s, "Pact", "fleet", "eastern_med")
    inf = put(s, "Pact", "infantry", "eastern_med", on=f1)
    tank = put(s, "Pact", "tank", "eastern_med", on=f2)
    put(s, "Pact", "infantry", "tobruk")
    assert move(inf, "el_alamein") not in ids(s)
    assert move(tank, "el_alamein") in ids(s)
    s = act(s, move(tank, "el_alamein"))  # the tank takes control ...
    assert move(inf, "el_alamein") in ids(s)  # ... and the infantry may follow


def test_transported_piece_left_aboard_is_eliminated() -> None:
    """A transported piece that does not unload by the end of the turn is eliminated."""
    s = blank(phase="move2")
    fleet = put(s, "Pact", "fleet", "tyrrhenian")
    inf = put(s, "Pact", "infantry", "tyrrhenian", on=fleet)
    put(s, "Pact", "infantry", "rome")
    s = act(s, "done")
    assert s.loc[inf] == -1 and s.loc[fleet] == sp("tyrrhenian")


def test_sicily_strait() -> None:
    """The fleet could not move Tyrrhenian -> Ionian 'if the Allies controlled Sicily'."""
    s = blank()
    fleet = put(s, "Pact", "fleet", "tyrrhenian")
    put(s, "Pact", "infantry", "rome")
    assert move(fleet, "ionian") in ids(s)
    s.control[sp("sicily")] = ALLIES
    s.touch()
    assert move(fleet, "ionian") not in ids(s)


def sea_attack() -> SfState:
    """Two Pact airplanes (Sicily) attack a UK fleet in the Ionian Sea (Desperate Attack)."""
    s = blank(phase="action")
    put(s, "Pact", "airplane", "sicily")
    put(s, "Pact", "airplane", "sicily")
    put(s, "UK", "fleet", "ionian")
    put(s, "UK", "infantry", "gibraltar")
    hand(s, AXIS, 55, 56, 53)  # two to discard, Regia Marina (Naval Combat)
    hand(s, ALLIES, 2, 5)  # Faith, Hope & Charity (Anti-Air), Mediterranean Station (Naval Combat)
    s = act(s, "da")
    s = act(s, "d55")
    s = act(s, "d56")
    s = act(s, f"a1-{sp('sicily')}-{sp('ionian')}")
    assert kind_of(s) == "c_def"
    return s


def test_anti_air_and_naval_combat_example_anti_air() -> None:
    """After an Anti-Air reaction the Pact may remove an airplane to continue."""
    s = sea_attack()
    assert "aa2" in ids(s) and "nc5" in ids(s)
    s = act(s, "aa2")
    assert any(o.startswith("rm") for o in ids(s))


def test_anti_air_and_naval_combat_example_naval_combat() -> None:
    """After a Naval Combat reaction airplanes rank too low; only the Pact's own Naval Combat continues."""
    s = sea_attack()
    s = act(s, "nc5")
    opts = ids(s)
    assert not any(o.startswith("rm") for o in opts)
    assert "nc53" in opts


def land_attack(defender_kind: str = "infantry") -> SfState:
    """Pact infantry and tank in Tobruk attack El Alamein (UK `defender_kind` and infantry)."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "tank", "tobruk")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    s.control[sp("el_alamein")] = ALLIES
    put(s, "UK", defender_kind, "el_alamein")
    put(s, "UK", "infantry", "el_alamein")
    hand(s, AXIS, 55, 56, 57)
    hand(s, ALLIES, 19, 2)  # Syria-Lebanon Campaign (UK Exchange), Faith, Hope & Charity (Anti-Air)
    s = act(s, "da")
    s = act(s, "d55")
    s = act(s, "d56")
    s = act(s, f"a1-{sp('tobruk')}-{sp('el_alamein')}")
    return s


def test_exchange_attacker_removes_any_rank() -> None:
    """Exchange: the attacker must also remove a piece, of any rank."""
    s = land_attack()
    inf = pieces(s, "UK", "infantry", "el_alamein")[0]
    s = act(s, f"ex19-{inf}")
    assert kind_of(s) == "c_exch"
    opts = ids(s)
    tank = pieces(s, "Pact", "tank", "tobruk")[0]
    pinf = pieces(s, "Pact", "infantry", "tobruk")[0]
    assert f"rm{tank}" in opts and f"rm{pinf}" in opts
    s = act(s, f"rm{tank}")
    assert kind_of(s) == "c_cont"
    assert s.combat is not None and s.combat.req == 1


def test_exchange_with_defending_airplane_then_attacker_anti_air() -> None:
    """Exchanging a defending airplane: the attacker still removes a piece, and may then use Anti-Air."""
    s = land_attack("airplane")
    hand(s, AXIS, 44, *s.hands[AXIS])  # Stuka Attack: a German Anti-Air card (wrong faction)
    hand(s, AXIS, 57, *s.hands[AXIS])  # Regia Aeronautica: Pact Anti-Air
    plane = pieces(s, "UK", "airplane", "el_alamein")[0]
    s = act(s, f"ex19-{plane}")
    assert kind_of(s) == "c_exch"
    s = act(s, f"rm{pieces(s, 'Pact', 'infantry', 'tobruk')[0]}")
    assert kind_of(s) == "c_aa_atk"
    assert ids(s) == ["pass", "aa57"]


def test_land_anti_air_after_attacker_removes_airplane() -> None:
    """Defender's Anti-Air ends the round; the attacker must again match the defender's rank."""
    s = land_attack()
    put(s, "Pact", "airplane", "western_desert")
    inf = pieces(s, "UK", "infantry", "el_alamein")[0]
    s.touch()
    s = act(s, f"rm{inf}")
    plane = pieces(s, "Pact", "airplane", "western_desert")[0]
    s = act(s, f"rm{plane}")
    assert kind_of(s) == "c_aa_def" and "aa2" in ids(s)
    s = act(s, "aa2")
    assert kind_of(s) == "c_cont"


def test_stand_fast_details_limit_the_space() -> None:
    """Rock of Gibraltar's Stand Fast can only be used by a piece defending in Gibraltar."""
    s = land_attack()
    hand(s, ALLIES, 3, 1)
    assert "sf3" not in ids(s)
    assert "sf1" not in ids(s)


def test_mcf_reactions_on_behalf_of_minor_country() -> None:
    """MCFs defend like infantry; any Allies faction's Stand Fast or Exchange may be used; no Retreat."""
    s = blank(phase="action")
    board.activate(s, GREECE, ALLIES)
    put(s, "Pact", "infantry", "albania")
    put(s, "Pact", "fleet", "ionian")
    hand(s, AXIS, 55, 56)
    hand(
        s, ALLIES, 1, 22, 9
    )  # Britain Supports Greece (SF Athens), French Foreign Legion (Exchange), Retreat
    s = act(s, "da")
    s = act(s, "d55")
    s = act(s, "d56")
    s = act(s, f"a1-{sp('albania')}-{sp('athens')}")
    opts = ids(s)
    assert "sf1" in opts and "ex22-mcf" in opts and "rm-mcf" in opts
    assert not any(o.startswith("rt") for o in opts)
    s = act(s, "rm-mcf")
    assert s.mcf[sp("athens")] == 0 and s.combat is None  # empty; no Advance! card


def test_special_card_cases() -> None:
    """Battle of Gondar needs a UK piece to eliminate; Rommel Strikes! force may hold more than the tank."""
    s = blank(phase="action", active=ALLIES)
    assert not effects.playable(s, ALLIES, 7)
    put(s, "UK", "infantry", "arabia")
    assert effects.playable(s, ALLIES, 7)
    s = blank(phase="action")
    s.control[sp("el_alamein")] = ALLIES
    put(s, "UK", "infantry", "el_alamein")
    tank = put(s, "Germany", "tank", "tobruk")
    inf = put(s, "Germany", "infantry", "tobruk")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    hand(s, AXIS, 40)
    s = act(s, "play40")
    s = act(s, f"a0-{sp('tobruk')}-{sp('el_alamein')}")
    assert s.combat is not None and sorted(s.combat.force) == sorted([tank, inf])


def test_card_violating_rules_cannot_be_played() -> None:
    """Rock of Gibraltar cannot deploy into enemy-occupied spaces: unplayable when both are."""
    s = blank(phase="action", active=ALLIES)
    s.control[sp("gibraltar")] = AXIS
    put(s, "Pact", "infantry", "gibraltar")
    put(s, "Pact", "fleet", "south_atlantic")
    assert not effects.playable(s, ALLIES, 3)


def test_transported_airplane_cannot_fulfil_fallschirmjaegers() -> None:
    """A transported German airplane does not satisfy Fallschirmjaegers' prerequisite."""
    s = blank(phase="action")
    fleet = put(s, "Pact", "fleet", "ionian")
    plane = put(s, "Germany", "airplane", "ionian", on=fleet)
    assert not effects.playable(s, AXIS, 39)
    board.move(s, plane, sp("sicily"))
    assert effects.playable(s, AXIS, 39)


def test_card_anatomy_britain_supports_greece() -> None:
    """'Activate Greece for the Allies, if possible; then you may deploy a UK infantry in Athens or Crete.'"""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "fleet", "aegean")
    put(s, "UK", "infantry", "egypt")
    hand(s, ALLIES, 1)
    s = act(s, "play1")
    assert s.minor[GREECE] == ALLIES and s.mcf[sp("crete")] == 0
    assert f"d{sp('athens')}" in ids(s) and f"d{sp('crete')}" in ids(s) and "skip" in ids(s)
    s = act(s, f"d{sp('crete')}")
    assert pieces(s, "UK", "infantry", "crete")


def test_malta_depot_card() -> None:
    """Faith, Hope & Charity: gain 1 VP, recruit a UK airplane in Malta, place the Malta Depot marker."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "malta")
    hand(s, ALLIES, 2)
    s = act(s, "play2")
    s = act(s, f"d{sp('malta')}")
    assert s.vp == [0, 1] and s.malta_depot and pieces(s, "UK", "airplane", "malta")
    s2 = blank(phase="action", active=ALLIES)
    s2.control[sp("malta")] = AXIS
    put(s2, "UK", "infantry", "egypt")
    assert not effects.playable(s2, ALLIES, 2)  # "If the Allies control Malta"


def test_task_force_diverted() -> None:
    """'The Axis gain 2 VP. Eliminate an Axis piece in either South Atlantic or Red Sea.'"""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "gibraltar")
    assert not effects.playable(s, ALLIES, 68)
    fleet = put(s, "Pact", "fleet", "south_atlantic")
    s = act(s, "ct68")
    s = act(s, f"e{fleet}")
    assert s.vp == [2, 0] and s.loc[fleet] == -1 and s.contingency[68] == 1


def test_transported_airplane_unloads_only_into_space_held_at_step_start() -> None:
    """A tank takes an enemy space in the Second Movement step; a transported airplane may not follow."""
    s = blank(phase="move2")
    f1 = put(s, "Pact", "fleet", "eastern_med")
    f2 = put(s, "Pact", "fleet", "eastern_med")
    tank = put(s, "Pact", "tank", "eastern_med", on=f1)
    plane = put(s, "Pact", "airplane", "eastern_med", on=f2)
    put(s, "Pact", "infantry", "tobruk")
    s = act(s, move(tank, "el_alamein"))
    assert move(plane, "el_alamein") not in ids(s)
    assert move(plane, "tobruk") in ids(s)


def test_deploy_then_attack_needs_a_target() -> None:
    """Montgomery Takes Command must attack with the deployed tank: unplayable with nothing to attack."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "egypt")
    put(s, "UK", "fleet", "eastern_med")
    for space in ("tobruk", "western_desert", "benghazi", "tripoli", "tunisia"):
        s.control[sp(space)] = ALLIES
    s.touch()
    assert not effects.playable(s, ALLIES, 20)
    s.control[sp("western_desert")] = AXIS
    assert effects.playable(s, ALLIES, 20)
