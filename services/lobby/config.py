"""Lobby tunables (env prefix `WARROOM_LOBBY_`), kept beside the shared `Settings`."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common.settings import Settings


class LobbySettings(BaseSettings):
    """Lobby-only settings; construct with keyword overrides in tests."""

    model_config = SettingsConfigDict(env_prefix="WARROOM_LOBBY_", env_file=None, extra="ignore")

    # The key of the player tokens is the shared `player_token_secret`
    # (WARROOM_PLAYER_TOKEN_SECRET, also read as WARROOM_LOBBY_TOKEN_SECRET).
    token_ttl_s: int = 24 * 3600
    # Redis connections for commands (calls beyond it wait for a free one) and the most
    # WatchTicket subscriptions (each holds its own connection).
    redis_connections: int = 64
    watch_connections: int = 5000
    # Matchmaking.
    queue: str = "default"
    ticket_ttl_s: int = 600
    ticket_ttl_max_s: int = 3600
    # How long a finished ticket stays readable (WatchTicket after a reconnect).
    ticket_keep_s: int = 3600
    # A director's claim on tickets lapses after this; the tickets return to the pool.
    claim_lease_s: float = 30.0
    # The per-pool matcher lock lifetime.
    lock_ms: int = 10_000
    cycle_interval_s: float = 1.0
    # CreateGame calls a director keeps in flight (the authority group-commits the creations
    # that arrive together, so more in flight means fewer, larger transactions).
    create_concurrency: int = 64
    window_base: float = 3.0
    window_per_s: float = 0.5
    window_max: float = 50.0
    accept_fewer_after_s: float = 15.0
    max_party: int = 6
    # A party invitation lapses after this.
    party_invite_ttl_s: int = 3600
    # Matchmade games may be watched (public view only) and are listed by ListLiveGames.
    watch_matchmade: bool = True
    # ListMyGames: finished games of the last this many days (include_finished).
    recent_games_days: int = 14
    # ListMyGames asks the authority about at most this many games at once.
    live_info_concurrency: int = 16
    # Public endpoints announced by GetEndpoints and Login (empty: host and port settings).
    bots_endpoint: str = ""
    lobby_endpoint: str = ""
    web_url: str = ""
    default_fill_bot_kind: str = "heuristic"
    default_fill_bot_difficulty: str = "intermediate"
    # WatchTicket sends a SEARCHING update at least this often.
    watch_interval_s: float = 1.0
    page_size_max: int = 100


def token_key(settings: Settings, lobby: LobbySettings) -> bytes:
    """The key signing player tokens (the current one of the player-token ring)."""
    return settings.player_token_keys().current


def token_keys(settings: Settings) -> tuple[bytes, ...]:
    """Every key a player token may be signed with: the current one, then retired ones."""
    return settings.player_token_keys().all()
