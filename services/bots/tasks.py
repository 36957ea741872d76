"""Celery bot worker: task `warroom.bots.play_turn` on queue `bots`.

Delivery: `acks_late` with `reject_on_worker_lost` (a turn whose worker dies is
delivered again), bounded retries with exponential backoff for transient
failures, and soft/hard time limits sized to the largest configured bot
budget (a seat's own `budget_ms` is capped to fit them). On the soft limit the
turn falls back to a random legal option, so a slow search never stalls a game. Run a worker:
`celery -A services.common.celery_app worker -Q bots`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from typing import Any

import grpc
import redis
from celery import Task
from celery.exceptions import SoftTimeLimitExceeded

from services.bots import core, turn
from services.bots.settings import BotSettings, get_bot_settings
from services.common.auth import bot_seat_token
from services.common.celery_app import app
from services.common.logging import get_logger
from services.common.redisio import sync_redis
from warroom.bots.position import Choice
from warroom.bots.registry import KINDS, BotSpec, resolve_budget
from warroom.v1 import game_pb2, game_pb2_grpc

log = get_logger("bots.worker")
TASK_NAME = "warroom.bots.play_turn"


def time_limits(settings: BotSettings) -> tuple[int, int]:
    """(soft, hard) seconds: the largest default budget plus the configured margins."""
    overrides = settings.budget_overrides()
    largest_ms = max(
        (resolve_budget(info, d, overrides).ms for info in KINDS.values() for d in info.budgets),
        default=0,
    )
    largest_ms = max(largest_ms, 1000)
    soft = largest_ms // 1000 + 1 + settings.bot_task_soft_margin_seconds
    return soft, max(soft + 5, largest_ms // 1000 + 1 + settings.bot_task_hard_margin_seconds)


def backoff(settings: BotSettings, retries: int) -> int:
    """Seconds before retry number `retries` + 1 (exponential, capped)."""
    return int(
        min(settings.bot_task_backoff_max_seconds, settings.bot_task_backoff_seconds * 2**retries)
    )


class GrpcGameApi:
    """The authority over gRPC, one channel per process (created after fork)."""

    def __init__(self, settings: BotSettings) -> None:
        self.settings = settings
        self.channel = grpc.insecure_channel(settings.game_endpoint)
        self.stub = game_pb2_grpc.GameServiceStub(self.channel)

    def get_view(self, game_id: str, token: str) -> game_pb2.SeatView:
        """GameService.GetView."""
        answer = self.stub.GetView(
            game_pb2.GetViewRequest(game_id=game_id, token=token),
            timeout=self.settings.bot_rpc_timeout_seconds,
        )
        view: game_pb2.SeatView = answer.view
        return view

    def submit(self, request: game_pb2.SubmitActionRequest) -> game_pb2.SubmitActionResponse:
        """GameService.SubmitAction."""
        answer: game_pb2.SubmitActionResponse = self.stub.SubmitAction(
            request, timeout=self.settings.bot_rpc_timeout_seconds
        )
        return answer


_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


class RedisClaims:
    """Turn claims in Redis, renewed by a heartbeat thread while a task holds one."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._renew = client.register_script(_RENEW)

    def renew(self, key: str, owner: str, ttl_seconds: float) -> bool:
        """Extend the claim if `owner` still holds it."""
        return bool(self._renew(keys=[key], args=[owner, int(ttl_seconds * 1000)]))

    @contextlib.contextmanager
    def hold(self, key: str, owner: str, ttl_seconds: int) -> Iterator[None]:
        """Renew the claim every third of its lifetime until the block ends."""
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(max(0.2, ttl_seconds / 3)):
                try:
                    if not self.renew(key, owner, ttl_seconds):
                        return  # finished, taken over, or flushed: nothing left to keep
                except redis.RedisError as exc:
                    log.warning("claim renewal failed", key=key, error=repr(exc))

        thread = threading.Thread(target=beat, name="claim-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=1)

    def claim(self, key: str, owner: str, ttl_seconds: int) -> str | None:
        """SET NX; the existing owner when the key is taken."""
        if self.client.set(key, owner, nx=True, ex=ttl_seconds):
            return None
        current = self.client.get(key)
        if current is None:
            return None if self.client.set(key, owner, nx=True, ex=ttl_seconds) else "unknown"
        return current.decode() if isinstance(current, bytes) else str(current)

    def ttl(self, key: str) -> int:
        """Seconds left on the key."""
        return int(self.client.ttl(key))

    def finish(self, key: str, owner: str, ttl_seconds: int) -> None:
        """Mark the turn done."""
        self.client.set(key, owner, ex=ttl_seconds)


@cache
def _resources(pid: int) -> tuple[GrpcGameApi, RedisClaims]:
    settings = get_bot_settings()
    settings.register_extra_games()
    return GrpcGameApi(settings), RedisClaims(sync_redis(settings))


def _chooser(settings: BotSettings) -> turn.Chooser:
    overrides = settings.budget_overrides()

    longest_ms = max(1000, (_SOFT - settings.bot_task_soft_margin_seconds) * 1000)

    def chooser(
        game_id: str, view: Any, seat: int, decision: Any, spec: BotSpec, variant: str
    ) -> Choice:
        if spec.budget_ms > longest_ms:
            spec = replace(spec, budget_ms=longest_ms)
        try:
            return core.choose(game_id, view, seat, decision, spec, variant, overrides)[0]
        except SoftTimeLimitExceeded:
            log.warning("soft time limit: falling back to a random option", game=game_id, seat=seat)
            fallback = BotSpec("random", seed=spec.seed)
            return core.choose(game_id, view, seat, decision, fallback, variant, overrides)[0]

    return chooser


_SOFT, _HARD = time_limits(get_bot_settings())


@app.task(
    bind=True,
    name=TASK_NAME,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=get_bot_settings().bot_task_max_retries,
    soft_time_limit=_SOFT,
    time_limit=_HARD,
    ignore_result=True,
)
def play_turn(self: Task, game_id: str, seat: int, version: int, decision_id: str = "") -> str:
    """Play a bot seat's decision at `version` at most once (see services.bots.turn)."""
    settings = get_bot_settings()
    api, claims = _resources(os.getpid())
    task_id = str(self.request.id or f"local-{game_id}-{seat}-{version}")
    try:
        outcome = turn.play_turn(
            game_id,
            seat,
            version,
            task_id=task_id,
            token=bot_seat_token(settings.bot_token_key(), game_id, seat),
            api=api,
            claims=claims,
            claim_prefix=settings.redis_prefix,
            claim_ttl=settings.bot_claim_ttl_seconds,
            done_ttl=(_HARD + 5) * 10,
            chooser=_chooser(settings),
            decision_id=decision_id,
        )
    except SoftTimeLimitExceeded as exc:
        log.warning("bot turn hit the soft time limit", game=game_id, seat=seat, version=version)
        raise self.retry(exc=exc, countdown=1) from exc
    except turn.Transient as exc:
        retries = int(self.request.retries or 0)
        countdown = exc.countdown if exc.countdown is not None else backoff(settings, retries)
        log.info("bot turn retry", game=game_id, seat=seat, version=version, reason=str(exc))
        raise self.retry(exc=exc, countdown=countdown) from exc
    log.info(
        "bot turn",
        game=game_id,
        seat=seat,
        version=version,
        outcome=outcome.outcome,
        option=outcome.option_id,
        detail=outcome.detail,
    )
    return outcome.outcome
