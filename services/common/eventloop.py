"""Run a service's main coroutine on the event loop its settings name (uvloop by default)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from services.common.settings import Settings

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], settings: Settings) -> T:
    """Run `main` to completion on uvloop or the standard library's loop (`event_loop`)."""
    if settings.event_loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
