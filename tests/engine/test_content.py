"""Content packs: validation errors name the file, the record and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from warroom.engine.content import Provenance, Record, load_records, provenance_counts
from warroom.engine.errors import ContentError


class Country(Record):
    id: str
    stability: int


def test_valid_records_load_with_provenance(tmp_path: Path) -> None:
    path = tmp_path / "countries.yaml"
    path.write_text(
        "- {id: Libya, stability: 2, provenance: rulebook, source: '4.3.2.1'}\n"
        "- {id: Chad, stability: 1, provenance: reconstructed}\n"
    )
    records = load_records(path, Country)
    assert [r.id for r in records] == ["Libya", "Chad"]
    assert records[1].provenance is Provenance.RECONSTRUCTED
    assert provenance_counts(records) == {"rulebook": 1, "reconstructed": 1}


@pytest.mark.parametrize(
    ("text", "record", "field"),
    [
        ("- {id: Libya, stability: two, provenance: rulebook}\n", "id='Libya'", "stability"),
        ("- {id: Libya, stability: 2}\n", "id='Libya'", "provenance"),
        ("- {id: Libya, stability: 2, provenance: guessed}\n", "id='Libya'", "provenance"),
        (
            "- {id: Libya, stability: 2, provenance: rulebook, colour: red}\n",
            "id='Libya'",
            "colour",
        ),
        (
            "- {id: Libya, stability: 2, provenance: rulebook}\n"
            "- {id: Libya, stability: 1, provenance: rulebook}\n",
            "#1",
            "id",
        ),
    ],
)
def test_bad_records_name_file_record_and_field(
    tmp_path: Path, text: str, record: str, field: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ContentError) as info:
        load_records(path, Country)
    message = str(info.value)
    assert str(path) in message
    assert record in message
    assert repr(field) in message


def test_broken_yaml_and_missing_file_are_content_errors(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("- {id: [unclosed\n")
    with pytest.raises(ContentError, match="not valid YAML"):
        load_records(path, Country)
    with pytest.raises(ContentError, match="file not found"):
        load_records(tmp_path / "absent.yaml", Country)
