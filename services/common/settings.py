"""The one settings class of every Warroom service (env prefix `WARROOM_`).

`REDIS_URL` and `DATABASE_URL` are also read without the prefix, so the
standard variables of a deployment (and of the test fixtures) just work.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SERVICE_SECRET = "warroom-dev-insecure-service-secret"


class Settings(BaseSettings):
    """Every tunable of every service; construct with keyword overrides in tests."""

    model_config = SettingsConfigDict(
        env_prefix="WARROOM_", env_file=None, extra="ignore", populate_by_name=True
    )

    # -- shared stores
    redis_url: str = Field(
        "redis://localhost:6379/0", validation_alias=AliasChoices("WARROOM_REDIS_URL", "REDIS_URL")
    )
    redis_prefix: str = "warroom:"
    redis_max_connections: int = 4096
    database_url: str = Field(
        "sqlite:///var/warroom.db",
        validation_alias=AliasChoices("WARROOM_DATABASE_URL", "DATABASE_URL"),
    )
    # PostgreSQL schema holding every table (None = the server's default search_path).
    db_schema: str | None = None
    db_pool_size: int = 10
    db_echo: bool = False

    # -- service credential (the lobby's and the bots' credential towards the authority);
    # also the key from which bot seat tokens are derived. Override in every deployment.
    service_secret: SecretStr = SecretStr(DEV_SERVICE_SECRET)

    # -- network
    host: str = "127.0.0.1"
    # The servers' event loop: "uvloop" (libuv; about 10% less authority CPU per action,
    # see docs/benchmarks.md) or "asyncio" (the standard library's loop).
    event_loop: Literal["uvloop", "asyncio"] = "uvloop"
    lobby_port: int = 50051
    game_port: int = 50052
    bots_port: int = 50053
    lobby_metrics_port: int = 9151
    game_metrics_port: int = 9152
    bots_metrics_port: int = 9153
    # Largest request a server accepts (bytes); larger ones are rejected by gRPC.
    grpc_max_receive_bytes: int = 256 * 1024
    grpc_max_send_bytes: int = 8 * 1024 * 1024
    # Public address of the game service given to players (Assignment.game_endpoint).
    game_endpoint: str = "127.0.0.1:50052"

    # -- Celery
    celery_broker_url: str | None = None  # default: redis_url
    celery_result_backend: str | None = None
    celery_always_eager: bool = False

    # -- logging
    log_level: str = "INFO"
    log_json: bool = False

    # -- game authority
    # Extra rules-registry entries, "id=module:Attribute,..." (e.g. a test game).
    extra_games: str = ""
    # Per-token rate limit: a token bucket of `game_rate_burst` refilled at `game_rate_per_second`.
    game_rate_per_second: float = 50.0
    game_rate_burst: int = 100
    # The buckets live in Redis (shared by every replica); a replica takes up to this many
    # tokens at once (at most a tenth of the burst) and spends them locally for 2 s.
    game_rate_lease: int = 8
    # Snapshot every N versions (only at versions without undo history).
    game_snapshot_every: int = 25
    # Spectators may fetch a replay this long after the game ended.
    game_replay_spectator_delay_seconds: int = 300
    # Events kept in a view (most recent first dropped beyond this).
    game_recent_events: int = 50
    # How long an idle game stays in a replica's memory (a finished one: the second figure).
    game_cache_seconds: int = 600
    game_finished_cache_seconds: int = 30
    # Group commit: SQL transactions in flight at once, each carrying every queued action.
    game_commit_parallel: int = 2
    # Lifetime of the Redis per-game writer lock (milliseconds).
    game_lock_ms: int = 5000
    # A bot turn still unanswered this long after it was sent is sent again (lost task), by
    # the beat task `warroom.game.resend_bot_turns`, which runs every `game_bot_sweep_seconds`.
    game_bot_resend_seconds: float = 60.0
    game_bot_sweep_seconds: float = 30.0

    def register_extra_games(self) -> None:
        """Register `extra_games` in the rules registry."""
        from warroom.engine.registry import register

        for entry in filter(None, (e.strip() for e in self.extra_games.split(","))):
            game_id, _, target = entry.partition("=")
            register(game_id.strip(), target.strip())

    def broker_url(self) -> str:
        """The Celery broker URL (Redis by default)."""
        return self.celery_broker_url or self.redis_url

    def secret(self) -> bytes:
        """The service secret as bytes."""
        return self.service_secret.get_secret_value().encode()


@cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
