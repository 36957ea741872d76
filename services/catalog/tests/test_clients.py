"""The SDK's cached catalogue fetch and the CLI's use of it, against a real CatalogService."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from services.catalog.service import SERVICE_NAME, register
from services.common.server import RunningServer, start_server
from services.common.settings import Settings
from warroom import catalog
from warroom.cli.main import view_catalog
from warroom.sdk import CatalogClient, Client, WarroomError
from warroom.v1 import game_pb2


async def _server(with_catalog: bool = True) -> RunningServer:
    return await start_server(
        Settings(),
        port=0,
        service_names=[SERVICE_NAME] if with_catalog else [],
        register=[register()] if with_catalog else [],
        host="127.0.0.1",
    )


async def test_sdk_caches_by_version_in_memory_and_on_disk(tmp_path: Path) -> None:
    running = await _server()
    client = Client(f"127.0.0.1:{running.port}")
    catalogs = CatalogClient.for_client(client, cache_dir=tmp_path)
    try:
        kinds = await catalogs.game_kinds()
        assert {k.rules_id for k in kinds} == {"ncw", "qmg_cw", "qmg_sf"}
        got = await catalogs.get("qmg_sf")
        assert got == catalog.catalog("qmg_sf") and catalogs.fetches == 1
        version = got.content_version
        assert (await catalogs.get("qmg-sf")).content_version == version  # revalidated
        assert catalogs.fetches == 1, "a current copy is answered not_modified"
        view = game_pb2.SeatView(rules_id="qmg_sf", content_version=version)
        assert await catalogs.for_view(view) is got
        assert await asyncio.to_thread(lambda: list(tmp_path.glob("catalog-qmg_sf-*.binpb")))
        other = game_pb2.SeatView(rules_id="qmg_sf", content_version="0" * 16)
        assert (await catalogs.for_view(other)).content_version == version
        assert catalogs.fetches == 2, "another version is fetched again"
    finally:
        await client.close()
        await running.stop(0)
    # the server is gone: a fresh client answers a known version from the disk cache
    offline = Client("127.0.0.1:1")
    cold = CatalogClient.for_client(offline, cache_dir=tmp_path)
    try:
        assert (await cold.for_view(view)).content_version == version
        assert cold.fetches == 0
        with pytest.raises(WarroomError):
            await cold.get("ncw", version="f" * 16)
    finally:
        await offline.close()


async def test_cli_falls_back_to_ids_without_a_catalogue(tmp_path: Path) -> None:
    running = await _server(with_catalog=False)
    client = Client(f"127.0.0.1:{running.port}")
    try:
        view = game_pb2.SeatView(rules_id="ncw", content_version="abc")
        assert await view_catalog(CatalogClient.for_client(client), view) is None
    finally:
        await client.close()
        await running.stop(0)


async def test_cli_fetches_the_views_catalogue(tmp_path: Path) -> None:
    running = await _server()
    client = Client(f"127.0.0.1:{running.port}")
    try:
        version = catalog.content_version("qmg_cw")
        view = game_pb2.SeatView(rules_id="qmg_cw", content_version=version)
        found = await view_catalog(CatalogClient.for_client(client, cache_dir=tmp_path), view)
        assert found is not None and found.content_version == version
    finally:
        await client.close()
        await running.stop(0)
