"""Run the gateway on uvicorn inside the caller's event loop (tests and `__main__` alike).

The socket is bound here (port 0 picks a free one), so the bound port is known before
serving; signals are the caller's business (uvicorn's own handlers are not installed).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from prometheus_client import start_http_server

from services.common.logging import get_logger
from services.web.app import Gateway
from services.web.settings import WebSettings

log = get_logger("web")
# Idle keep-alive connections are closed after this long (uvicorn's default is 5 s). Longer
# than a load balancer's or a browser's usual idle timeout (60 s), so that it is the client
# that closes an idle connection: a server closing it as a request is sent resets that
# request.
KEEP_ALIVE_SECONDS = 75


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: the caller decides when to stop."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class RunningGateway:
    """A serving gateway: its ports and how to stop it."""

    gateway: Gateway
    port: int
    metrics_port: int | None
    _server: _Server = field(repr=False)
    _task: asyncio.Task[None] = field(repr=False)
    _metrics: Any = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """Base URL of the gateway as a client on this machine reaches it."""
        host = self.gateway.settings.host
        host = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
        return f"http://{host}:{self.port}"

    async def stop(self, grace: float | None = None) -> None:
        """Stop accepting, let calls finish (streams are cut after the grace), close channels.

        The grace is fixed when the server starts (`web_shutdown_grace_seconds`); `grace` is
        accepted for the interface the gRPC servers share.
        """
        del grace
        self.gateway.serving = False
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        if self._metrics is not None:
            self._metrics.shutdown()
            self._metrics.server_close()
            self._metrics = None

    async def wait(self) -> None:
        """Wait until the server stops."""
        await asyncio.shield(self._task)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise OSError(f"could not bind {host}:{port}: is the port in use?") from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


async def start_gateway(
    settings: WebSettings,
    *,
    port: int | None = None,
    metrics_port: int | None = None,
    gateway: Gateway | None = None,
) -> RunningGateway:
    """Bind, start serving and return once uvicorn has started (port 0: a free port)."""
    app = gateway or Gateway(settings)
    sock = _bind(settings.host, settings.web_port if port is None else port)
    config = uvicorn.Config(
        app,
        lifespan="on",
        log_config=None,
        access_log=False,
        ws="none",
        http="httptools",
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=max(1, round(settings.web_shutdown_grace_seconds)),
        server_header=False,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("the gateway stopped during start")
        await asyncio.sleep(0.02)
    bound = int(sock.getsockname()[1])
    metrics = None
    bound_metrics: int | None = None
    wanted = settings.web_metrics_port if metrics_port is None else metrics_port
    if wanted >= 0:
        metrics, _thread = start_http_server(wanted, addr=settings.host)
        bound_metrics = int(metrics.server_port)
    log.info("gateway started", port=bound, metrics=bound_metrics, dist=str(settings.web_dist_dir))
    return RunningGateway(app, bound, bound_metrics, server, task, metrics)
