"""Prometheus metrics of the lobby."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

TICKETS = Counter("warroom_lobby_tickets_total", "Tickets enqueued", ["game"])
REJECTS = Counter("warroom_lobby_rejects_total", "Rejected requests, by status", ["code"])
MATCHES = Counter(
    "warroom_lobby_matches_total", "Matches by outcome (started, aborted, failed)", ["outcome"]
)
CYCLE = Histogram(
    "warroom_lobby_cycle_seconds",
    "Matchmaker cycle duration (pools with tickets)",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
POOL = Gauge("warroom_lobby_pool_tickets", "Waiting tickets seen by the last cycle", ["game"])
WATCHERS = Gauge("warroom_lobby_watchers", "Open WatchTicket streams on this replica")
