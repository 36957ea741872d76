"""Combat procedures: Retreat, Withdraw Navy, Anti-Air counters, carriers, French support, ranks."""

from __future__ import annotations

from warroom.games.qmg_sf import combat
from warroom.games.qmg_sf.state import ALLIES, AXIS, UK, SfState
from warroom.games.qmg_sf.tests.helpers import (
    act,
    blank,
    desperate_attack,
    hand,
    ids,
    kind_of,
    pieces,
    put,
    sp,
)


def attack_el_alamein(*defenders: str, allies_hand: tuple[int, ...] = ()) -> SfState:
    """A Pact infantry and tank in Tobruk Desperate-Attack El Alamein held by UK `defenders`."""
    s = blank(phase="action")
    hand(s, ALLIES, *allies_hand)
    put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "tank", "tobruk")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    for kind in defenders:
        put(s, "UK", kind, "el_alamein")
    hand(s, AXIS, 55, 56, 57)
    s = act(s, "da")
    s = act(s, "d55")
    s = act(s, "d56")
    return act(s, f"a1-{sp('tobruk')}-{sp('el_alamein')}")


def test_retreat_then_remove_remaining_defender() -> None:
    """Retreat moves one piece out; a remaining defender must still be removed."""
    s = attack_el_alamein("infantry", "tank", allies_hand=(9,))  # Western Desert Force: Retreat
    put(s, "UK", "infantry", "egypt")
    s.touch()
    tank = pieces(s, "UK", "tank", "el_alamein")[0]
    inf = pieces(s, "UK", "infantry", "el_alamein")[0]
    option = f"rt9-{tank}-{sp('egypt')}"
    assert option in ids(s)
    s = act(s, option)
    assert kind_of(s) == "c_defrm" and ids(s) == [f"rm{inf}"]
    s = act(s, f"rm{inf}")
    assert s.loc[tank] == sp("egypt") and s.combat is None


def test_attacker_anti_air_after_defender_removes_airplane() -> None:
    """The defender removes an adjacent airplane; the attacker's Anti-Air continues for free."""
    s = attack_el_alamein("infantry", "infantry")
    plane = put(s, "UK", "airplane", "egypt")
    s.touch()
    s = act(s, f"rm{plane}")
    assert kind_of(s) == "c_aa_atk" and "aa57" in ids(s)
    s = act(s, "aa57")
    assert "free" in ids(s)
    s = act(s, "free")
    assert kind_of(s) == "c_def"


def test_continue_needs_matching_rank() -> None:
    """After the defender removes a tank, the attacker cannot continue by removing infantry."""
    s = attack_el_alamein("tank", "infantry")
    tank = pieces(s, "UK", "tank", "el_alamein")[0]
    s = act(s, f"rm{tank}")
    pinf = pieces(s, "Pact", "infantry", "tobruk")[0]
    ptank = pieces(s, "Pact", "tank", "tobruk")[0]
    assert f"rm{ptank}" in ids(s) and f"rm{pinf}" not in ids(s)
    s = act(s, f"rm{ptank}")
    assert kind_of(s) == "c_def"


def test_last_attacking_piece_cannot_be_removed() -> None:
    """You cannot remove the last piece of an attacking force to continue an attack."""
    s = blank(phase="action")
    put(s, "Pact", "tank", "tobruk")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    put(s, "UK", "infantry", "el_alamein")
    put(s, "UK", "infantry", "el_alamein")
    hand(s, AXIS, 55, 56)
    s = desperate_attack(s, (55, 56), 1, "tobruk", "el_alamein")
    s = act(s, next(o for o in ids(s) if o.startswith("rm")))
    assert ids(s) == ["stop"]


def test_withdraw_navy_takes_carried_airplane() -> None:
    """Withdraw Navy moves a carrier with its airplane; the emptied sea space ends the combat."""
    s = blank(phase="action")
    put(s, "Pact", "fleet", "ionian")
    put(s, "Pact", "fleet", "ionian")
    put(s, "Pact", "infantry", "sicily")
    carrier = put(s, "UK", "carrier", "gulf_of_sidra")
    plane = put(s, "UK", "airplane", "gulf_of_sidra", on=carrier)
    put(s, "UK", "infantry", "egypt")
    hand(s, AXIS, 55, 56)
    hand(s, ALLIES, 12)  # Force H: Withdraw Navy
    s = desperate_attack(s, (55, 56), 1, "ionian", "gulf_of_sidra")
    assert f"rm{carrier}" not in ids(s) and f"rm{plane}" in ids(s)  # the airplane goes first
    s = act(s, f"wn12-{carrier}-{sp('eastern_med')}")
    assert s.loc[carrier] == s.loc[plane] == sp("eastern_med") and s.combat is None


def test_carrier_cannot_attack_alone() -> None:
    """A carrier cannot be the only piece in a force that initiates an attack."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "carrier", "eastern_med")
    put(s, "UK", "infantry", "egypt")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    assert combat.attack_targets(s, UK, sp("eastern_med")) == []
    put(s, "UK", "fleet", "eastern_med")
    assert combat.attack_targets(s, UK, sp("eastern_med")) == [sp("gulf_of_sidra")]


def test_french_last_piece_gets_no_support() -> None:
    """A UK force reduced to the French infantry cannot remove UK airplanes to continue."""
    s = blank(phase="action", active=ALLIES)
    fr = put(s, "France", "infantry", "palestine_jordan")
    uk = put(s, "UK", "infantry", "palestine_jordan")
    plane = put(s, "UK", "airplane", "palestine_jordan")
    for _ in range(3):
        put(s, "Pact", "infantry", "syria_lebanon")
    hand(s, ALLIES, 21, 24)
    s = desperate_attack(s, (21, 24), 2, "palestine_jordan", "syria_lebanon")
    assert kind_of(s) == "c_fr"  # the French infantry "may be included"
    s = act(s, "with")
    assert s.combat is not None and sorted(s.combat.force) == sorted([fr, uk])
    s = act(s, next(o for o in ids(s) if o.startswith("rm")))
    assert f"rm{uk}" in ids(s) and f"rm{plane}" in ids(s)
    s = act(s, f"rm{uk}")
    s = act(s, next(o for o in ids(s) if o.startswith("rm")))
    assert ids(s) == ["stop"]


def test_unsupplied_pieces_cannot_attack() -> None:
    """An unsupplied force cannot attack."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "tobruk")
    put(s, "UK", "fleet", "gulf_of_sidra")
    put(s, "UK", "fleet", "eastern_med")
    put(s, "UK", "fleet", "gulf_of_gabes")
    put(s, "UK", "infantry", "el_alamein")
    hand(s, AXIS, 55, 56)
    assert "da" not in ids(s)
