"""Content packs: game data (maps, cards, tables) in YAML files, validated at load.

Every record carries `provenance`: `rulebook` when the rulebook states it, or
`reconstructed` when it fills a gap the rulebook leaves. A bad file fails with a
`ContentError` naming the file, the record and the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from warroom.engine.errors import ContentError


class Provenance(StrEnum):
    """Where a content record comes from."""

    RULEBOOK = "rulebook"
    RECONSTRUCTED = "reconstructed"


class Record(BaseModel):
    """Base of every content record: an id, its provenance, and the source it rests on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provenance: Provenance
    source: str = ""


R = TypeVar("R", bound=Record)


def read_yaml(path: Path) -> Any:
    """Parse one YAML file; raises ContentError on a syntax error or a missing file."""
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except FileNotFoundError as exc:
        raise ContentError(str(path), None, None, "file not found") from exc
    except yaml.YAMLError as exc:
        raise ContentError(str(path), None, None, f"not valid YAML: {exc}") from exc


def load_records(path: Path, model: type[R], key: str = "id") -> list[R]:
    """Load a YAML list of records, validating each against `model`.

    The file holds either a list of mappings or a mapping with a `records` list.
    Record ids (the `key` field) must be unique.
    """
    data = read_yaml(path)
    if isinstance(data, dict) and "records" in data:
        data = data["records"]
    if not isinstance(data, list):
        raise ContentError(str(path), None, None, "expected a list of records")
    records: list[R] = []
    seen: set[Any] = set()
    for index, raw in enumerate(data):
        label = _record_label(raw, key, index)
        if not isinstance(raw, dict):
            raise ContentError(str(path), label, None, "a record must be a mapping")
        try:
            record = model.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"]) or None
            raise ContentError(str(path), label, field, error["msg"]) from exc
        record_key = getattr(record, key, index)
        if record_key in seen:
            raise ContentError(str(path), label, key, f"duplicate {key} {record_key!r}")
        seen.add(record_key)
        records.append(record)
    return records


def load_document(path: Path, model: type[R]) -> R:
    """Load a YAML file holding one record (a mapping) validated against `model`."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ContentError(str(path), None, None, "expected a mapping")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        raise ContentError(str(path), None, field, error["msg"]) from exc


def require(
    condition: bool, path: Path, record: str | None, field: str | None, problem: str
) -> None:
    """Raise a ContentError unless `condition` holds (for cross-record checks)."""
    if not condition:
        raise ContentError(str(path), record, field, problem)


def provenance_counts(records: Sequence[Record]) -> dict[str, int]:
    """How many records come from each provenance."""
    counts = {p.value: 0 for p in Provenance}
    for record in records:
        counts[record.provenance.value] += 1
    return counts


def _record_label(raw: Any, key: str, index: int) -> str:
    if isinstance(raw, dict) and key in raw:
        return f"#{index} ({key}={raw[key]!r})"
    return f"#{index}"
