"""Run the web gateway: `python -m services.web` (settings from WARROOM_*)."""

from __future__ import annotations

import gc
from typing import cast

from services.common import eventloop
from services.common.logging import configure_logging
from services.common.server import RunningServer, serve_until_signal
from services.web.server import start_gateway
from services.web.settings import WebSettings, get_web_settings

# Young-generation collections every this many allocations instead of CPython's 700: a
# forwarded call allocates a few hundred short-lived objects (ASGI events, headers,
# futures), and collecting that often was about a tenth of the gateway's CPU.
GC_YOUNG_THRESHOLD = 50_000


def tune_gc() -> None:
    """Collect rarely, and never scan what exists once serving (modules, channels, apps)."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


async def main(settings: WebSettings) -> None:
    """Serve until SIGTERM/SIGINT, then shut down gracefully."""
    configure_logging(settings.log_level, settings.log_json)
    running = await start_gateway(settings)
    tune_gc()
    # RunningGateway has the wait() and stop(grace) that serve_until_signal uses.
    await serve_until_signal(cast(RunningServer, running), settings.web_shutdown_grace_seconds)


if __name__ == "__main__":
    web_settings = get_web_settings()
    eventloop.run(main(web_settings), web_settings)
