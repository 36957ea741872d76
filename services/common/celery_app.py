"""The one Celery app of every service (broker: Redis by default).

Task modules: `services.game.tasks`, `services.bots.tasks`, `services.lobby.tasks`
(each included when it exists). Task names are namespaced `warroom.<service>.*`
and routed to the queue of that service: `game`, `bots`, `lobby`.

Delivery: `acks_late` + `reject_on_worker_lost` with a prefetch of one, so a task whose pool
process dies is requeued at once, and one whose whole worker is SIGKILLed comes back after
the broker's visibility timeout (`celery_visibility_timeout_seconds`, sized to the longest
task: a bot turn's hard time limit). Faster recovery of owed work does not wait for it: the
authority's sweeps send a lost bot turn again and expire clocks from SQL deadlines
(docs/reliability.md).

Run a worker:  celery -A services.common.celery_app worker -Q game,bots,lobby
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from celery import Celery, signals

from services.common.keys import InsecureSecretsError
from services.common.settings import Settings, get_settings

TASK_MODULES = ("services.game.tasks", "services.bots.tasks", "services.lobby.tasks")
QUEUES = ("game", "bots", "lobby")


def _existing(modules: tuple[str, ...]) -> list[str]:
    found = []
    for name in modules:
        try:
            if importlib.util.find_spec(name) is not None:
                found.append(name)
        except ModuleNotFoundError:
            continue
    return found


def make_celery(settings: Settings, include: tuple[str, ...] | None = None) -> Celery:
    """A Celery app configured from settings (`include`: task modules, default all that exist)."""
    modules = _existing(TASK_MODULES) if include is None else list(include)
    celery = Celery("warroom", broker=settings.broker_url(), include=modules)
    celery.conf.update(
        result_backend=settings.celery_result_backend,
        task_ignore_result=settings.celery_result_backend is None,
        task_always_eager=settings.celery_always_eager,
        task_routes={f"warroom.{queue}.*": {"queue": queue} for queue in QUEUES},
        task_default_queue="game",
        task_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        # Keep reconnecting through a Redis restart instead of giving up after 100 tries.
        broker_connection_max_retries=None,
        broker_transport_options={
            # A message a worker took but never acknowledged (the worker was killed) goes
            # back to its queue this long after delivery: sized to the longest task.
            "visibility_timeout": settings.celery_visibility_timeout_seconds,
            "global_keyprefix": settings.redis_prefix,
            "health_check_interval": settings.redis_health_check_seconds,
            "socket_keepalive": True,
            "socket_connect_timeout": settings.redis_connect_timeout_seconds,
            "retry_on_timeout": True,
        },
        timezone="UTC",
        enable_utc=True,
    )
    return celery


@signals.worker_init.connect
def _refuse_unsafe_secrets(**_kwargs: Any) -> None:
    """A worker (it signs bot seat tokens, calls the authority) refuses unsafe keys."""
    try:
        get_settings().check_secrets()
    except InsecureSecretsError as exc:
        print(f"warroom worker: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


app = make_celery(get_settings())
