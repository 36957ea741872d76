"""The Celery app for the live tests' worker: the shared app with a short visibility timeout.

A message whose worker was killed comes back after `visibility_timeout`
seconds (48 h in production); the kill-and-restart test needs it in seconds.
"""

from __future__ import annotations

import os

from services.common.celery_app import app

app.conf.broker_transport_options = {
    **app.conf.broker_transport_options,
    "visibility_timeout": int(os.environ.get("WARROOM_TEST_VISIBILITY_TIMEOUT", "3")),
}
import services.bots.tasks  # noqa: E402,F401  (registers warroom.bots.play_turn)

__all__ = ["app"]
