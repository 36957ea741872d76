"""Rulebook audit: card text against its effect, and rule edges found in the audit."""

from __future__ import annotations

from warroom.games.qmg_sf import board, combat, effects, supply, turn
from warroom.games.qmg_sf.content import COUNTRIES
from warroom.games.qmg_sf.movement import destinations
from warroom.games.qmg_sf.state import ALLIES, AXIS, OFF, Ctx, SfState
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


def test_taranto_raid_needs_a_uk_carrier_on_the_board() -> None:
    """Taranto Raid: "If the Allies have a UK carrier on the board: Eliminate a Pact fleet in
    Tyrrhenian Sea or Ionian Sea." ("If a card specifies prerequisites or conditions that are
    not satisfied, you cannot play that card.")"""
    s = blank(phase="action", active=ALLIES)
    put(s, "Pact", "fleet", "ionian")
    assert not effects.playable(s, ALLIES, 14)
    put(s, "UK", "carrier", "south_atlantic")
    assert effects.playable(s, ALLIES, 14)


def test_deploy_an_infantry_and_a_tank_deploys_both() -> None:
    """Eighth Army: "Deploy a UK infantry and a UK tank in or adjacent to Egypt." Both are
    deployed: the infantry cannot be skipped while one can be placed ("and", unlike Rock of
    Gibraltar's "and/or"); only a shortage of pieces allows deploying fewer."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "fleet", "red_sea")
    hand(s, ALLIES, 15)
    s = act(s, "play15")
    assert kind_of(s) == "fx_place" and "skip" not in ids(s)
    s = act(s, ids(s)[0])
    assert kind_of(s) == "fx_place" and "skip" not in ids(s)


def test_deploy_and_with_no_piece_available_may_deploy_fewer() -> None:
    """ "If a card allows you to deploy more pieces than you have available, you may deploy
    fewer pieces, or remove one or more pieces from the board to make them available"."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "fleet", "red_sea")
    infantry = [put(s, "UK", "infantry", "arabia") for _ in range(3)]
    hand(s, ALLIES, 15)
    s = act(s, "play15")
    assert kind_of(s) == "fx_place"
    assert {"skip", *(f"free{p}" for p in infantry)} <= set(ids(s))
    s = act(s, "skip")
    assert kind_of(s) == "fx_place" and "skip" not in ids(s)


def test_a_transported_piece_may_be_removed_on_its_own() -> None:
    """ "At any time during your turn you may remove any of your own pieces from the board":
    a transported infantry or a carried airplane too, leaving its fleet or carrier."""
    s = blank(phase="move1")
    fleet = put(s, "Pact", "fleet", "gulf_of_sidra")
    inf = put(s, "Pact", "infantry", "gulf_of_sidra", on=fleet)
    carrier = put(s, "Pact", "carrier", "ionian")
    plane = put(s, "Pact", "airplane", "ionian", on=carrier)
    assert {f"rm{inf}", f"rm{plane}"} <= set(ids(s))
    s = act(s, f"rm{inf}")
    s = act(s, f"rm{plane}")
    assert s.loc[inf] == OFF and s.loc[plane] == OFF
    assert s.loc[fleet] == sp("gulf_of_sidra") and s.loc[carrier] == sp("ionian")


def test_eliminate_may_take_a_transported_piece() -> None:
    """Task Force Diverted: "Eliminate an Axis piece in either South Atlantic or Red Sea":
    a German infantry aboard a Pact fleet in the Red Sea is an Axis piece there."""
    s = blank(phase="action", active=ALLIES)
    fleet = put(s, "Pact", "fleet", "red_sea")
    inf = put(s, "Germany", "infantry", "red_sea", on=fleet)
    s = act(s, "ct68")
    assert kind_of(s) == "fx_elim" and {f"e{fleet}", f"e{inf}"} <= set(ids(s))
    s = act(s, f"e{inf}")
    assert s.loc[inf] == OFF and s.loc[fleet] == sp("red_sea")


def test_sea_combat_carrier_ranks_and_naval_combat() -> None:
    """Sea ranks: the defender's carrier (rank below an airplane) may be answered by an
    airplane or fleet, never by removing the attacking carrier ("A carrier cannot be removed
    to continue an attack"); after a defending Naval Combat only the attacker's own Naval
    Combat could continue ("Naval Combat has the highest sea combat rank")."""
    s = blank(phase="action", active=ALLIES)
    carrier = put(s, "UK", "carrier", "ionian")
    plane = put(s, "UK", "airplane", "ionian", on=carrier)
    fleet = put(s, "UK", "fleet", "ionian")
    pact_carrier = put(s, "Pact", "carrier", "gulf_of_sidra")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    hand(s, ALLIES, 7, 8)
    hand(s, AXIS, 53)
    s = desperate_attack(s, (7, 8), 2, "ionian", "gulf_of_sidra")
    s = act(s, f"rm{pact_carrier}")
    assert sorted(ids(s)) == sorted(["stop", f"rm{plane}", f"rm{fleet}"])
    s = act(s, f"rm{plane}")
    s = act(s, "nc53")
    assert ids(s) == ["stop"]


def test_airplane_retreats_one_space_to_controlled_land_only() -> None:
    """Retreat: "The retreating piece must move to a land space you currently control (it
    cannot load onto a fleet)" and "An airplane may only retreat one space, and may not move
    onto a carrier"."""
    s = blank(phase="action")
    plane = put(s, "UK", "airplane", "el_alamein")
    inf = put(s, "UK", "infantry", "el_alamein")
    put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "carrier", "eastern_med")
    assert destinations(s, plane, "retreat") == [(sp("egypt"), -1)]
    assert destinations(s, inf, "retreat") == [(sp("egypt"), -1)]


def test_a_card_that_can_do_nothing_cannot_be_played() -> None:
    """Ruling 12: "Activate Greece for the Allies, if possible; then you may deploy a UK
    infantry in Athens or Crete" with Greece already on the Axis side and no deploy possible
    does nothing: it cannot be played (it can once the deploy is possible)."""
    s = blank(phase="action", active=ALLIES)
    board.activate(s, COUNTRIES.index("Greece"), AXIS)
    s.touch()
    assert not effects.playable(s, ALLIES, 1)
    assert effects.playable(s, ALLIES, 18)  # Anglo-Iraqi War: Iraq is still neutral


def test_own_carrier_removal_takes_its_airplane_instead() -> None:
    """ "A carrier can never be removed while it carries an airplane, even if eliminated -
    the airplane will always be removed instead": removing one's own carrier at any time
    during the turn takes its airplane; the carrier stays (it may be removed next)."""
    s = blank(phase="move1", active=ALLIES)
    carrier = put(s, "UK", "carrier", "western_med")
    plane = put(s, "UK", "airplane", "western_med", on=carrier)
    s = act(s, f"rm{carrier}")
    assert s.loc[plane] == OFF and s.loc[carrier] == sp("western_med")
    s = act(s, f"rm{carrier}")
    assert s.loc[carrier] == OFF


def test_decima_flottiglia_removes_the_fleets_cargo() -> None:
    """Decima Flottiglia MAS eliminates an Allies fleet adjacent to a Pact infantry unless
    the Allies discard a card of that piece's faction (UK, not the French cargo's): "If a
    fleet transporting a piece is removed, the piece it is transporting is also removed"."""
    s = blank(phase="action", active=AXIS)
    put(s, "Pact", "infantry", "tripoli")
    fleet = put(s, "UK", "fleet", "gulf_of_sidra")
    french = put(s, "France", "infantry", "gulf_of_sidra", on=fleet)
    hand(s, AXIS, 54)
    hand(s, ALLIES, 22, 5)  # French Foreign Legion (France), Mediterranean Station (UK)
    s = act(act(s, "play54"), f"e{fleet}")
    assert kind_of(s) == "fx_unless" and ids(s) == ["allow", "d5"]
    s = act(s, "allow")
    assert s.loc[fleet] == OFF and s.loc[french] == OFF


def test_decima_flottiglia_on_a_carrier_takes_its_airplane() -> None:
    """A carrier "eliminated" by a card loses its airplane instead."""
    s = blank(phase="action", active=AXIS)
    put(s, "Pact", "infantry", "tripoli")
    carrier = put(s, "UK", "carrier", "gulf_of_sidra")
    plane = put(s, "UK", "airplane", "gulf_of_sidra", on=carrier)
    hand(s, AXIS, 54)
    s = act(act(act(s, "play54"), f"e{carrier}"), "allow")
    assert s.loc[plane] == OFF and s.loc[carrier] == sp("gulf_of_sidra")


def test_sea_combat_fleet_loss_takes_its_cargo() -> None:
    """A defending fleet removed in sea combat takes the piece it transports (which is no
    defender of its own: the defender may not remove it instead of the fleet)."""
    s = blank(phase="action", active=AXIS)
    put(s, "Pact", "fleet", "ionian")
    fleet = put(s, "UK", "fleet", "gulf_of_sidra")
    inf = put(s, "UK", "infantry", "gulf_of_sidra", on=fleet)
    hand(s, AXIS, 55, 56)
    s = desperate_attack(s, (55, 56), 1, "ionian", "gulf_of_sidra")
    assert f"rm{inf}" not in ids(s) and f"rm{fleet}" in ids(s)
    s = act(s, f"rm{fleet}")
    assert s.loc[inf] == OFF and s.combat is None


def _allied_greece(phase: str = "action", active: int = AXIS) -> SfState:
    s = blank(phase=phase, active=active)
    board.activate(s, COUNTRIES.index("Greece"), ALLIES)
    s.step_changes = {}
    s.touch()
    return s


def test_mcf_cannot_attack_or_support_an_attack() -> None:
    """ "Minor Country Force counters cannot move, nor can they be part of an attacking force
    or support an attack": an Allied Athens with only its MCF attacks nothing, and an MCF is
    never removed to continue an Allied attack next to it."""
    s = _allied_greece(active=ALLIES)
    assert combat.all_attacks(s, ALLIES) == []
    put(s, "UK", "infantry", "athens")
    put(s, "UK", "infantry", "athens")
    put(s, "Pact", "infantry", "albania")
    put(s, "Pact", "infantry", "albania")
    hand(s, ALLIES, 21, 24)
    s = desperate_attack(s, (21, 24), 2, "athens", "albania")
    s = act(s, next(o for o in ids(s) if o.startswith("rm")))
    assert kind_of(s) == "c_cont" and "rm-mcf" not in ids(s)


def test_mcf_defends_like_infantry() -> None:
    """ "On defense, MCFs defend like infantry": removing the MCF sets infantry rank, so the
    attacker may continue by removing an infantry."""
    s = _allied_greece()
    put(s, "UK", "tank", "athens")
    put(s, "Pact", "infantry", "albania")
    inf = put(s, "Pact", "infantry", "albania")
    hand(s, AXIS, 55, 56)
    s = desperate_attack(s, (55, 56), 1, "albania", "athens")
    s = act(s, "rm-mcf")
    assert kind_of(s) == "c_cont" and f"rm{inf}" in ids(s)


def test_mcfs_carry_supply_and_do_not_interdict() -> None:
    """ "You may trace supply through controlled MCFs as if they were your pieces" (Athens,
    next to an Axis infantry, passes Allied supply only while its MCF stands) and "MCFs do
    not interdict supply in adjacent spaces" (the empty Albania and Aegean stay open to the
    Axis; a UK airplane in Athens would close both)."""
    s = _allied_greece()
    assert supply.passable(s, AXIS)[sp("albania")] and supply.passable(s, AXIS)[sp("aegean")]
    plane = put(s, "UK", "airplane", "athens")
    assert not supply.passable(s, AXIS)[sp("albania")]
    assert not supply.passable(s, AXIS)[sp("aegean")]
    board.remove(s, plane)
    put(s, "Pact", "infantry", "albania")
    assert supply.passable(s, ALLIES)[sp("athens")]
    s.mcf[sp("athens")] = 0
    s.touch()
    assert not supply.passable(s, ALLIES)[sp("athens")]


def test_mcfs_are_never_removed_in_the_supply_step() -> None:
    """ "MCFs are always in supply": an Allied MCF cut off from every Supply Flag stays."""
    s = _allied_greece(phase="end", active=ALLIES)
    put(s, "Pact", "fleet", "ionian")
    put(s, "Pact", "fleet", "aegean")
    turn.end_turn(s, Ctx())
    assert s.mcf[sp("athens")] == 1


def _axis_attacks_el_alamein(fleet_space: str) -> tuple[SfState, int, int]:
    """Two Pact infantry in Tobruk attack two UK infantry in El Alamein (Desperate Attack),
    a Pact fleet in `fleet_space`; returns the state, the fleet and one UK infantry."""
    s = blank(phase="action", active=AXIS)
    put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "infantry", "tobruk")
    fleet = put(s, "Pact", "fleet", fleet_space)
    uk = put(s, "UK", "infantry", "el_alamein")
    put(s, "UK", "infantry", "el_alamein")
    hand(s, AXIS, 55, 56, 53)  # Regia Marina: Naval Combat (Pact)
    hand(s, ALLIES, 5, 19)  # Mediterranean Station: Naval Combat; Syria-Lebanon: Exchange
    return desperate_attack(s, (55, 56), 1, "tobruk", "el_alamein"), fleet, uk


def test_land_naval_combat_counters_a_defending_fleet_loss() -> None:
    """ "In a land combat, whenever your opponent removes a fleet, you may use a card with
    the Naval Combat reaction ... the same as those for Anti-Air": the defender removes a
    supporting UK fleet; the attacker's Naval Combat continues without a removal."""
    s = blank(phase="action", active=AXIS)
    put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "infantry", "tobruk")
    put(s, "UK", "infantry", "el_alamein")
    put(s, "UK", "infantry", "el_alamein")
    uk_fleet = put(s, "UK", "fleet", "eastern_med")
    hand(s, AXIS, 55, 56, 53)
    s = desperate_attack(s, (55, 56), 1, "tobruk", "el_alamein")
    s = act(s, f"rm{uk_fleet}")
    assert kind_of(s) == "c_aa_atk" and ids(s) == ["pass", "nc53"]
    s = act(s, "nc53")
    assert kind_of(s) == "c_cont" and "free" in ids(s)


def test_land_naval_combat_ends_the_round_when_the_attacker_removes_a_fleet() -> None:
    """The defender's Naval Combat answers the attacker's fleet removal to continue; the
    attacker must again remove a piece of at least the rank the defender last set."""
    s, fleet, uk = _axis_attacks_el_alamein("eastern_med")
    s = act(s, f"rm{uk}")
    s = act(s, f"rm{fleet}")
    assert kind_of(s) == "c_aa_def" and ids(s) == ["pass", "nc5"]
    s = act(s, "nc5")
    assert kind_of(s) == "c_cont" and "free" not in ids(s)
    assert sum(o.startswith("rm") for o in ids(s)) == 2  # either Pact infantry


def test_exchange_then_naval_combat_costs_the_attacker_another_piece() -> None:
    """ "If you use an Exchange reaction, and the attacker removes an airplane because of it,
    you may then additionally use an Anti-Air reaction. The attacker must then remove an
    additional piece" (Naval Combat likewise for a fleet in land combat)."""
    s, fleet, uk = _axis_attacks_el_alamein("eastern_med")
    s = act(s, f"ex19-{uk}")
    assert kind_of(s) == "c_exch" and f"rm{fleet}" in ids(s)
    s = act(s, f"rm{fleet}")
    assert kind_of(s) == "c_aa_def" and "nc5" in ids(s)
    s = act(s, "nc5")
    assert kind_of(s) == "c_exch" and f"rm{fleet}" not in ids(s)


def test_a_strait_carries_interdiction_only_for_the_anchors_controller() -> None:
    """Straits: "If you control the anchor icon space, then the two sea spaces are considered
    adjacent for you; if not, the spaces are not considered adjacent for you." A Pact fleet
    in Western Mediterranean interdicts the empty South Atlantic (the Allies' Supply Flag
    space: "This includes the space with the Supply Flag itself") only while the Axis hold
    Gibraltar."""
    s = blank()
    put(s, "Pact", "fleet", "western_med")
    assert supply.passable(s, ALLIES)[sp("south_atlantic")]
    s.control[sp("gibraltar")] = AXIS
    s.touch()
    assert not supply.passable(s, ALLIES)[sp("south_atlantic")]


def test_gothic_line_recruits_in_or_adjacent_to_rome_aboard_a_fleet_too() -> None:
    """Gothic Line: "Recruit a German infantry in or adjacent to Rome." Tyrrhenian Sea is
    adjacent to Rome, and "You may deploy a piece loaded directly onto a fleet": the infantry
    may be recruited aboard a Pact fleet there (the data had limited it to land spaces, which
    the text does not say)."""
    s = blank(phase="action")
    fleet = put(s, "Pact", "fleet", "tyrrhenian")
    hand(s, AXIS, 49)
    s = act(s, "play49")
    assert kind_of(s) == "fx_place"
    assert {f"d{sp('rome')}", f"d{sp('naples')}", f"d{sp('tyrrhenian')}-{fleet}"} <= set(ids(s))
    s = act(s, f"d{sp('tyrrhenian')}-{fleet}")
    (cargo,) = board.cargo(s, fleet)
    assert board.faction(cargo) == 0 and board.kind(cargo) == 0  # German infantry


def test_decima_flottiglia_counts_a_transported_pact_infantry() -> None:
    """Decima Flottiglia MAS: "Eliminate an Allies fleet or carrier adjacent to a Pact
    infantry". A Pact infantry aboard a fleet in Ionian Sea is a Pact infantry in that space
    (ruling 24); the rulebook bars only a transported *airplane* from fulfilling a card's
    prerequisite ("An airplane being transported cannot fulfill a card's prerequisite"), so
    the UK fleet in adjacent Gulf of Sidra may be chosen (before, every transported piece was
    ignored). Fallschirmjaegers still ignores a transported German airplane."""
    s = blank(phase="action", active=AXIS)
    pact_fleet = put(s, "Pact", "fleet", "ionian")
    put(s, "Pact", "infantry", "ionian", on=pact_fleet)
    uk_fleet = put(s, "UK", "fleet", "gulf_of_sidra")
    hand(s, AXIS, 54)
    assert effects.playable(s, AXIS, 54)
    s = act(s, "play54")
    assert ids(s) == [f"e{uk_fleet}"]
    s = blank(phase="action", active=AXIS)
    pact_fleet = put(s, "Pact", "fleet", "tyrrhenian")
    put(s, "Germany", "airplane", "tyrrhenian", on=pact_fleet)
    assert not effects.playable(s, AXIS, 39)


def test_defender_removes_only_support_of_a_defending_faction() -> None:
    """ "Remove an airplane or fleet adjacent to the attacked space, of the same faction as a
    defending piece": with only a UK infantry in El Alamein, the UK airplane in Egypt may be
    lost instead, the USA airplane beside it may not."""
    s = blank(phase="action", active=AXIS, round_=8)
    put(s, "Pact", "infantry", "tobruk")
    uk = put(s, "UK", "infantry", "el_alamein")
    usa_plane = put(s, "USA", "airplane", "egypt")
    uk_plane = put(s, "UK", "airplane", "egypt")
    put(s, "UK", "infantry", "egypt")
    hand(s, AXIS, 50, 51)
    s = desperate_attack(s, (50, 51), 1, "tobruk", "el_alamein")
    assert kind_of(s) == "c_def"
    assert sorted(ids(s)) == sorted([f"rm{uk}", f"rm{uk_plane}"])
    assert f"rm{usa_plane}" not in ids(s)


def test_attacker_support_must_be_supplied() -> None:
    """ "When you continue an attack ... you may remove a supplied airplane or fleet from any
    space adjacent to the attacked space": an unsupplied UK airplane in Benghazi (cut off by
    the Pact infantry in Tobruk and the Pact fleet in Gulf of Gabes) cannot pay to continue."""
    s = blank(phase="action", active=ALLIES, round_=8)
    force = [put(s, "UK", "infantry", "el_alamein") for _ in range(2)]
    s.control[sp("benghazi")] = ALLIES
    s.control[sp("western_desert")] = ALLIES
    plane = put(s, "UK", "airplane", "benghazi")
    put(s, "Pact", "fleet", "gulf_of_gabes")
    first = put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "infantry", "tobruk")
    assert not supply.is_supplied(s, plane) and supply.is_supplied(s, force[0])
    hand(s, ALLIES, 7, 8)
    s = desperate_attack(s, (7, 8), 2, "el_alamein", "tobruk")
    s = act(s, f"rm{first}")
    assert kind_of(s) == "c_cont"
    assert sorted(ids(s)) == sorted(["stop", *(f"rm{p}" for p in force)])


def _advance_position(cut_off: bool) -> SfState:
    """A UK infantry alone in El Alamein has just cleared Tobruk; Operation Crusader (Advance!)
    in hand. With `cut_off`, a Pact fleet in Gulf of Sidra (and the Pact infantry in Western
    Desert beside the emptied El Alamein) would leave it unsupplied in Tobruk."""
    s = blank(phase="action", active=ALLIES, round_=8)
    put(s, "UK", "infantry", "el_alamein")
    put(s, "UK", "infantry", "egypt")
    put(s, "Pact", "infantry", "western_desert")
    if cut_off:
        put(s, "Pact", "fleet", "gulf_of_sidra")
    defender = put(s, "Pact", "infantry", "tobruk")
    hand(s, ALLIES, 7, 8, 16)
    s = desperate_attack(s, (7, 8), 2, "el_alamein", "tobruk")
    return act(s, f"rm{defender}")


def test_advance_only_where_the_piece_would_be_supplied() -> None:
    """Advance!: "The advancing piece must follow the normal movement rules. In particular,
    you cannot advance if your piece would be unsupplied" (El Alamein, once left, is
    interdicted by the Pact infantry in Western Desert)."""
    assert kind_of(_advance_position(cut_off=False)) == "c_adv"
    assert kind_of(_advance_position(cut_off=True)) == "move2"


def test_exchange_removes_a_defender_of_the_cards_faction() -> None:
    """Exchange: "The defending piece you remove as the result of the attack must belong to
    the same faction as the card you used": a USA Exchange card (Arsenal of Democracy) in
    El Alamein may go with the USA infantry, not with the UK one."""
    s = blank(phase="action", active=AXIS, round_=8)
    put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "infantry", "tobruk")
    uk = put(s, "UK", "infantry", "el_alamein")
    usa = put(s, "USA", "infantry", "el_alamein")
    hand(s, AXIS, 50, 51)
    hand(s, ALLIES, 26)
    s = desperate_attack(s, (50, 51), 1, "tobruk", "el_alamein")
    assert sorted(ids(s)) == sorted([f"rm{uk}", f"rm{usa}", f"ex26-{usa}"])


def test_an_airplane_loads_only_onto_an_adjacent_fleet() -> None:
    """ "An airplane cannot move two spaces and load onto fleet. It can only load from a land
    space adjacent to a fleet", while it may fly two spaces onto a carrier ("This includes
    moving to or from a carrier")."""
    s = blank(phase="move1", active=AXIS)
    plane = put(s, "Pact", "airplane", "rome")
    far_fleet = put(s, "Pact", "fleet", "ionian")
    carrier = put(s, "Pact", "carrier", "ionian")
    near_fleet = put(s, "Pact", "fleet", "tyrrhenian")
    dests = destinations(s, plane, "move1")
    assert (sp("tyrrhenian"), near_fleet) in dests and (sp("ionian"), carrier) in dests
    assert (sp("ionian"), far_fleet) not in dests


def test_second_movement_moves_tanks_and_fleets_only() -> None:
    """Second Movement step: "Tanks, fleets, and carriers may move. Tanks may not load onto
    fleets"; "Infantry and airplanes may not move, except to unload from a fleet"."""
    s = blank(phase="move2", active=AXIS)
    inf = put(s, "Pact", "infantry", "rome")
    tank = put(s, "Pact", "tank", "rome")
    plane = put(s, "Pact", "airplane", "rome")
    fleet = put(s, "Pact", "fleet", "tyrrhenian")
    moves = [o for o in ids(s) if o.startswith("m")]
    assert {o.split("-")[0] for o in moves} == {f"m{tank}", f"m{fleet}"}
    assert f"m{tank}-{sp('tyrrhenian')}-{fleet}" not in moves
    assert not any(o.startswith((f"m{inf}-", f"m{plane}-")) for o in moves)


def test_an_unsupplied_defending_airplane_may_be_lost_instead() -> None:
    """ "When defending, instead of removing a piece from the attacked space, you may remove an
    airplane or fleet (supplied or unsupplied) from a space adjacent to the attacked space":
    the UK airplane in Benghazi, cut off (the Pact infantry in Western Desert and the Pact
    fleet in Gulf of Sidra interdict every way out), may go for the UK infantry in Tobruk."""
    s = blank(phase="action", active=AXIS, round_=8)
    fleet = put(s, "Pact", "fleet", "gulf_of_sidra")
    put(s, "Pact", "infantry", "gulf_of_sidra", on=fleet)
    put(s, "Pact", "infantry", "western_desert")
    s.control[sp("tobruk")] = ALLIES
    s.control[sp("benghazi")] = ALLIES
    defender = put(s, "UK", "infantry", "tobruk")
    plane = put(s, "UK", "airplane", "benghazi")
    assert not supply.is_supplied(s, plane)
    hand(s, AXIS, 50, 51)
    s = desperate_attack(s, (50, 51), 1, "gulf_of_sidra", "tobruk")
    assert kind_of(s) == "c_def" and sorted(ids(s)) == sorted([f"rm{defender}", f"rm{plane}"])


def test_after_withdraw_navy_a_remaining_defender_is_still_removed() -> None:
    """Withdraw Navy: "If you still have any pieces remaining in the attacked space after using
    a Withdraw Navy, you must still remove one of them as the result of the attack" - one of
    them, with no second reaction and no adjacent support."""
    s = blank(phase="action", active=AXIS, round_=8)
    put(s, "Pact", "fleet", "ionian")
    put(s, "Pact", "infantry", "sicily")
    first = put(s, "UK", "fleet", "gulf_of_sidra")
    second = put(s, "UK", "fleet", "gulf_of_sidra")
    put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "infantry", "egypt")
    hand(s, AXIS, 55, 56)
    hand(s, ALLIES, 12, 13)  # Force H, Malta Convoy: Withdraw Navy
    s = desperate_attack(s, (55, 56), 1, "ionian", "gulf_of_sidra")
    s = act(s, f"wn12-{first}-{sp('eastern_med')}")
    assert kind_of(s) == "c_defrm" and ids(s) == [f"rm{second}"]


def test_the_french_infantry_is_conscripted_at_a_uk_supply_flag() -> None:
    """Conscription: "This piece must be deployed in or adjacent to a Supply Flag space of its
    faction", and the French infantry "May use any United Kingdom Supply Flag as if it were a
    French Supply Flag" (South Atlantic: Gibraltar; Red Sea: Egypt, Palestine-Jordan, Arabia).
    USA pieces are not conscripted before USA at War ("cannot move or be deployed")."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "arabia")
    hand(s, ALLIES, 7)
    assert [o for o in ids(s) if o.startswith("cons")] == ["cons2.0", "cons4.0"]
    s = act(act(s, "cons4.0"), "d7")
    spots = ["gibraltar", "egypt", "palestine_jordan", "arabia"]
    assert kind_of(s) == "cons_place" and sorted(ids(s)) == sorted(f"d{sp(x)}" for x in spots)


def test_swordfish_night_attack_needs_an_airplane_that_can_fight() -> None:
    """Swordfish Night Attack: "Attack a water space with a UK force containing an airplane":
    UK fleets alone cannot, nor with a transported airplane ("An airplane being transported
    cannot be used in either land or water combat"); an airplane on a carrier joins the sea
    force, as does an airplane attacking from a land space."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "infantry", "egypt")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    assert not effects.playable(s, ALLIES, 6)
    fleet = put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "airplane", "eastern_med", on=fleet)
    assert not effects.playable(s, ALLIES, 6)
    carrier = put(s, "UK", "carrier", "eastern_med")
    put(s, "UK", "airplane", "eastern_med", on=carrier)
    assert effects.playable(s, ALLIES, 6)
    s = blank(phase="action", active=ALLIES)
    s.control[sp("tobruk")] = ALLIES
    put(s, "UK", "airplane", "tobruk")
    put(s, "UK", "infantry", "el_alamein")
    put(s, "UK", "infantry", "egypt")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    assert effects.playable(s, ALLIES, 6)
