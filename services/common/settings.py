"""The one settings class of every Warroom service (env prefix `WARROOM_`).

`REDIS_URL` and `DATABASE_URL` are also read without the prefix, so the
standard variables of a deployment (and of the test fixtures) just work.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common import keys
from services.common.keys import InsecureSecretsError, KeyRing


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
    # Retries of a Redis command that met a broken connection or a timeout (exponential
    # backoff with jitter up to the cap), PING before reusing a connection idle this long,
    # and the connect timeout (services/common/redisio.py).
    redis_retries: int = 6
    redis_retry_cap_seconds: float = 1.0
    redis_health_check_seconds: int = 10
    redis_connect_timeout_seconds: float = 3.0
    database_url: str = Field(
        "sqlite:///var/warroom.db",
        validation_alias=AliasChoices("WARROOM_DATABASE_URL", "DATABASE_URL"),
    )
    # PostgreSQL schema holding every table (None = the server's default search_path).
    db_schema: str | None = None
    db_pool_size: int = 10
    db_echo: bool = False

    # -- deployment mode (WARROOM_ENV). "production" (the default) refuses to start with a
    # missing, default, placeholder, short or shared key; "development" falls back to
    # built-in insecure keys. See services/common/keys.py and docs/deploy.md.
    env: Literal["production", "development"] = "production"
    # -- the three keys, each with retired keys still accepted for verification
    # (`*_previous`: comma-separated). The service credential: the lobby's and the bot
    # worker's credential towards the authority and BotService.
    service_secret: SecretStr = SecretStr("")
    service_secret_previous: SecretStr = SecretStr("")
    # The key of bot seat tokens (HMAC(key, f"{game_id}:{seat}")).
    bot_token_secret: SecretStr = SecretStr("")
    bot_token_secret_previous: SecretStr = SecretStr("")
    # The key of the lobby's player tokens (HS256); WARROOM_LOBBY_TOKEN_SECRET is read too.
    player_token_secret: SecretStr = Field(
        SecretStr(""),
        validation_alias=AliasChoices("WARROOM_PLAYER_TOKEN_SECRET", "WARROOM_LOBBY_TOKEN_SECRET"),
    )
    player_token_secret_previous: SecretStr = SecretStr("")

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
    # Seconds before the broker hands an unacknowledged message (its worker died) to another
    # worker. It must exceed the longest task's run time, a bot turn's hard limit (largest
    # default budget + bot_task_hard_margin_seconds, about 42 s): a shorter one would
    # deliver a running task twice. Was 48 h, which stalled clocks for days.
    celery_visibility_timeout_seconds: int = 90

    # -- logging
    log_level: str = "INFO"
    log_json: bool = False

    # -- game authority
    # Extra rules-registry entries, "id=module:Attribute,..." (e.g. a test game).
    extra_games: str = ""
    # Per-token rate limit: a token bucket of `game_rate_burst` refilled at `game_rate_per_second`.
    # Sized so an honest client answering back to back (4-7 ms a call, up to 250 calls/s) is
    # never throttled in a whole game; a token past that sustained rate is.
    game_rate_per_second: float = 300.0
    game_rate_burst: int = 600
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
    # A replica that follows a game keeps its lock between writes as an idle lease this long
    # (milliseconds; renewed by each write, used for half of it, so a player's think time
    # between moves is covered; 0: no lease). Another replica's write takes the lease over at
    # once, and a replica that dies leaves it to be taken over, so a long lease costs none.
    game_lease_ms: int = 30_000
    # A bot turn still unanswered this long after it was sent is sent again (lost task), by
    # the beat task `warroom.game.resend_bot_turns`, which runs every `game_bot_sweep_seconds`,
    # and by every replica's SQL sweep. Short enough that a whole worker SIGKILLed mid-turn
    # costs its games under 10 s (with the bot worker's 4 s renewed claims); a duplicate of a
    # turn still being searched only finds the claim held and retries later.
    game_bot_resend_seconds: float = 5.0
    game_bot_sweep_seconds: float = 30.0
    # Every authority replica sweeps SQL this often for owed work nobody is doing: clocks
    # past their deadline, bot turns of games idle longer than `game_bot_resend_seconds`.
    game_owed_sweep_seconds: float = 2.0

    def register_extra_games(self) -> None:
        """Register `extra_games` in the rules registry."""
        from warroom.engine.registry import register

        for entry in filter(None, (e.strip() for e in self.extra_games.split(","))):
            game_id, _, target = entry.partition("=")
            register(game_id.strip(), target.strip())

    def broker_url(self) -> str:
        """The Celery broker URL (Redis by default)."""
        return self.celery_broker_url or self.redis_url

    @property
    def dev_mode(self) -> bool:
        """Whether built-in insecure keys are accepted (WARROOM_ENV=development)."""
        return self.env == "development"

    def _configured(self, role: keys.Role) -> tuple[str, tuple[str, ...]]:
        current: SecretStr = getattr(self, role.field)
        previous: SecretStr = getattr(self, f"{role.field}_previous")
        return current.get_secret_value(), keys.split_previous(previous.get_secret_value())

    def check_secrets(self) -> None:
        """Refuse unsafe keys outside development mode (raises InsecureSecretsError)."""
        if not self.dev_mode:
            keys.check_secrets({role.field: self._configured(role) for role in keys.ROLES})

    def _ring(self, role: keys.Role, fallback: bytes | None) -> KeyRing:
        current, previous = self._configured(role)
        if current:
            return KeyRing(current.encode(), keys.encoded(previous))
        if not self.dev_mode or fallback is None:
            raise InsecureSecretsError(
                f"{role.variable} ({role.purpose}) is not set; generate one with "
                f"{keys.GENERATE_HINT} (or run with WARROOM_ENV=development)"
            )
        return KeyRing(fallback, keys.encoded(previous))

    def service_keys(self) -> KeyRing:
        """The service credential: the current one and the retired ones still accepted."""
        return self._ring(keys.SERVICE, keys.DEV_SERVICE_SECRET.encode())

    def bot_token_keys(self) -> KeyRing:
        """The bot seat token keys (development mode: the service credential)."""
        return self._ring(keys.BOT_TOKENS, self.service_keys().current)

    def player_token_keys(self) -> KeyRing:
        """The player token keys (development mode: derived from the service credential)."""
        return self._ring(keys.PLAYER_TOKENS, keys.dev_player_key(self.service_keys().current))

    def secret(self) -> bytes:
        """The current service credential as bytes."""
        return self.service_keys().current

    def bot_token_key(self) -> bytes:
        """The current key of bot seat tokens (what signs a bot worker's seat token)."""
        return self.bot_token_keys().current


@cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
