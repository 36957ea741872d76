"""Issue 19: combat edges (empty attacking force, Anti-Air at sea, the French piece) and
control "at the beginning of the step" across extra actions."""

from __future__ import annotations

from warroom.games.qmg_sf import combat
from warroom.games.qmg_sf.state import ALLIES, AXIS, FRANCE, UK, Ctx, SfState
from warroom.games.qmg_sf.tests.helpers import (
    act,
    blank,
    desperate_attack,
    hand,
    ids,
    kind_of,
    move,
    pieces,
    put,
    sp,
)


def _axis_attacks_tobruk_from_sea(second_piece: bool = False) -> tuple[SfState, int, int, int]:
    """A Pact infantry aboard a Pact fleet in Gulf of Sidra Desperate-Attacks Tobruk (2 UK
    infantry); a second, empty Pact fleet is beside it. Returns (state, carrier, inf, spare)."""
    s = blank(phase="action")
    carrier = put(s, "Pact", "fleet", "gulf_of_sidra")
    inf = put(s, "Pact", "infantry", "gulf_of_sidra", on=carrier)
    spare = put(s, "Pact", "fleet", "gulf_of_sidra")
    if second_piece:
        put(s, "Pact", "infantry", "gulf_of_sidra", on=spare)
    put(s, "UK", "infantry", "tobruk")
    put(s, "UK", "infantry", "tobruk")
    hand(s, AXIS, 55, 56)
    return desperate_attack(s, (55, 56), 1, "gulf_of_sidra", "tobruk"), carrier, inf, spare


def test_fleet_carrying_last_attacker_cannot_pay_to_continue() -> None:
    """Removing the fleet that transports the last attacking piece would remove the piece
    too ("If a fleet transporting a piece is removed, the piece it is transporting is also
    removed"), so it is no way to continue; an empty fleet beside it is."""
    s, carrier, inf, spare = _axis_attacks_tobruk_from_sea()
    assert s.combat is not None and s.combat.force == [inf]
    s = act(s, f"rm{pieces(s, 'UK', 'infantry', 'tobruk')[0]}")
    assert kind_of(s) == "c_cont"
    assert f"rm{carrier}" not in ids(s) and f"rm{inf}" not in ids(s)
    assert f"rm{spare}" in ids(s)


def test_fleet_carrying_one_of_two_attackers_may_be_removed() -> None:
    """With a second attacking piece aboard another fleet, either fleet may be removed."""
    s, carrier, _inf, spare = _axis_attacks_tobruk_from_sea(second_piece=True)
    s = act(s, f"rm{pieces(s, 'UK', 'infantry', 'tobruk')[0]}")
    assert f"rm{carrier}" in ids(s) and f"rm{spare}" in ids(s)
    s = act(s, f"rm{carrier}")
    assert kind_of(s) == "c_def" and s.combat is not None and len(s.combat.force) == 1


def test_exchange_taking_the_last_attacker_ends_the_combat() -> None:
    """An Exchange that costs the attacker its last piece (through its fleet) ends the combat:
    no round begins without a surviving attacking force."""
    s, carrier, inf, _spare = _axis_attacks_tobruk_from_sea()
    hand(s, ALLIES, 19)  # Syria-Lebanon Campaign: Exchange (UK)
    uk = pieces(s, "UK", "infantry", "tobruk")
    s = act(s, f"ex19-{uk[0]}")
    assert kind_of(s) == "c_exch" and f"rm{carrier}" in ids(s)
    s = act(s, f"rm{carrier}")
    assert s.loc[inf] == -1 and s.combat is None
    assert s.loc[uk[1]] == sp("tobruk")  # the other defender is never asked to go


def test_begin_round_without_attacking_force_ends_combat() -> None:
    """A round never begins without a surviving attacking piece."""
    s, _carrier, inf, _spare = _axis_attacks_tobruk_from_sea()
    s.stack.clear()
    s.loc[inf] = -1
    combat.begin_round(s, Ctx())
    assert s.combat is None and not s.stack


def _allies_attack_gulf_of_sidra(*allies_hand: int) -> tuple[SfState, int]:
    """Two UK fleets in Eastern Mediterranean attack a Pact fleet in Gulf of Sidra; a Pact
    airplane in Tobruk may support it. Returns (state, pact airplane)."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "fleet", "eastern_med")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    plane = put(s, "Pact", "airplane", "tobruk")
    hand(s, ALLIES, *allies_hand, 21, 24)
    return desperate_attack(s, (21, 24), 2, "eastern_med", "gulf_of_sidra"), plane


def test_attacker_anti_air_in_sea_combat() -> None:
    """ "Whenever your opponent removes an airplane in land or sea combat": at sea the attacker
    counters the defender's airplane loss with Anti-Air and continues without a removal."""
    s, plane = _allies_attack_gulf_of_sidra(2)  # Faith, Hope & Charity: Anti-Air
    s = act(s, f"rm{plane}")
    assert kind_of(s) == "c_aa_atk" and "aa2" in ids(s)
    s = act(s, "aa2")
    assert kind_of(s) == "c_cont" and "free" in ids(s)
    s = act(s, "free")
    assert kind_of(s) == "c_def" and s.combat is not None and s.combat.rounds == 2


def test_defender_anti_air_ends_round_when_attacker_removes_airplane_at_sea() -> None:
    """Two Pact airplanes attack a UK fleet: the UK answer with Anti-Air instead of a removal;
    the Pact remove an airplane to continue; the UK's second Anti-Air ends that round, and the
    attacker must remove another piece of that rank (its last airplane cannot go)."""
    s = blank(phase="action")
    a1 = put(s, "Pact", "airplane", "sicily")
    a2 = put(s, "Pact", "airplane", "sicily")
    put(s, "UK", "fleet", "ionian")
    hand(s, ALLIES, 2, 8)  # Faith, Hope & Charity; Desert Air Force: both Anti-Air
    hand(s, AXIS, 55, 56)
    s = desperate_attack(s, (55, 56), 1, "sicily", "ionian")
    s = act(s, "aa2")
    assert kind_of(s) == "c_cont" and f"rm{a1}" in ids(s)
    s = act(s, f"rm{a1}")
    assert kind_of(s) == "c_aa_def" and "aa8" in ids(s)
    s = act(s, "aa8")
    assert kind_of(s) == "c_cont" and s.combat is not None and s.combat.rounds == 1
    assert f"rm{a2}" not in ids(s) and ids(s) == ["stop"]


def _allies_attack_syria(*kinds: str, pact: int = 1, allies_hand: tuple[int, ...] = ()) -> SfState:
    s = blank(phase="action", active=ALLIES)
    put(s, "France", "infantry", "palestine_jordan")
    for k in kinds:
        put(s, "UK", k, "palestine_jordan")
    for _ in range(pact):
        put(s, "Pact", "infantry", "syria_lebanon")
    hand(s, ALLIES, *allies_hand, 21, 24)
    return desperate_attack(s, (21, 24), UK, "palestine_jordan", "syria_lebanon")


def test_french_infantry_may_be_left_out_of_a_uk_force() -> None:
    """The French infantry "may be included in a UK or USA attacking force": a choice."""
    s = _allies_attack_syria("tank")
    assert kind_of(s) == "c_fr" and ids(s) == ["with", "without"]
    fr = pieces(s, "France", "infantry", "palestine_jordan")[0]
    tank = pieces(s, "UK", "tank", "palestine_jordan")[0]
    out = act(s, "without")
    assert out.combat is not None and out.combat.force == [tank] and kind_of(out) == "c_def"
    inc = act(s, "with")
    assert inc.combat is not None and sorted(inc.combat.force) == sorted([fr, tank])


def test_french_infantry_alone_is_no_uk_force() -> None:
    """The French piece joins a UK force; alone it attacks only as a French force."""
    s = blank(phase="action", active=ALLIES)
    put(s, "France", "infantry", "palestine_jordan")
    put(s, "Pact", "infantry", "syria_lebanon")
    pj = sp("palestine_jordan")
    assert combat.attack_targets(s, UK, pj) == []
    assert combat.attack_targets(s, FRANCE, pj) == [sp("syria_lebanon")]


def test_uk_advance_cannot_move_the_french_infantry() -> None:
    """ "Only French reactions may be used on behalf of the French piece": a UK Advance!
    card may move the UK tank into the emptied space, not the French infantry."""
    s = _allies_attack_syria("tank", allies_hand=(16,))  # Operation Crusader: Advance! (UK)
    s = act(s, "with")
    fr = pieces(s, "France", "infantry", "palestine_jordan")[0]
    tank = pieces(s, "UK", "tank", "palestine_jordan")[0]
    s = act(s, f"rm{pieces(s, 'Pact', 'infantry', 'syria_lebanon')[0]}")
    assert kind_of(s) == "c_adv"
    assert f"adv16-{tank}" in ids(s) and f"adv16-{fr}" not in ids(s)


def test_uk_sustain_attack_not_for_the_french_piece_alone() -> None:
    """A UK force reduced to the French infantry cannot continue with a UK Sustain Attack."""
    s = _allies_attack_syria("infantry", pact=3, allies_hand=(10,))  # Operation Compass (UK)
    s = act(s, "with")
    uk = pieces(s, "UK", "infantry", "palestine_jordan")[0]
    s = act(s, f"rm{pieces(s, 'Pact', 'infantry', 'syria_lebanon')[0]}")
    assert "sa10" in ids(s)
    s = act(s, f"rm{uk}")
    s = act(s, f"rm{pieces(s, 'Pact', 'infantry', 'syria_lebanon')[0]}")
    assert kind_of(s) == "c_cont" and ids(s) == ["stop"]


def test_airplane_control_snapshot_is_taken_once_per_action_step() -> None:
    """L3/35 Tankette moves a tank into Allies-held Tobruk, "then take another action": in that
    same Action step no airplane may end a move in Tobruk, flying or unloading, because the
    Axis did not control it "at the beginning of the step"."""
    s = blank(phase="action")
    s.control[sp("tobruk")] = ALLIES
    tank = put(s, "Pact", "tank", "benghazi")
    plane = put(s, "Pact", "airplane", "benghazi")
    fleet = put(s, "Pact", "fleet", "gulf_of_sidra")
    rider = put(s, "Pact", "airplane", "gulf_of_sidra", on=fleet)
    hand(s, AXIS, 52, 65)  # L3/35 Tankette; a card to pay for the Forced March
    s = act(s, "play52")
    s = act(s, move(tank, "tobruk"))
    assert s.control[sp("tobruk")] == AXIS and kind_of(s) == "action"
    s = act(act(s, "fm"), "d65")
    assert kind_of(s) == "fm_move"
    assert move(plane, "tobruk") not in ids(s) and move(rider, "tobruk") not in ids(s)
    assert move(rider, "benghazi") in ids(s)


def test_loading_a_piece_during_the_action_step() -> None:
    """Naval Transport, Loading: "if a piece is able to move during the Action step (example,
    Allied Forces Headquarters), it may load at that time". The UK infantry in Egypt loads
    onto the fleet in Eastern Mediterranean, the fleet carries it to Levantine Sea, and it
    unloads in the Second Movement step."""
    s = blank(phase="action", active=ALLIES, round_=8)
    inf = put(s, "UK", "infantry", "egypt")
    fleet = put(s, "UK", "fleet", "eastern_med")
    hand(s, ALLIES, 30)  # Allied Forces Headquarters
    s = act(s, "play30")
    assert kind_of(s) == "fx_move" and move(inf, "eastern_med", fleet) in ids(s)
    s = act(s, move(inf, "eastern_med", fleet))
    assert s.on[inf] == fleet
    s = act(s, move(fleet, "levantine"))
    assert s.loc[inf] == sp("levantine") and s.on[inf] == fleet
    assert kind_of(s) == "action"  # "then take another action"
    s = act(act(s, "pass"), move(inf, "palestine_jordan"))
    assert s.loc[inf] == sp("palestine_jordan") and s.on[inf] == -1


def test_every_starting_piece_is_in_supply_but_the_two_the_rulebook_names() -> None:
    """Invariant of the setup data: every starting piece is in supply, except exactly the two
    the Example of Play names ("the Pact infantry in Tripoli begins the game unsupplied ...
    The same is true of the UK infantry in Malta")."""
    from warroom.games.qmg_sf import supply
    from warroom.games.qmg_sf.setup import new_state

    for variant in ("standard", "first_game"):
        s = new_state(3, variant)
        out = {(side, s.loc[p]) for side in (AXIS, ALLIES) for p in supply.unsupplied(s, side)}
        assert out == {(AXIS, sp("tripoli")), (ALLIES, sp("malta"))}
