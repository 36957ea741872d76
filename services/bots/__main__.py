"""Run the bot service: `python -m services.bots` (settings from WARROOM_* / REDIS_URL)."""

from __future__ import annotations

from services.bots.server import serve
from services.bots.settings import BotSettings, get_bot_settings
from services.common import eventloop
from services.common.logging import configure_logging
from services.common.server import serve_until_signal


async def main(settings: BotSettings) -> None:
    """Serve BotService until SIGTERM/SIGINT."""
    configure_logging(settings.log_level, settings.log_json)
    running, servicer = await serve(settings, metrics_port=settings.bots_metrics_port)
    try:
        await serve_until_signal(running)
    finally:
        await servicer.close()


if __name__ == "__main__":
    bot_settings = get_bot_settings()
    eventloop.run(main(bot_settings), bot_settings)
