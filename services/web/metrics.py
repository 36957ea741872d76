"""Prometheus metrics of the web gateway."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

RPCS = Counter(
    "warroom_web_rpcs_total",
    "Forwarded RPCs by service, method and gRPC code",
    ["service", "method", "code"],
)
LATENCY = Histogram(
    "warroom_web_rpc_seconds",
    "Forwarded RPC duration (whole stream for server streams)",
    ["service", "method"],
    buckets=(0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300),
)
STREAMS = Gauge(
    "warroom_web_open_streams", "Server streams open through this gateway", ["service", "method"]
)
STATIC = Counter(
    "warroom_web_static_responses_total", "Static file responses by status", ["status"]
)


def observe(service: str, method: str, code: str, seconds: float) -> None:
    """Count one finished forwarded call."""
    RPCS.labels(service, method, code).inc()
    LATENCY.labels(service, method).observe(seconds)
