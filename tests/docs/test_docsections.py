"""Named Markdown sections: each writer replaces only its own."""

from __future__ import annotations

from pathlib import Path

from warroom.docsections import read_section, write_section


def test_sections_are_replaced_added_and_appended_independently(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\nintro\n\n<!-- bench:game -->\nkeep\n<!-- /bench:game -->\n")
    write_section(doc, "bots", "first")
    write_section(doc, "bots", "second")
    assert read_section(doc, "bots") == "second"
    assert read_section(doc, "game") == "keep"
    write_section(doc, "bots", "third", append=True)
    assert read_section(doc, "bots") == "second\n\nthird"
    text = doc.read_text()
    assert text.count("<!-- bench:bots -->") == 1
    assert text.startswith("# Benchmarks\n\nintro\n")
    assert read_section(doc, "lobby") is None
