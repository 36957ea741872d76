"""The rulebook's Example of Play (Axis turn 1 and Allies turn 1), step by step."""

from __future__ import annotations

from warroom.games.qmg_sf import supply
from warroom.games.qmg_sf.state import ALLIES, AXIS, SfState
from warroom.games.qmg_sf.tests.helpers import RULES, act, ids, kind_of, move, pieces, sp

LIBYAN, GRECO, TANKETTE, REGIA, DECIMA = 50, 51, 52, 53, 54
BSG, FHC, ROCK, ANZAC, MEDSTATION, SWORDFISH = 1, 2, 3, 4, 5, 6
EXPEDITIONARY = 67


def opening() -> SfState:
    """First Game hands; the Allies leave Rock of Gibraltar in the deck; both keep."""
    s = RULES.setup(7, "first_game", {})
    assert kind_of(s) == "fg_leave"
    s = act(s, f"k{ROCK}")
    s = act(s, "keep")
    s = act(s, "keep")
    assert sorted(s.hands[AXIS]) == [LIBYAN, GRECO, TANKETTE, REGIA, DECIMA]
    assert sorted(s.hands[ALLIES]) == [BSG, FHC, ANZAC, MEDSTATION, SWORDFISH]
    return s


def test_setup_supply_tripoli_and_malta_unsupplied() -> None:
    """'the Pact infantry in Tripoli begins the game unsupplied ... The same is true of the UK infantry in Malta'."""
    s = opening()
    assert set(supply.unsupplied(s, AXIS)) == set(pieces(s, "Pact", "infantry", "tripoli"))
    assert set(supply.unsupplied(s, ALLIES)) == set(pieces(s, "UK", "infantry", "malta"))


def axis_turn_1() -> SfState:
    """Play the Example of Play's Axis turn 1, asserting each stated outcome."""
    s = opening()
    tank = pieces(s, "Pact", "tank", "rome")[0]
    fleet_b = pieces(s, "Pact", "fleet", "tyrrhenian")[0]
    fleet_e = pieces(s, "Pact", "fleet", "ionian")[0]
    air_c = pieces(s, "Pact", "airplane", "rome")[0]
    air_f = pieces(s, "Pact", "airplane", "sicily")[0]
    inf_d = pieces(s, "Pact", "infantry", "naples")[0]
    inf_g = pieces(s, "Pact", "infantry", "tripoli")[0]
    s = act(s, move(tank, "tyrrhenian", fleet_b))  # (A)
    s = act(s, move(fleet_b, "ionian"))  # (B) through the Sicily strait
    assert s.loc[tank] == sp("ionian")
    s = act(s, move(air_c, "sicily"))  # (C)
    s = act(s, move(inf_d, "rome"))  # (D)
    assert move(air_f, "tripoli") not in ids(s)  # unsupplied in Tripoli before (E)
    s = act(s, move(fleet_e, "gulf_of_sidra"))  # (E)
    s = act(s, move(air_f, "tripoli"))  # (F) jumps over Gulf of Gabes
    s = act(s, move(inf_g, "gulf_of_sidra", fleet_e))  # (G)
    s = act(s, "done")
    assert kind_of(s) == "action"
    # Libyan Divisions: deploy in Tobruk (H), attack El Alamein
    s = act(s, f"play{LIBYAN}")
    s = act(s, f"d{sp('tobruk')}")
    inf_h = pieces(s, "Pact", "infantry", "tobruk")[0]
    s = act(s, f"a1-{sp('el_alamein')}")
    assert kind_of(s) == "c_def" and s.combat is not None and s.combat.force == [inf_h]
    s = act(s, f"sf{ANZAC}")  # the Allies Stand Fast with ANZAC Reinforcements
    assert kind_of(s) == "c_cont"
    assert [o for o in ids(s) if o.startswith("rm")] == []  # only a Sustain Attack beats Stand Fast
    s = act(s, f"sa{GRECO}")
    uk_tank = pieces(s, "UK", "tank", "el_alamein")[0]
    uk_air = pieces(s, "UK", "airplane", "egypt")[0]
    assert f"rm{uk_air}" in ids(s)  # 'The Allies player could lose their airplane'
    s = act(s, f"rm{uk_tank}")  # (I)
    assert kind_of(s) == "c_adv"
    s = act(s, f"adv{TANKETTE}-{inf_h}")  # (J)
    assert s.loc[inf_h] == sp("el_alamein") and s.control[sp("el_alamein")] == AXIS
    assert kind_of(s) == "move2"
    s = act(s, move(inf_g, "tobruk"))  # (K)
    s = act(s, move(fleet_e, "gulf_of_gabes"))  # (L)
    s = act(s, move(fleet_b, "gulf_of_sidra"))  # (M), the tank along
    s = act(s, move(tank, "tobruk"))  # (N)
    before = sum(1 for at in s.loc if at >= 0)
    s = act(s, "done")
    assert sum(1 for at in s.loc if at >= 0) == before  # all Axis pieces supplied
    assert len(s.hands[AXIS]) == 4  # used 3 of 5, drew the maximum of 2
    assert s.active == ALLIES and s.phase == "move1"
    return s


def test_axis_turn_1() -> None:
    """Axis Turn 1: movement, Libyan Divisions vs Stand Fast, Sustain Attack, Advance!, unloading."""
    axis_turn_1()


def test_allies_turn_1() -> None:
    """Allies Turn 1: Expeditionary Force, Mediterranean Station at sea, reactions, Malta resupplied."""
    s = axis_turn_1()
    assert len(s.hands[ALLIES]) == 4
    malta_inf = pieces(s, "UK", "infantry", "malta")[0]
    s = act(s, "done")
    s = act(s, f"ct{EXPEDITIONARY}")
    s = act(s, "vp")  # 'the Allies give the Axis player 1 Victory Point'
    s = act(s, f"d{sp('egypt')}")  # (A)
    s = act(s, f"d{BSG}")  # discard 1 card to take another action
    assert kind_of(s) == "action" and s.vp == [1, 0]
    s = act(s, f"play{MEDSTATION}")
    s = act(s, f"d{sp('eastern_med')}")  # (B)
    s = act(s, f"a2-{sp('gulf_of_sidra')}")
    assert s.combat is not None and len(s.combat.force) == 2 and s.combat.sea
    s = act(s, f"nc{REGIA}")
    s = act(s, f"nc{SWORDFISH}")
    pact_air = pieces(s, "Pact", "airplane", "tripoli")[0]
    s = act(s, f"rm{pact_air}")  # (C) an adjacent airplane of the defending faction
    # Anti-Air works "in land or sea combat": the Allies could counter the airplane's loss
    # with Faith, Hope & Charity, but the example keeps it and removes a fleet instead
    assert kind_of(s) == "c_aa_atk" and "aa2" in ids(s)
    s = act(s, "pass")
    fleets = pieces(s, "UK", "fleet", "eastern_med")
    s = act(s, f"rm{fleets[0]}")  # (D) a fleet outranks the airplane
    pact_fleet = pieces(s, "Pact", "fleet", "gulf_of_sidra")[0]
    s = act(s, f"wn{DECIMA}-{pact_fleet}-{sp('ionian')}")  # (E)
    assert s.combat is None and s.loc[pact_fleet] == sp("ionian")
    assert kind_of(s) == "move2"
    assert malta_inf in supply.unsupplied(s, ALLIES)
    s = act(s, move(fleets[1], "gulf_of_sidra"))  # (F)
    assert malta_inf not in supply.unsupplied(s, ALLIES)
    s = act(s, "done")
    assert s.loc[malta_inf] == sp("malta")
    assert len(s.hands[ALLIES]) == 3  # 1 card left, drew 2
    assert s.round == 2 and s.active == AXIS
