"""Gateway settings: the shared `Settings` plus the gateway's own (env prefix `WARROOM_`).

`WARROOM_WEB_UPSTREAMS` maps a gRPC service's full name to the host:port it is forwarded to
(JSON, e.g. `{"warroom.v1.CatalogService": "catalog:50054"}`); a service not named there
goes to the endpoint of the field named after it (lobby, game, bots, catalog).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import Field

from services.common.settings import Settings

REPO_ROOT = Path(__file__).resolve().parents[2]


class WebSettings(Settings):
    """Settings of the web gateway."""

    web_port: int = 8080
    web_metrics_port: int = 9154
    # Where each service is reached (host:port). The game endpoint defaults to
    # `game_endpoint`: any replica serves any game, so a load-balanced address is right.
    web_lobby_endpoint: str = "127.0.0.1:50051"
    web_game_endpoint: str | None = None
    web_bots_endpoint: str = "127.0.0.1:50053"
    # The catalogue is served by the lobby process unless set.
    web_catalog_endpoint: str | None = None
    web_upstreams: dict[str, str] = Field(default_factory=dict)
    # The built browser app (vite's output); missing: API only, `/` explains how to build it.
    web_dist_dir: Path = REPO_ROOT / "web" / "dist"
    # Deadline of a forwarded unary call when the client sets none (seconds).
    web_rpc_timeout_seconds: float = 30.0
    # Open streams are cut after this long at shutdown (seconds).
    web_shutdown_grace_seconds: float = 5.0

    def check_secrets(self) -> None:
        """Nothing to check: the gateway holds no key (it signs and verifies nothing; the
        tokens it forwards are checked by the services behind it)."""

    def upstream(self, service: str) -> str | None:
        """The host:port a service (full name, e.g. "warroom.v1.GameService") goes to."""
        if service in self.web_upstreams:
            return self.web_upstreams[service]
        defaults = {
            "warroom.v1.LobbyService": self.web_lobby_endpoint,
            "warroom.v1.GameService": self.web_game_endpoint or self.game_endpoint,
            "warroom.v1.BotService": self.web_bots_endpoint,
            "warroom.v1.CatalogService": self.web_catalog_endpoint or self.web_lobby_endpoint,
        }
        return defaults.get(service)


@cache
def get_web_settings() -> WebSettings:
    """The process-wide gateway settings, read once from the environment."""
    return WebSettings()
