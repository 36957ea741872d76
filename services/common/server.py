"""grpc.aio server bootstrap: health checking, reflection (v1 and v1alpha), size limits, metrics port.

Every server maps a lost Redis or database onto UNAVAILABLE (services.common.unavailable).

Every service builds its server with `start_server`, registering its servicers
through callbacks; the health service reports SERVING for each named service
once started and NOT_SERVING during shutdown.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import start_http_server

from services.common.decoding import guarded
from services.common.logging import get_logger
from services.common.reflection import enable_reflection
from services.common.settings import Settings
from services.common.unavailable import StoreUnavailableInterceptor

log = get_logger("server")

Register = Callable[[grpc.aio.Server], None]


def server_options(settings: Settings) -> list[tuple[str, Any]]:
    """Channel options of every server: message size limits and keepalive."""
    return [
        ("grpc.max_receive_message_length", settings.grpc_max_receive_bytes),
        ("grpc.max_send_message_length", settings.grpc_max_send_bytes),
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.so_reuseport", 0),
    ]


@dataclass
class RunningServer:
    """A started server: the bound ports and what is needed to stop it."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    service_names: Sequence[str]
    metrics_port: int | None = None
    _metrics: Any = field(default=None, repr=False)

    async def stop(self, grace: float = 2.0) -> None:
        """Mark every service NOT_SERVING, then stop within `grace` seconds."""
        for name in (*self.service_names, ""):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.server.stop(grace)
        if self._metrics is not None:
            self._metrics.shutdown()
            self._metrics.server_close()
            self._metrics = None

    async def wait(self) -> None:
        """Wait until the server terminates."""
        await self.server.wait_for_termination()


async def start_server(
    settings: Settings,
    *,
    port: int,
    service_names: Sequence[str],
    register: Sequence[Register],
    metrics_port: int | None = None,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    host: str | None = None,
) -> RunningServer:
    """Build, bind and start a grpc.aio server (port 0 picks a free port).

    `service_names` are the full names (e.g. "warroom.v1.GameService") announced
    through health checking and reflection. `metrics_port` None disables the
    Prometheus HTTP endpoint, 0 picks a free port. Raises InsecureSecretsError, before
    binding anything, when the settings' keys are unsafe outside development mode.
    """
    settings.check_secrets()
    server = grpc.aio.server(
        options=server_options(settings),
        interceptors=[StoreUnavailableInterceptor(), *interceptors],
    )
    for add in register:
        add(guarded(server))  # undecodable requests: INVALID_ARGUMENT (services.common.decoding)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((*service_names, health.SERVICE_NAME), server)  # v1 and v1alpha
    bound = server.add_insecure_port(f"{host or settings.host}:{port}")
    if bound == 0:
        raise OSError(f"could not bind {host or settings.host}:{port}")
    await server.start()
    for name in (*service_names, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    metrics = None
    bound_metrics: int | None = None
    if metrics_port is not None:
        metrics, _thread = start_http_server(metrics_port, addr=host or settings.host)
        bound_metrics = int(metrics.server_port)
    log.info("server started", services=list(service_names), port=bound, metrics=bound_metrics)
    return RunningServer(server, bound, health_servicer, service_names, bound_metrics, metrics)


async def serve_until_signal(running: RunningServer, grace: float = 5.0) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    waiter = asyncio.ensure_future(running.wait())
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
    log.info("shutting down")
    await running.stop(grace)
    waiter.cancel()
    stopper.cancel()
