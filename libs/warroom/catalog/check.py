"""Resolve every id a game's typed view carries through that game's catalogue.

Driven by the catalogue's own `view_fields` (see catalog.proto, ViewField), so the same
walk works for any title and in any language: `references(catalog, view)` lists each
value with what it must name; `unresolved(catalog, view)` returns those the catalogue
does not hold (empty for a sound catalogue). The tests run it over played games.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from warroom.v1 import catalog_pb2 as pb

Ref = tuple[str, str, Any]
"""(view field, ViewField.refers_to, value)."""


def walk(data: Any, path: str) -> Iterator[Any]:
    """The values at a ViewField path of a view as plain data (map fields give their keys)."""
    head, _, rest = path.partition(".")
    many = head.endswith("[]")
    node = data.get(head.removesuffix("[]")) if isinstance(data, dict) else None
    if node is None:
        return
    items = node if many and isinstance(node, list) else [node]
    for item in items:
        if rest:
            yield from walk(item, rest)
        elif isinstance(item, list | dict):
            yield from item  # a map field gives its keys
        else:
            yield item


def _plain(view: Message) -> dict[str, Any]:
    data: dict[str, Any] = json_format.MessageToDict(
        view, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return data


def references(catalog: pb.Catalog, view: Message) -> list[Ref]:
    """Every value the view's id-carrying fields hold (length facets: the list's length)."""
    data = _plain(view)
    out: list[Ref] = []
    for vf in catalog.view_fields:
        if vf.refers_to.startswith("per_"):
            node: Any = data
            for name in vf.field.split("."):
                node = node.get(name) if isinstance(node, dict) else None
            out.append((vf.field, vf.refers_to, len(node) if isinstance(node, list) else -1))
            continue
        out.extend((vf.field, vf.refers_to, v) for v in walk(data, vf.field))
    return out


def tables(catalog: pb.Catalog) -> dict[str, set[Any]]:
    """What each `refers_to` may name in this catalogue."""
    spaces = catalog.map.spaces
    pieces = {i for p in catalog.piece_types for i in p.piece_ids}
    out: dict[str, set[Any]] = {
        "card": {c.id for c in catalog.cards},
        "objective": {o.id for o in catalog.objectives},
        "space": {s.id for s in spaces},
        "space_index": {s.index for s in spaces},
        "side": {s.id for s in catalog.sides},
        "piece": pieces,
        "per_space": {len(spaces)},
        "per_piece": {len(pieces)},
    }
    for kind in {s.kind for s in catalog.sides}:
        indexes = {s.index for s in catalog.sides if s.kind == kind}
        out[f"side_index:{kind}"] = indexes
        out[f"per_side:{kind}"] = {len(indexes)}
    for kind in {r.kind for r in catalog.map.regions}:
        count = sum(1 for r in catalog.map.regions if r.kind == kind)
        out[f"per_region:{kind}"] = {count}
        out[f"region_mask:{kind}"] = set(range(1 << count))
    units = [p.code for p in catalog.piece_types if p.kind != "supply_token"]
    tokens = [p.code for p in catalog.piece_types if p.kind == "supply_token"]
    out["piece_code"] = {s.index * 32 + code for s in spaces for code in units}
    out["token_code"] = {s.index * 8 + code for s in spaces for code in tokens}
    return out


def _none(refers_to: str, value: Any, known: set[Any]) -> bool:
    """A value meaning "none": negative, or 0 for a card of a game without card 0."""
    if refers_to.startswith("per_") or not isinstance(value, int | str):
        return False
    number = int(value) if isinstance(value, int) or value.lstrip("-").isdigit() else None
    if number is None:
        return False
    return number < 0 or (number == 0 and refers_to == "card" and 0 not in known)


def unresolved(catalog: pb.Catalog, view: Message) -> list[Ref]:
    """The references of a view that the catalogue does not hold."""
    known = tables(catalog)
    missing: list[Ref] = []
    for field, refers_to, value in references(catalog, view):
        table = known.get(refers_to, set())
        if refers_to not in ("space", "side") and isinstance(value, str) and value.isdigit():
            value = int(value)  # map keys arrive as strings
        if _none(refers_to, value, known["card"]):
            continue
        if value not in table:
            missing.append((field, refers_to, value))
    return missing
