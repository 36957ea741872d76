"""The game catalogue: everything a client needs to draw a game and resolve its view's ids.

Generated from each game's content files (and the board layout file beside each map),
never written by hand; `content_version` is a stable hash of it. Served by
`services/catalog` as the CatalogService (proto/warroom/v1/catalog.proto).
"""

from warroom.catalog.build import (
    UnknownGameError,
    catalog,
    content_version,
    generate,
    resolve,
    rules_ids,
    summary,
    warm,
)

__all__ = [
    "UnknownGameError",
    "catalog",
    "content_version",
    "generate",
    "resolve",
    "rules_ids",
    "summary",
    "warm",
]
