"""Background work of the authority: the `Scheduler` interface and its Celery implementation
(bot turns on queue `bots`, clock checks on queue `game`).

Contract with the bot worker (see docs/architecture.md): task
`warroom.bots.play_turn` with kwargs `game_id` (str), `seat` (int), `version`
(int), on queue `bots`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from celery import Celery

BOT_TASK = "warroom.bots.play_turn"
CLOCK_TASK = "warroom.game.clock_expired"
RESEND_TASK = "warroom.game.resend_bot_turns"
SWEEP_TASK = "warroom.game.sweep_owed"


class Scheduler(Protocol):
    """Where the authority sends background work (Celery in production)."""

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        """A bot seat owes a decision at `version`."""

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        """Check the seat's clock at `eta` (stale when the version moved)."""


class NullScheduler:
    """Drops background work (benchmarks and tests without clocks or bots)."""

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        """Ignore."""

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        """Ignore."""


class CeleryScheduler:
    """Sends the authority's background work as Celery tasks."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        """Enqueue a bot turn."""
        self.app.send_task(
            BOT_TASK, kwargs={"game_id": game_id, "seat": seat, "version": version}, queue="bots"
        )

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        """Enqueue a clock check at `eta`, tagged with the version the clock started at.

        Only within half the broker's visibility timeout: a message held longer (an ETA task
        waits unacknowledged in a worker) would be handed out again and again. A later
        deadline is expired by the SQL clock sweep (`Sweeper.sweep_owed`) instead.
        """
        horizon = float(self.app.conf.broker_transport_options.get("visibility_timeout") or 0)
        aware = eta if eta.tzinfo is not None else eta.replace(tzinfo=UTC)
        if horizon and (aware - datetime.now(UTC)).total_seconds() > horizon / 2:
            return
        self.app.send_task(
            CLOCK_TASK,
            kwargs={
                "game_id": game_id,
                "seat": seat,
                "decision_id": decision_id,
                "version": version,
            },
            queue="game",
            eta=eta,
        )
