"""The game catalogue over CatalogService, cached by content version (memory and, optionally, disk).

    catalogs = CatalogClient.for_client(client, cache_dir=Path("~/.cache/warroom").expanduser())
    catalog = await catalogs.for_view(view)   # the catalogue of a SeatView's game
    names = {card.id: card.name for card in catalog.cards}

A catalogue is fetched once per `(rules_id, content_version)`: `for_view` trusts a copy
whose version equals the view's `content_version` without calling the server; `get` without
a version revalidates with `if_none_match` (the server answers `not_modified`, no payload).
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from grpc import aio

from warroom.sdk.client import Client, RetryPolicy, _call, game_kind_of, game_name_of
from warroom.v1 import catalog_pb2, catalog_pb2_grpc, game_pb2

_SAFE = re.compile(r"^[A-Za-z0-9_.-]+$")


class CatalogClient:
    """CatalogService with a cache: one catalogue per game, refreshed when its version changes."""

    def __init__(
        self,
        channel: aio.Channel,
        *,
        deadline: float = 10.0,
        retry: RetryPolicy | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self.deadline = deadline
        self.retry = retry or RetryPolicy()
        self.cache_dir = cache_dir
        self.fetches = 0
        """GetCatalog answers that carried a catalogue (not counting `not_modified`)."""
        self._stub = catalog_pb2_grpc.CatalogServiceStub(channel)
        self._cache: dict[str, catalog_pb2.Catalog] = {}

    @classmethod
    def for_client(cls, client: Client, *, cache_dir: Path | None = None) -> CatalogClient:
        """A catalogue client on a `Client`'s lobby connection (CatalogService shares its port)."""
        return cls(
            client.lobby_channel(),
            deadline=client.deadline,
            retry=client.retry,
            cache_dir=cache_dir,
        )

    async def game_kinds(self) -> list[catalog_pb2.GameKindSummary]:
        """Every hosted game: title, variants, players and content version."""
        response = await _call(
            "ListGameKinds",
            lambda: self._stub.ListGameKinds(
                catalog_pb2.ListGameKindsRequest(), timeout=self.deadline
            ),
            self.retry,
        )
        return list(response.games)

    def cached(self, rules_id: str, version: str = "") -> catalog_pb2.Catalog | None:
        """The cached catalogue of a game (of that version, when given), from memory or disk."""
        found = self._cache.get(rules_id)
        if found is not None and (not version or found.content_version == version):
            return found
        if version:
            loaded = self._read(rules_id, version)
            if loaded is not None:
                self._cache[rules_id] = loaded
                return loaded
        return None

    async def get(self, game: str | int, *, version: str = "") -> catalog_pb2.Catalog:
        """A game's catalogue ("ncw", a GameKind, or a rules id); `version` = the one wanted."""
        request = self._request(game)
        key = request.rules_id or game_name_of(request.game)
        have = self.cached(key, version)
        if have is not None and version:
            return have
        request.if_none_match = have.content_version if have is not None else ""
        response = await _call(
            "GetCatalog", lambda: self._stub.GetCatalog(request, timeout=self.deadline), self.retry
        )
        if response.not_modified and have is not None:
            return have
        catalog = response.catalog
        self.fetches += 1
        self._cache[catalog.rules_id] = catalog
        self._write(catalog)
        return catalog

    async def for_view(self, view: game_pb2.SeatView) -> catalog_pb2.Catalog:
        """The catalogue of a view's game, at the view's content version."""
        game: str | int = view.rules_id or int(view.game)
        return await self.get(game, version=view.content_version)

    @staticmethod
    def _request(game: str | int) -> catalog_pb2.GetCatalogRequest:
        try:
            kind = game_kind_of(game)
        except ValueError:
            return catalog_pb2.GetCatalogRequest(rules_id=str(game))
        return catalog_pb2.GetCatalogRequest(game=kind)  # type: ignore[arg-type]

    def _path(self, rules_id: str, version: str) -> Path | None:
        if self.cache_dir is None or not (_SAFE.match(rules_id) and _SAFE.match(version)):
            return None
        return self.cache_dir / f"catalog-{rules_id}-{version}.binpb"

    def _read(self, rules_id: str, version: str) -> catalog_pb2.Catalog | None:
        path = self._path(rules_id, version)
        if path is None or not path.is_file():
            return None
        catalog = catalog_pb2.Catalog()
        try:
            catalog.ParseFromString(path.read_bytes())
        except Exception:  # a damaged cache file: fetch again
            return None
        return catalog if catalog.content_version == version else None

    def _write(self, catalog: catalog_pb2.Catalog) -> None:
        path = self._path(catalog.rules_id, catalog.content_version)
        if path is None:
            return
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".tmp")
            partial.write_bytes(catalog.SerializeToString())
            partial.replace(path)
