"""Card audit (session 19): each card's printed text, clause by clause, against the engine.

Tests named for a fix failed before it; the others pin clauses the engine already had right.
"""

from __future__ import annotations

from pathlib import Path

from warroom.games.qmg_sf import content
from warroom.games.qmg_sf.content import ContingencyRecord, tables

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
