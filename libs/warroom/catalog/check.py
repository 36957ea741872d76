"""Resolve every id a game's typed view carries through that game's catalogue.

`references(rules_id, view)` lists each id with the catalogue table it must be found in;
`unresolved(catalog, view)` returns those it cannot find (empty for a sound catalogue).
Clients do the same lookups to draw a view; the tests run this over played games.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf.message import Message

from warroom.v1 import catalog_pb2 as pb

Ref = tuple[str, str, Any]
"""(view field, catalogue table, value): tables are card, objective, space, space_index,
side_index, piece, piece_code, token_code, region_index."""


def _many(field: str, table: str, values: Any) -> Iterator[Ref]:
    for value in values:
        yield field, table, value


def _ncw(view: Any) -> Iterator[Ref]:
    for name in ("hand", "discard", "leftover", "removed"):
        yield from _many(name, "card", getattr(view, name))
    for name in ("objectives", "objective_offer", "objectives_out"):
        yield from _many(name, "objective", getattr(view, name))
    if view.own_exchange > 0:
        yield "own_exchange", "card", view.own_exchange
    for placement in view.placements:
        yield "placements[].power", "side", placement.power
        if placement.visible and placement.play.present:
            yield "placements[].play.card", "card", placement.play.card
    for country in view.countries:
        yield "countries[].id", "space", country.id
        if country.control >= 0:
            yield "countries[].control", "side_index:power", country.control
    for power in view.powers:
        yield "powers[].power", "side", power.power
        yield from _many("powers[].declared", "objective", power.declared)
    for claimed in view.subregion_claimed:
        if claimed >= 0:
            yield "subregion_claimed", "side_index:power", claimed
    yield "subregion_claimed#", "region_count:subregion", len(view.subregion_claimed)


def _qmg_cw(view: Any) -> Iterator[Ref]:
    for seat in view.seats:
        for name in ("hand", "discard_up", "discard_down", "prepared", "espionage", "opening"):
            yield from _many(f"seats[].{name}", "card", getattr(seat, name))
        yield from _many("seats[].deck", "card", seat.deck)
        yield "seats[].bloc", "side_index:bloc", seat.bloc
        if seat.colour >= 0:
            yield "seats[].colour", "side_index:deck", seat.colour
    yield from _many("pieces", "piece_code", view.pieces)
    yield from _many("organic", "piece_code", view.organic)
    yield from _many("tokens", "token_code", view.tokens)
    if view.last_space >= 0:
        yield "last_space", "space_index", view.last_space


def _qmg_sf(view: Any) -> Iterator[Ref]:
    yield from _many("hand", "card", view.hand)
    yield from _many("own_discards", "card", view.own_discards)
    for revealed in view.revealed:
        yield from _many("revealed[].values", "card", revealed.values)
    for cont in view.contingency:
        yield "contingency[].card", "card", cont.card
    public = view.public
    yield from _many("public.contingency", "card", public.contingency.keys())
    yield "public.loc#", "piece_count", len(public.loc)
    for loc in public.loc:
        if loc >= 0:
            yield "public.loc", "space_index", loc
    for carrier in public.on:
        if carrier >= 0:
            yield "public.on", "piece", carrier
    yield "public.control#", "space_count", len(public.control)
    yield "public.minor#", "region_count:minor_country", len(public.minor)
    yield "public.active", "side_index:side", public.active


EXTRACTORS: dict[str, Callable[[Any], Iterator[Ref]]] = {
    "ncw": _ncw,
    "qmg_cw": _qmg_cw,
    "qmg_sf": _qmg_sf,
}


def references(rules_id: str, view: Message) -> list[Ref]:
    """Every id the typed view of a game carries, with the table that must hold it."""
    return list(EXTRACTORS[rules_id](view))


def _tables(catalog: pb.Catalog) -> dict[str, set[Any]]:
    spaces = catalog.map.spaces
    tables: dict[str, set[Any]] = {
        "card": {c.id for c in catalog.cards},
        "objective": {o.id for o in catalog.objectives},
        "space": {s.id for s in spaces},
        "space_index": {s.index for s in spaces},
        "side": {s.id for s in catalog.sides},
        "piece": {i for p in catalog.piece_types for i in p.piece_ids},
        "space_count": {len(spaces)},
        "piece_count": {sum(len(p.piece_ids) for p in catalog.piece_types)},
    }
    for kind in {s.kind for s in catalog.sides}:
        tables[f"side_index:{kind}"] = {s.index for s in catalog.sides if s.kind == kind}
    for kind in {r.kind for r in catalog.map.regions}:
        tables[f"region_count:{kind}"] = {sum(1 for r in catalog.map.regions if r.kind == kind)}
    units = [p for p in catalog.piece_types if p.kind != "supply_token"]
    tables["piece_code"] = {s.index * 32 + p.code for s in spaces for p in units}
    tokens = [p for p in catalog.piece_types if p.kind == "supply_token"]
    tables["token_code"] = {s.index * 8 + p.code for s in spaces for p in tokens}
    return tables


def unresolved(catalog: pb.Catalog, view: Message) -> list[Ref]:
    """The references of a view that the catalogue does not hold."""
    tables = _tables(catalog)
    return [
        ref for ref in references(catalog.rules_id, view) if ref[2] not in tables.get(ref[1], set())
    ]
