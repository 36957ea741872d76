"""Content: counts match the rulebook, the map facts stated in the rulebook hold, every card
resolves, and docs/content.md shows the current provenance tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from warroom.engine.errors import ContentError
from warroom.games.qmg_sf import content, effects
from warroom.games.qmg_sf.content import FACTIONS, tables
from warroom.games.qmg_sf.state import ALLIES, AXIS, SfState
from warroom.games.qmg_sf.tests.helpers import RULES, act, blank, hand, ids, put, sp

DOCS = Path(__file__).resolve().parents[5] / "docs" / "content.md"


def test_component_counts() -> None:
    """72 cards: Allies 2 France, 21 UK, 15 USA + 3 UK Contingency; Axis 11 Germany, 17 Pact + 3 Pact."""
    t = tables()
    per = dict.fromkeys(FACTIONS, 0)
    for c in t.cards.values():
        if not c.contingency:
            per[FACTIONS[c.faction]] += 1
    assert per == {"France": 2, "UK": 21, "USA": 15, "Germany": 11, "Pact": 17}
    assert [len(x) for x in t.contingency_cards] == [3, 3]
    assert len(t.cards) == 72
    kinds = {f: [0] * 5 for f in FACTIONS}
    for f, k in zip(t.piece_faction, t.piece_kind, strict=True):
        kinds[FACTIONS[f]][k] += 1
    assert kinds["UK"] == [3, 1, 3, 4, 1] and kinds["Pact"] == [4, 1, 3, 3, 1]
    assert kinds["Germany"] == [2, 2, 2, 0, 0] and kinds["France"] == [1, 0, 0, 0, 0]
    assert sum(kinds["USA"]) == 11  # the table, not the component list (rulings)
    assert sum(1 for w in t.water if not w) == 25 and sum(t.water) == 10
    assert sum(t.mcf_start) == 5  # plus Crete's counter without forces: 6 counters


def test_stated_map_facts() -> None:
    """'Sicily and Naples are adjacent land spaces, whereas Gibraltar and Morocco are not.'"""
    t = tables()
    assert sp("naples") in t.adj[sp("sicily")]
    assert sp("morocco") not in t.adj[sp("gibraltar")]
    assert (sp("sicily"), sp("tyrrhenian"), sp("ionian")) in t.straits
    assert all(len(a) > 0 for a in t.adj)


def test_first_game_labels() -> None:
    """Six UK cards and five Axis cards carry the First Game label."""
    t = tables()
    labelled = [c for c in t.cards.values() if c.first_game]
    assert sorted(c.id for c in labelled if c.side == ALLIES) == [1, 2, 3, 4, 5, 6]
    assert sorted(c.id for c in labelled if c.side == AXIS) == [50, 51, 52, 53, 54]


def test_bad_effect_is_rejected(tmp_path: Path) -> None:
    """An unknown effect op fails with a ContentError naming the card."""
    with pytest.raises(ContentError, match="unknown op"):
        content._check_effect(tmp_path / "cards.yaml", 99, ({"op": "teleport"},), {})


def rich_position(side: int) -> SfState:
    """Both Greece and Iraq still neutral, pieces of every faction near the fronts, round 8."""
    s = blank(phase="action", active=side, round_=8)
    for faction, kind, space in (
        ("Pact", "infantry", "tobruk"),
        ("Pact", "tank", "tobruk"),
        ("Pact", "infantry", "albania"),
        ("Pact", "infantry", "rome"),
        ("Pact", "fleet", "tyrrhenian"),
        ("Pact", "fleet", "gulf_of_sidra"),
        ("Pact", "airplane", "sicily"),
        ("Germany", "tank", "tripoli"),
        ("Germany", "airplane", "sicily"),
        ("Germany", "infantry", "benghazi"),
        ("UK", "infantry", "el_alamein"),
        ("UK", "tank", "egypt"),
        ("UK", "airplane", "egypt"),
        ("UK", "fleet", "eastern_med"),
        ("UK", "fleet", "levantine"),
        ("UK", "carrier", "western_med"),
        ("UK", "infantry", "gibraltar"),
        ("UK", "infantry", "palestine_jordan"),
        ("USA", "infantry", "gibraltar"),
        ("USA", "fleet", "south_atlantic"),
        ("USA", "airplane", "gibraltar"),
        ("France", "infantry", "palestine_jordan"),
    ):
        put(s, faction, kind, space)
    s.control[sp("tunisia")] = ALLIES
    s.control[sp("malta")] = ALLIES
    s.decks = [list(tables().deck_cards[0])[:3], list(tables().deck_cards[1])[:3]]
    return s


@pytest.mark.parametrize("card", sorted(tables().cards))
def test_every_card_resolves(card: int) -> None:
    """Each card (Contingency cards: both sides), when playable, resolves to the end."""
    info = tables().cards[card]
    faces = (0, 1) if info.contingency else (0,)
    played = 0
    for face in faces:
        s = rich_position(info.side)
        spare = [c for c in tables().deck_cards[info.side] if c != card][:2]
        for c in spare:
            for lst in s.decks:
                if c in lst:
                    lst.remove(c)
        other = list(tables().deck_cards[1 - info.side])[-2:]
        for c in other:
            for lst in s.decks:
                if c in lst:
                    lst.remove(c)
        hand(s, 1 - info.side, *other)
        if info.contingency:
            hand(s, info.side, *spare)
            s.contingency[card] = face
            option = f"ct{card}"
        else:
            hand(s, info.side, card, *spare)
            option = f"play{card}"
        s.touch()
        if option not in ids(s):
            assert not effects.playable(s, info.side, card, face)
            continue
        s = act(s, option)
        played += 1
        steps = 0
        while s.stack:
            opts = ids(s)
            choice = next(
                (o for o in opts if o not in ("skip", "pass", "stop", "vp", "no", "allow")), opts[0]
            )
            s = act(s, choice)
            steps += 1
            assert steps < 200
        assert [m for m in RULES.invariants(s) if "cards" not in m] == []
    PLAYED[card] = played


PLAYED: dict[int, int] = {}


def test_most_cards_playable_in_the_rich_position() -> None:
    """The every-card test really plays most cards (it runs first)."""
    if len(PLAYED) < len(tables().cards):
        pytest.skip("run together with test_every_card_resolves")
    assert sum(1 for v in PLAYED.values() if v) >= 50


def test_docs_match_data() -> None:
    """docs/content.md shows the current provenance tables."""
    text = DOCS.read_text(encoding="utf-8")
    assert content.provenance_table() in text
    assert content.reconstructed_fields_table() in text
