"""Shared catalogue builders: provenance, variants, bot kinds, layout files and the version hash."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from warroom.bots.registry import KINDS, UnknownBotError, default_difficulty
from warroom.engine.content import Provenance, Record, read_yaml, require
from warroom.engine.registry import get_rules
from warroom.matchmaking import layouts_for
from warroom.v1 import catalog_pb2 as pb

LAYOUT_FILE = "layout.yaml"


def provenance(record: Record) -> pb.Provenance:
    """The Provenance message of a content record."""
    fields = getattr(record, "reconstructed_fields", ()) or ()
    return pb.Provenance(
        provenance=record.provenance.value, source=record.source, reconstructed_fields=list(fields)
    )


def raw_provenance(raw: dict[str, Any]) -> pb.Provenance:
    """The Provenance message of a raw YAML record (loaders that keep only some fields)."""
    fields = raw.get("reconstructed_fields") or ()
    return pb.Provenance(
        provenance=str(raw.get("provenance", Provenance.RECONSTRUCTED.value)),
        source=str(raw.get("source", "")),
        reconstructed_fields=[str(f) for f in fields],
    )


def view_fields(rows: Iterable[tuple[str, str, str]]) -> list[pb.ViewField]:
    """ViewField messages from (field, refers_to, encoding) rows."""
    return [pb.ViewField(field=f, refers_to=r, encoding=e) for f, r, e in rows]


def variants(rules_id: str) -> list[pb.Variant]:
    """Every variant of a game, the default first, with its seat layout and options."""
    rules = get_rules(rules_id)
    layouts = layouts_for(rules_id)
    out: list[pb.Variant] = []
    for number, info in enumerate(rules.variants()):
        layout = layouts[info.id]
        seats = [
            pb.SeatLayout(index=s.index, side=s.side, team=s.team, automated=s.automated)
            for s in layout.seats
        ]
        out.append(
            pb.Variant(
                id=info.id,
                title=info.description,
                seat_count=info.seats,
                player_count=sum(1 for s in seats if not s.automated),
                seats=seats,
                options=[
                    pb.VariantOption(name=name, values=list(values))
                    for name, values in sorted(info.options.items())
                ],
                is_default=number == 0,
            )
        )
    return out


def bot_kinds(rules_id: str) -> list[pb.CatalogBotKind]:
    """The bot kinds of the registry that can play this game."""
    out: list[pb.CatalogBotKind] = []
    for kind, info in KINDS.items():
        try:
            games = info.games()
        except UnknownBotError:
            games = []
        if rules_id not in games:
            continue
        out.append(
            pb.CatalogBotKind(
                kind=kind,
                description=info.description,
                difficulties=list(info.difficulties),
                default_difficulty=default_difficulty(kind),
            )
        )
    return out


class _Point(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    x: float
    y: float


class LayoutDoc(Record):
    """A board layout file: the drawing's size and one point per space."""

    width: float
    height: float
    spaces: dict[str, _Point]


def load_layout(content_dir: Path, space_ids: Iterable[str]) -> LayoutDoc:
    """Read `layout.yaml` beside a map; every space needs a point inside the drawing, no other."""
    path = content_dir / LAYOUT_FILE
    doc = LayoutDoc.model_validate(read_yaml(path))
    ids = list(space_ids)
    missing = [sid for sid in ids if sid not in doc.spaces]
    require(not missing, path, None, "spaces", f"no coordinates for {missing}")
    extra = sorted(set(doc.spaces) - set(ids))
    require(not extra, path, None, "spaces", f"unknown spaces {extra}")
    for sid, point in doc.spaces.items():
        inside = 0 <= point.x <= doc.width and 0 <= point.y <= doc.height
        require(inside, path, sid, "spaces", "point outside the drawing")
    return doc


def apply_layout(game_map: pb.GameMap, doc: LayoutDoc) -> None:
    """Set each space's point and the map's size and layout provenance."""
    for space in game_map.spaces:
        point = doc.spaces[space.id]
        space.layout.x, space.layout.y = point.x, point.y
    game_map.width, game_map.height = doc.width, doc.height
    game_map.layout_provenance.CopyFrom(provenance(doc))


def files_digest(content_dir: Path) -> bytes:
    """A digest of every file in a content folder (name and bytes, in name order)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in content_dir.rglob("*") if p.is_file()):
        digest.update(path.relative_to(content_dir).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.digest()


def content_version(catalog: pb.Catalog, content_digest: bytes) -> str:
    """The stable hash of a catalogue (its deterministic bytes, version unset) and its content files."""
    unversioned = pb.Catalog()
    unversioned.CopyFrom(catalog)
    unversioned.content_version = ""
    digest = hashlib.sha256(content_digest)
    digest.update(unversioned.SerializeToString(deterministic=True))
    return digest.hexdigest()[:16]
