"""The gateway's own answers: health, readiness, the built app with its cache headers."""

from __future__ import annotations

import asyncio
import gzip
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from services.web.server import start_gateway
from services.web.settings import WebSettings
from services.web.tests.conftest import Stack


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def _get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> Reply:
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Reply(
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                response.read(),
            )
    except urllib.error.HTTPError as error:
        return Reply(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())


async def get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> Reply:
    return await asyncio.to_thread(_get, url, headers, method)


async def test_health_and_readiness(stack: Stack) -> None:
    live = await get(f"{stack.url}/healthz")
    assert live.status == 200 and json.loads(live.body)["status"] == "SERVING"
    ready = await get(f"{stack.url}/readyz")
    body = json.loads(ready.body)
    assert ready.status == 200, body
    assert body["upstreams"]["warroom.v1.GameService"] == "SERVING"
    assert body["upstreams"]["warroom.v1.LobbyService"] == "SERVING"
    await stack.bots.stop(0)
    down = await get(f"{stack.url}/readyz")
    assert down.status == 503
    assert json.loads(down.body)["upstreams"]["warroom.v1.BotService"] == "UNREACHABLE"


async def test_index_is_revalidated_and_assets_are_immutable(stack: Stack, dist: Path) -> None:
    index = await get(f"{stack.url}/")
    assert index.status == 200
    assert index.headers["cache-control"] == "no-cache"
    assert index.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in index.headers["content-security-policy"]
    assert index.body == (dist / "index.html").read_bytes()
    again = await get(f"{stack.url}/", {"if-none-match": index.headers["etag"]})
    assert again.status == 304 and again.body == b""
    asset = await get(f"{stack.url}/assets/app-3f2a1b.js", {"accept-encoding": "gzip"})
    assert asset.status == 200
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert asset.headers["content-encoding"] == "gzip"
    assert asset.headers["content-type"].startswith("text/javascript") or asset.headers[
        "content-type"
    ].startswith("application/javascript")
    assert gzip.decompress(asset.body) == (dist / "assets" / "app-3f2a1b.js").read_bytes()
    plain = await get(f"{stack.url}/assets/app-3f2a1b.js")
    assert "content-encoding" not in plain.headers
    assert plain.body == (dist / "assets" / "app-3f2a1b.js").read_bytes()
    head = await get(f"{stack.url}/favicon.svg", method="HEAD")
    assert head.status == 200 and head.body == b""


async def test_fallback_missing_and_traversal(stack: Stack, dist: Path) -> None:
    route = await get(f"{stack.url}/lobby")
    assert route.status == 200 and route.body == (dist / "index.html").read_bytes()
    assert (await get(f"{stack.url}/assets/gone-123.js")).status == 404
    assert (await get(f"{stack.url}/missing.png")).status == 404
    assert (await get(f"{stack.url}/..%2f..%2fetc%2fpasswd")).status == 404
    assert (await get(f"{stack.url}/", method="DELETE")).status == 405
    # An API path of no forwarded service is not a file either.
    unknown = await get(f"{stack.url}/warroom.v1.GameService/NoSuchMethod", method="POST")
    assert unknown.status == 404


async def test_changed_file_is_served_fresh(stack: Stack, dist: Path) -> None:
    first = await get(f"{stack.url}/")
    (dist / "index.html").write_text("<!doctype html><p>rebuilt</p>")
    second = await get(f"{stack.url}/")
    assert b"rebuilt" in second.body and second.headers["etag"] != first.headers["etag"]


async def test_not_built_explains(web_settings: WebSettings, tmp_path: Path) -> None:
    settings = web_settings.model_copy(update={"web_dist_dir": tmp_path / "nothing"})
    running = await start_gateway(settings, port=0, metrics_port=0)
    try:
        reply = await get(f"{running.url}/")
        assert reply.status == 503 and b"make web" in reply.body
        assert running.metrics_port
        metrics = await get(f"http://127.0.0.1:{running.metrics_port}/metrics")
        assert b"warroom_web_static_responses_total" in metrics.body
    finally:
        await running.stop()
