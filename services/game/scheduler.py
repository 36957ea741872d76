"""Background work through Celery: bot turns (queue `bots`) and clock checks (queue `game`).

Contract with the bot worker (see docs/architecture.md): task
`warroom.bots.play_turn` with kwargs `game_id` (str), `seat` (int), `version`
(int), on queue `bots`.
"""

from __future__ import annotations

from datetime import datetime

from celery import Celery

BOT_TASK = "warroom.bots.play_turn"
CLOCK_TASK = "warroom.game.clock_expired"
RESEND_TASK = "warroom.game.resend_bot_turns"


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
        """Enqueue a clock check at `eta`, tagged with the version the clock started at."""
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
