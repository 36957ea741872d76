"""Bot-service settings: the shared `Settings` plus the bots' own tunables (env prefix `WARROOM_`).

`WARROOM_BOT_BUDGETS` overrides default budgets per kind or kind:difficulty, as
JSON, e.g. `{"ismcts:expert": {"ms": 2000}, "heuristic": {"iterations": 8}}`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import Field

from services.common.settings import Settings


class BotSettings(Settings):
    """Settings of the bot service and the bot worker."""

    # Budget overrides per "kind" or "kind:difficulty" -> {"iterations": n, "ms": n}.
    bot_budgets: dict[str, dict[str, int]] = Field(default_factory=dict)
    # Analysis lane: player searches run at once per BotService process (more wait in a fair
    # round-robin queue of at most `bot_queue_max`; a player holds at most
    # `bot_player_parallel` requests, running or waiting).
    bot_concurrency: int = 4
    bot_queue_max: int = 32
    bot_player_parallel: int = 2
    # Live lane, reserved for the service credential (never behind analysis traffic).
    bot_service_concurrency: int = 2
    bot_service_queue_max: int = 256
    # Largest search per role: time (ms), ISMCTS iterations, heuristic samples per option.
    bot_role_caps: dict[str, dict[str, int]] = Field(
        default_factory=lambda: {
            "guest": {"ms": 2_000, "iterations": 20_000, "samples": 16},
            "player": {"ms": 10_000, "iterations": 200_000, "samples": 32},
        }
    )
    # Search time a player may use per minute (ms, per BotService replica), by role.
    bot_quota_ms_per_minute: dict[str, int] = Field(
        default_factory=lambda: {"guest": 20_000, "player": 60_000}
    )
    # Largest budget a ChooseAction caller may ask for (milliseconds, iterations).
    bot_max_budget_ms: int = 30_000
    bot_max_budget_iterations: int = 1_000_000
    # Celery bot-turn task: retries of a failed turn, first backoff and its cap (seconds).
    bot_task_max_retries: int = 5
    bot_task_backoff_seconds: int = 1
    bot_task_backoff_max_seconds: int = 30
    # Time limits of a bot turn beyond the largest default budget (seconds).
    bot_task_soft_margin_seconds: int = 20
    bot_task_hard_margin_seconds: int = 40
    # Lifetime of a bot turn's claim in Redis (seconds); the task renews it every third of
    # that while it works, so a killed worker's claim lapses this soon (services/bots/turn.py).
    bot_claim_ttl_seconds: int = 4
    # Deadline of one call to the game authority (seconds).
    bot_rpc_timeout_seconds: float = 10.0

    def budget_overrides(self) -> dict[str, dict[str, Any]]:
        """The budget overrides in the form `warroom.bots.registry.make_bot` takes."""
        return {key: dict(value) for key, value in self.bot_budgets.items()}


@cache
def get_bot_settings() -> BotSettings:
    """The process-wide bot settings, read once from the environment."""
    return BotSettings()
