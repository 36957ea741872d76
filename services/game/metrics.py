"""Prometheus metrics of the game authority."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

ACTIONS = Counter("warroom_game_actions_applied_total", "Actions durably applied", ["rules"])
REJECTS = Counter("warroom_game_rejects_total", "Rejected requests, by reason", ["reason"])
LATENCY = Histogram(
    "warroom_game_rpc_seconds",
    "RPC latency",
    ["method"],
    buckets=(0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
LIVE = Gauge("warroom_game_games_live", "Active games held in this replica's memory")
WATCHERS = Gauge("warroom_game_watchers", "Open WatchGame streams on this replica")
BATCH = Histogram(
    "warroom_game_batch_size",
    "Items per coalesced run: rows per group commit, games per Redis round trip",
    ["batcher"],
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)
