"""docs/rulings.md "QMG: South Front": each ruling holds in the data and the rules."""

from __future__ import annotations

from warroom.games.qmg_sf import supply
from warroom.games.qmg_sf.content import FACTIONS, tables
from warroom.games.qmg_sf.state import GERMANY, PACT
from warroom.games.qmg_sf.tests.helpers import RULES, act, blank, kind_of, put, sp


def test_ruling_1_usa_pieces_follow_the_table() -> None:
    """The USA has 11 pieces (2 infantry, 2 tanks, 3 airplanes, 3 fleets, 1 carrier)."""
    t = tables()
    usa = [
        k for f, k in zip(t.piece_faction, t.piece_kind, strict=True) if f == FACTIONS.index("USA")
    ]
    assert len(usa) == 11


def test_ruling_2_allies_choose_five_first_game_cards() -> None:
    """The Allies leave one of their six First Game cards in the deck."""
    s = RULES.setup(1, "first_game", {})
    assert kind_of(s) == "fg_leave" and len(s.hands[1]) == 6
    s = act(s, "k6")
    assert sorted(s.hands[1]) == [1, 2, 3, 4, 5] and 6 in s.decks[1]


def test_ruling_3_anzac_stands_fast() -> None:
    """ANZAC Reinforcements has the Stand Fast reaction (as in the Example of Play)."""
    assert tables().cards[4].reaction == "stand_fast"


def test_ruling_4_rome_flag_serves_both_axis_factions() -> None:
    """One Supply Flag in Rome for Germany and the Pact."""
    s = blank()
    assert sp("rome") in supply.flag_spaces(s, GERMANY)
    assert sp("rome") in supply.flag_spaces(s, PACT)


def test_ruling_5_greco_italian_war_is_the_only_pact_sustain_attack() -> None:
    """Deck-wide: the Pact has exactly one Sustain Attack card."""
    pact = [
        c for c in tables().cards.values() if c.faction == PACT and c.reaction == "sustain_attack"
    ]
    assert [c.name for c in pact] == ["Greco-Italian War"]


def test_ruling_7_germans_trace_to_bulgaria_once_placed() -> None:
    """The Bulgaria Supply Flags marker serves both Axis factions once placed."""
    s = blank()
    assert sp("bulgaria") not in supply.flag_spaces(s, GERMANY)
    s.bulgaria_flag = True
    assert sp("bulgaria") in supply.flag_spaces(s, GERMANY)
    assert sp("bulgaria") in supply.flag_spaces(s, PACT)


def test_ruling_8_egypt_not_adjacent_to_palestine_jordan() -> None:
    """Sinai: Egypt and Palestine-Jordan are not adjacent (Supply Example)."""
    assert sp("palestine_jordan") not in tables().adj[sp("egypt")]


def test_ruling_14_transported_pieces_interdict_like_any_piece() -> None:
    """An infantry aboard a fleet interdicts an adjacent unoccupied land space ("Infantry,
    tanks, and airplanes interdict supply in adjacent, unoccupied land spaces"; amended in
    session 19, test_audit_s19): Palestine-Jordan is closed, Arabia (beside Red Sea, not
    beside the fleet) stays supplied."""
    s = blank()
    fleet = put(s, "Pact", "fleet", "levantine")
    put(s, "Pact", "infantry", "levantine", on=fleet)
    uk = put(s, "UK", "infantry", "arabia")
    assert supply.is_supplied(s, uk)
    assert not supply.passable(s, 1)[sp("palestine_jordan")]
