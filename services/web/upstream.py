"""The gateway's gRPC channels: one per upstream address, opened on first use.

Channels use the round_robin policy, so an upstream name that resolves to several
addresses (a Kubernetes headless Service) spreads the calls over every replica.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from grpc_health.v1 import health_pb2

from services.web.settings import WebSettings


class Upstreams:
    """Resolves a service's full name to a shared grpc.aio channel."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self._channels: dict[str, grpc.aio.Channel] = {}

    def known(self, service: str) -> bool:
        """Whether the gateway forwards this service."""
        return bool(self.settings.upstream(service))

    def endpoint(self, service: str) -> str:
        """host:port of a forwarded service."""
        target = self.settings.upstream(service)
        if not target:
            raise KeyError(service)
        return target

    def channel(self, service: str) -> grpc.aio.Channel:
        """The channel to a service's upstream (created on first use, in the running loop)."""
        target = self.endpoint(service)
        channel = self._channels.get(target)
        if channel is None:
            channel = grpc.aio.insecure_channel(target, options=self._options())
            self._channels[target] = channel
        return channel

    def _options(self) -> list[tuple[str, Any]]:
        return [
            ("grpc.max_receive_message_length", self.settings.grpc_max_send_bytes),
            ("grpc.max_send_message_length", self.settings.grpc_max_receive_bytes),
            ("grpc.lb_policy_name", "round_robin"),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.http2.max_pings_without_data", 0),
        ]

    async def health(self, services: list[str], deadline_s: float = 1.0) -> dict[str, str]:
        """The gRPC health status name of each service's upstream ("SERVING", ...)."""

        async def check(service: str) -> str:
            call = self.channel(service).unary_unary(
                "/grpc.health.v1.Health/Check",
                request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                response_deserializer=health_pb2.HealthCheckResponse.FromString,
            )
            try:
                response = await call(health_pb2.HealthCheckRequest(service=""), timeout=deadline_s)
            except grpc.aio.AioRpcError as error:
                return "UNREACHABLE" if error.code() != grpc.StatusCode.NOT_FOUND else "UNKNOWN"
            return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))

        results = await asyncio.gather(*(check(s) for s in services))
        return dict(zip(services, results, strict=True))

    async def close(self) -> None:
        """Close every channel."""
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()
