"""Card audit (session 19): each card's printed text, clause by clause, against the engine.

Tests named for a fix failed before it; the others pin clauses the engine already had right.
"""

from __future__ import annotations

from pathlib import Path

from warroom.games.qmg_sf import board, content, effects
from warroom.games.qmg_sf.content import COUNTRIES, ContingencyRecord, tables
from warroom.games.qmg_sf.state import ALLIES, AXIS, OFF, PACT, UK, USA
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

DOCS = Path(__file__).resolve().parents[5] / "docs" / "content.md"


def test_bulgaria_signs_pact_side_is_labelled_reconstructed() -> None:
    """The rulebook gives Bulgaria Signs Pact's text ("Example: the Pact Contingency card
    Bulgaria Signs Pact (...)") but not the side it is printed on, unlike Task Force
    Diverted ("Initial side, S 67") and Expeditionary Force ("Initial side"). Our data puts
    it on the Initial side, a reconstruction the record must name; and the docs must not
    claim that Fallschirmjaegers has rulebook play text (it is named by its prerequisite
    only: 14 of the 16 named deck cards have play text)."""
    records = {r.id: r for r in tables().records["contingency"] if isinstance(r, ContingencyRecord)}
    assert records[70].initial.name == "Bulgaria Signs Pact"
    assert "side" in records[70].reconstructed_fields
    assert all("side" not in records[i].reconstructed_fields for i in (67, 68))
    text = DOCS.read_text(encoding="utf-8")
    assert content.reconstructed_fields_table() in text
    assert "15 with play text" not in text and "14 with play text" in text


def test_l3_35_tankette_moves_a_pact_infantry_or_tank_into_the_desert() -> None:
    """L3/35 Tankette: "Move a Pact infantry or tank into a Desert Climate space; then take
    another action." A German tank beside the desert and a Pact infantry in Rome are not
    offered; the Pact tank may move into a Desert space (or, already in one, move in place);
    then the Action step continues."""
    s = blank(phase="action")
    tank = put(s, "Pact", "tank", "benghazi")
    german = put(s, "Germany", "tank", "benghazi")
    rome = put(s, "Pact", "infantry", "rome")
    hand(s, AXIS, 52)
    s = act(s, "play52")
    opts = ids(s)
    assert all(o.startswith((f"m{tank}-", f"st{tank}")) for o in opts)
    assert {move(tank, x) for x in ("tripoli", "tobruk", "western_desert")} <= set(opts)
    assert f"st{german}" not in opts and not any(o.startswith(f"m{rome}-") for o in opts)
    s = act(s, move(tank, "tobruk"))
    assert kind_of(s) == "action" and s.loc[tank] == sp("tobruk")
    s2 = blank(phase="action")
    put(s2, "Pact", "infantry", "rome")
    put(s2, "Germany", "tank", "benghazi")
    assert not effects.playable(s2, AXIS, 52)


def test_greco_italian_war_declares_war_then_attacks_athens() -> None:
    """Greco-Italian War: "Declare war on Greece, if possible. Deploy a Pact infantry in
    Albania; then move that infantry or attack with a force containing that infantry."
    Declaring war activates Greece for the other player (the Crete counter is removed), so
    the new infantry may attack Athens, whose MCF may use the Allies' Britain Supports
    Greece Stand Fast ("Athens or Crete")."""
    greece = COUNTRIES.index("Greece")
    s = blank(phase="action")
    put(s, "Pact", "fleet", "ionian")
    hand(s, AXIS, 51)
    hand(s, ALLIES, 1)
    s = act(s, "play51")
    assert s.minor[greece] == ALLIES and s.control[sp("athens")] == ALLIES
    assert s.mcf[sp("crete")] == 0 and ids(s) == [f"d{sp('albania')}"]
    s = act(s, f"d{sp('albania')}")
    inf = pieces(s, "Pact", "infantry", "albania")[0]
    assert {"stay", f"a1-{sp('athens')}"} <= set(ids(s))
    s = act(s, f"a1-{sp('athens')}")
    assert kind_of(s) == "c_def" and set(ids(s)) == {"rm-mcf", "sf1"}
    assert s.combat is not None and s.combat.force == [inf]


def test_greco_italian_war_with_greece_already_at_war_still_deploys() -> None:
    """ "Declare war on Greece, if possible": with Greece already active the card is still
    played for its deploy in Albania."""
    s = blank(phase="action")
    put(s, "Pact", "fleet", "ionian")
    board.activate(s, COUNTRIES.index("Greece"), ALLIES)
    hand(s, AXIS, 51)
    s = act(s, "play51")
    assert ids(s) == [f"d{sp('albania')}"]


def test_bulgaria_signs_pact_on_an_allied_bulgaria_still_places_the_flag() -> None:
    """Bulgaria Signs Pact: "Activate Bulgaria for the Axis, if possible; then you may
    recruit a German infantry there. Place the Bulgaria Supply Flags marker in Bulgaria."
    With Bulgaria already on the Allies' side (the Axis declared war on it) neither the
    activation nor the recruit is possible, but the marker is still placed."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "rome")
    board.activate(s, COUNTRIES.index("Bulgaria"), ALLIES)
    assert effects.playable(s, AXIS, 70, 0)
    s = act(s, "ct70")
    assert ids(s) == ["skip"]
    s = act(s, "skip")
    assert s.bulgaria_flag and s.minor[COUNTRIES.index("Bulgaria")] == ALLIES
    assert not pieces(s, "Germany", "infantry", "bulgaria")


def test_expeditionary_force_with_an_empty_hand() -> None:
    """Expeditionary Force: "Discard 1 card or the Axis gain 1 VP. Deploy a UK infantry;
    then you may discard 1 card to take another action." With no card in hand the Axis gain
    the VP, the infantry is deployed, and no other action can be bought."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "egypt")
    s = act(s, "ct67")
    assert ids(s) == ["vp"]
    s = act(s, "vp")
    assert s.vp == [1, 0] and kind_of(s) == "fx_place"
    s = act(s, f"d{sp('el_alamein')}")
    assert s.phase == "move2" and pieces(s, "UK", "infantry", "el_alamein")


def test_faith_hope_and_charity_frees_an_airplane_to_recruit_in_malta() -> None:
    """Faith, Hope & Charity: "recruit a UK airplane in Malta" with all three UK airplanes
    on the board: "remove one or more pieces from the board to make them available" (or
    place fewer); the Depot marker is placed either way."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "malta")
    planes = [put(s, "UK", "airplane", x) for x in ("egypt", "el_alamein", "gibraltar")]
    hand(s, ALLIES, 2)
    s = act(s, "play2")
    assert set(ids(s)) == {"skip", *(f"free{p}" for p in planes)}
    s = act(s, f"free{planes[0]}")
    assert s.loc[planes[0]] == OFF and ids(s) == [f"d{sp('malta')}"]
    s = act(s, f"d{sp('malta')}")
    assert s.loc[planes[0]] == sp("malta") and s.malta_depot and s.vp == [0, 1]


def test_minor_country_force_counts_are_labelled_reconstructed() -> None:
    """ "6 Minor Country Force counters"; "Each space in a minor country has one or more
    Minor Country Force counters"; Crete's "contains no defending forces". Five infantry
    counters over Yugoslavia, Bulgaria, Athens and Iraq: which space holds two is not stated,
    so every one of the four counts is a reconstruction, not only Yugoslavia's."""
    spaces = {r.id: r for r in tables().records["spaces"] if isinstance(r, content.SpaceRecord)}
    infantry = ("yugoslavia", "bulgaria", "athens", "iraq")
    assert sum(spaces[x].mcf for x in infantry) == 5 and spaces["crete"].mcf == 0
    assert all("mcf" in spaces[x].reconstructed_fields for x in infantry)
    assert content.reconstructed_fields_table() in DOCS.read_text(encoding="utf-8")


def test_french_foreign_legion_exchanges_only_the_french_piece() -> None:
    """French Foreign Legion (France, "— Exchange"): "The defending piece you remove as the
    result of the attack must belong to the same faction as the card you used", and "Only
    French reactions may be used on behalf of the French piece": in Tobruk with a UK and the
    French infantry, the Exchange may remove the French piece only."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "benghazi")
    put(s, "Pact", "tank", "benghazi")
    s.control[sp("tobruk")] = ALLIES
    french = put(s, "France", "infantry", "tobruk")
    uk = put(s, "UK", "infantry", "tobruk")
    hand(s, AXIS, 55, 56)
    hand(s, ALLIES, 22)
    s = desperate_attack(s, (55, 56), PACT, "benghazi", "tobruk")
    assert sorted(ids(s)) == sorted([f"rm{french}", f"rm{uk}", f"ex22-{french}"])
    s = act(s, f"ex22-{french}")
    assert kind_of(s) == "c_exch" and s.loc[french] == OFF


def test_battle_of_gondar_sustains_a_uk_attack_only() -> None:
    """Battle of Gondar (United Kingdom, "— Sustain Attack"): "This card must belong to the
    same faction as the attacking force": a UK force may continue with it, a USA force may
    not."""
    for faction, attacker in ((UK, "UK"), (USA, "USA")):
        s = blank(phase="action", active=ALLIES, round_=8)
        put(s, attacker, "infantry", "el_alamein")
        put(s, attacker, "tank", "el_alamein")
        put(s, "Pact", "infantry", "tobruk")
        put(s, "Pact", "infantry", "tobruk")
        hand(s, ALLIES, 21, 24, 7)
        s = desperate_attack(s, (21, 24), faction, "el_alamein", "tobruk")
        s = act(s, ids(s)[0])
        assert kind_of(s) == "c_cont" and ("sa7" in ids(s)) == (faction == UK)
