"""The gateway's ASGI application: API paths, health, and the browser app.

- `/<package>.<Service>/<Method>`: Connect (and gRPC-Web) calls, forwarded upstream;
- `/healthz`: liveness (200 while serving, 503 once shutting down);
- `/readyz`: readiness, 200 when every upstream's gRPC health check says SERVING;
- everything else: the static files of the built app.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from services.common.logging import get_logger
from services.web.forward import DISCONNECTED, ServiceApp, build_apps
from services.web.settings import WebSettings
from services.web.static import StaticFiles
from services.web.upstream import Upstreams

log = get_logger("web")
Scope = dict[str, Any]
Receive = Any
Send = Any


class Gateway:
    """Routes each HTTP request to a forwarded service, a health answer or a static file."""

    def __init__(self, settings: WebSettings, upstreams: Upstreams | None = None) -> None:
        self.settings = settings
        self.upstreams = upstreams or Upstreams(settings)
        self.services: list[ServiceApp] = build_apps(
            self.upstreams, settings.web_rpc_timeout_seconds, settings.grpc_max_receive_bytes
        )
        self._by_prefix = {f"{s.path}/": s for s in self.services}
        self.static = StaticFiles(settings.web_dist_dir)
        self.serving = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry point."""
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind != "http":
            return
        path: str = scope["path"]
        service = self._service_for(path)
        if service is not None:
            await self._forward(service, scope, receive, send)
        elif path == "/healthz":
            await _json(send, 200 if self.serving else 503, {"status": self._liveness()})
        elif path == "/readyz":
            await self._ready(send)
        else:
            await self.static(scope, send)

    def _service_for(self, path: str) -> ServiceApp | None:
        slash = path.find("/", 1)
        if slash <= 0:
            return None
        return self._by_prefix.get(path[: slash + 1])

    async def _forward(
        self, service: ServiceApp, scope: Scope, receive: Receive, send: Send
    ) -> None:
        app = service.json if _wants_json(scope) else service.binary
        if scope["path"] not in service.streaming:
            await app(scope, receive, send)  # type: ignore[arg-type]
            return
        disconnected = asyncio.Event()

        async def watched_receive() -> Any:
            message = await receive()
            if message.get("type") == "http.disconnect":
                disconnected.set()
            return message

        token = DISCONNECTED.set(disconnected)
        try:
            await app(scope, watched_receive, send)  # type: ignore[arg-type]
        finally:
            DISCONNECTED.reset(token)

    def _liveness(self) -> str:
        return "SERVING" if self.serving else "NOT_SERVING"

    async def _ready(self, send: Send) -> None:
        names = [s.name for s in self.services]
        health = await self.upstreams.health(names)
        ready = self.serving and all(v == "SERVING" for v in health.values())
        body = {"status": "SERVING" if ready else "NOT_SERVING", "upstreams": health}
        await _json(send, 200 if ready else 503, body)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                log.info("gateway ready", services=[s.name for s in self.services])
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.serving = False
                await self.upstreams.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


def _wants_json(scope: Scope) -> bool:
    """Whether a call is Connect JSON (its content type, or a GET's `encoding`); every
    other call goes to the binary pass-through (a wrong type is refused there)."""
    if scope["method"] == "GET":
        return b"encoding=json" in scope.get("query_string", b"")
    for name, value in scope["headers"]:
        if name == b"content-type":
            return b"json" in value.lower()
    return False


async def _json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"cache-control", b"no-store"),
        (b"content-length", str(len(data)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
