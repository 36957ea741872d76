"""Rulebook audit (session 19): combat edges, reaction windows and who may use them."""

from __future__ import annotations

from warroom.games.qmg_sf.state import ALLIES, AXIS, PACT
from warroom.games.qmg_sf.tests.helpers import (
    act,
    blank,
    desperate_attack,
    hand,
    ids,
    kind_of,
    put,
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
