"""The servers' event loop comes from settings: uvloop by default, the standard loop on request."""

from __future__ import annotations

import asyncio

import pytest
import uvloop
from pydantic import ValidationError

from services.common import eventloop
from services.common.settings import Settings


async def _loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_default_runs_on_uvloop() -> None:
    assert issubclass(eventloop.run(_loop_type(), Settings()), uvloop.Loop)


def test_asyncio_setting_runs_on_the_standard_loop() -> None:
    loop_type = eventloop.run(_loop_type(), Settings(event_loop="asyncio"))
    assert not issubclass(loop_type, uvloop.Loop)
    assert issubclass(loop_type, asyncio.BaseEventLoop)


def test_unknown_loop_is_refused() -> None:
    with pytest.raises(ValidationError, match="event_loop"):
        Settings(event_loop="trio")
