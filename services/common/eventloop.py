"""Run a service's main coroutine on the event loop its settings name (uvloop by default).

Before anything starts, the settings' keys are checked: outside development mode a process
with a missing, default, placeholder or short key exits at once (status 2) with a message
saying how to generate one (services.common.keys).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

from services.common.keys import InsecureSecretsError
from services.common.settings import Settings

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], settings: Settings) -> T:
    """Run `main` to completion on uvloop or the standard library's loop (`event_loop`).

    Exits with status 2 and the reason instead when the settings' keys are unsafe.
    """
    try:
        settings.check_secrets()
    except InsecureSecretsError as exc:
        main.close()
        print(f"warroom: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if settings.event_loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
