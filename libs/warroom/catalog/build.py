"""The catalogue of each hosted game, generated once per process from its content files."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from warroom.api.kinds import GAME_IDS, GAME_KINDS
from warroom.catalog import common, ncw, qmg_cw, qmg_sf
from warroom.engine.registry import get_rules
from warroom.v1 import catalog_pb2 as pb
from warroom.v1 import common_pb2


@dataclass(frozen=True, slots=True)
class Source:
    """How to build one game's catalogue: its builder and its content folder."""

    build: Callable[[], pb.Catalog]
    content_dir: Path
    finish: Callable[[pb.Catalog], None] | None = None


SOURCES: dict[str, Source] = {
    "ncw": Source(ncw.build, ncw.CONTENT),
    "qmg_cw": Source(qmg_cw.build, qmg_cw.CONTENT, qmg_cw.seat_decks),
    "qmg_sf": Source(qmg_sf.build, qmg_sf.CONTENT),
}


class UnknownGameError(LookupError):
    """No catalogue for that game (the message names the known ones)."""


def rules_ids() -> list[str]:
    """The games that have a catalogue, in registry order."""
    return sorted(SOURCES)


def resolve(game: int, rules_id: str) -> str:
    """The rules id a request names (rules_id wins over the GameKind); raises UnknownGameError."""
    if rules_id:
        if rules_id not in SOURCES:
            raise UnknownGameError(f"unknown game {rules_id!r} (known: {', '.join(rules_ids())})")
        return rules_id
    found = GAME_IDS.get(game)
    if found is None or found not in SOURCES:
        names = ", ".join(
            common_pb2.GameKind.Name(common_pb2.GameKind.ValueType(k)) for k in sorted(GAME_IDS)
        )
        raise UnknownGameError(f"unknown game kind {game} (known: {names})")
    return found


def generate(rules_id: str) -> pb.Catalog:
    """Build a game's catalogue from its content files (uncached; deterministic)."""
    source = SOURCES.get(rules_id)
    if source is None:
        raise UnknownGameError(f"unknown game {rules_id!r} (known: {', '.join(rules_ids())})")
    catalog = source.build()
    rules = get_rules(rules_id)
    catalog.game = common_pb2.GameKind.ValueType(
        GAME_KINDS.get(rules_id, common_pb2.GAME_KIND_UNSPECIFIED)
    )
    catalog.rules_id = rules_id
    catalog.title = rules.title
    catalog.variants.extend(common.variants(rules_id))
    catalog.bot_kinds.extend(common.bot_kinds(rules_id))
    side_ids = {side.id for side in catalog.sides}
    for variant in catalog.variants:
        for seat in variant.seats:
            seat.side_id = seat.side if seat.side in side_ids else seat.team
    if source.finish is not None:
        source.finish(catalog)
    ids = [space.id for space in catalog.map.spaces]
    common.apply_layout(catalog.map, common.load_layout(source.content_dir, ids))
    catalog.content_version = common.content_version(
        catalog, common.files_digest(source.content_dir)
    )
    return catalog


_BUILT: dict[str, pb.Catalog] = {}
_BUILDING = threading.Lock()


def catalog(rules_id: str) -> pb.Catalog:
    """A game's catalogue, built once per process (do not change the returned message).

    Thread-safe: a caller arriving while another thread builds it waits for that build
    (a service warms every catalogue in a thread at start).
    """
    found = _BUILT.get(rules_id)
    if found is not None:
        return found
    with _BUILDING:
        found = _BUILT.get(rules_id)
        if found is None:
            found = _BUILT[rules_id] = generate(rules_id)
    return found


def warm() -> None:
    """Build every catalogue (run it in a thread at a service's start)."""
    for rules_id in rules_ids():
        catalog(rules_id)


def content_version(rules_id: str) -> str:
    """A game's content version ("" for a game without a catalogue, e.g. a test's toy game)."""
    if rules_id not in SOURCES:
        return ""
    return catalog(rules_id).content_version


def summary(rules_id: str) -> pb.GameKindSummary:
    """A game in short (ListGameKinds)."""
    c = catalog(rules_id)
    counts = [v.player_count for v in c.variants] or [0]
    return pb.GameKindSummary(
        game=c.game,
        rules_id=rules_id,
        title=c.title,
        content_version=c.content_version,
        variant_ids=[v.id for v in c.variants],
        min_players=min(counts),
        max_players=max(counts),
    )
