"""One bot turn in a live game: fetch the seat's view, choose, submit, at most once.

The contract (docs/architecture.md): the authority enqueues `warroom.bots.play_turn`
with (game_id, seat, version) whenever a bot seat owes a decision at `version`.
A turn acts at most once:

- a claim in Redis (`<prefix>bots:turn:<game>:<seat>:<version>`, value the task id)
  lets only one task work on a turn; a redelivery of the same task (same id,
  after a worker died) may take it over, a separately sent duplicate may not.
  The claim lives `claim_ttl` seconds (a few) and the task holding it renews it
  while it works (`Claims.hold`), so a claim left by a killed worker lapses
  within seconds and the turn, sent again by the authority's sweep, goes on;
- the submission carries the idempotency key f"{game_id}:{seat}:{version}" and
  `expected_version=version`, so the authority applies it once whatever happens;
- a task whose version is no longer the game's does nothing (stale) when its
  seat owes nothing now, or when the task names the decision it was sent for
  (`decision_id`, optional) and that decision is over. A seat of a simultaneous
  decision still owes the same decision after another seat answered (the
  version moved, and the authority sends no new task), so without
  `decision_id` a task whose seat still owes a decision answers it. The
  submission names the decision it answers, and the authority accepts a
  stale `expected_version` only while that decision is pending for the seat,
  so each decision still gets at most one answer from the seat.

Written against small interfaces (`GameApi`, `Claims`) so tests can drive it
with fakes; `tasks.py` wires it to gRPC, Redis and Celery.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import grpc

from services.bots import core
from warroom.bots.position import Choice
from warroom.bots.registry import BotSpec
from warroom.v1 import game_pb2

STALE = "stale"
SUBMITTED = "submitted"
DUPLICATE = "duplicate"
GAME_OVER = "game-over"
NOT_OWED = "not-owed"
GONE = "gone"

TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.CANCELLED,
    }
)


class Transient(Exception):
    """A failure worth retrying (authority unreachable, overloaded, or a claim held elsewhere)."""

    def __init__(self, message: str, countdown: float | None = None) -> None:
        super().__init__(message)
        self.countdown = countdown


class GameApi(Protocol):
    """The two authority calls a bot turn makes."""

    def get_view(self, game_id: str, token: str) -> game_pb2.SeatView:
        """GameService.GetView; raises grpc.RpcError."""

    def submit(self, request: game_pb2.SubmitActionRequest) -> game_pb2.SubmitActionResponse:
        """GameService.SubmitAction; raises grpc.RpcError."""


class Claims(Protocol):
    """Per-turn claims (Redis in production)."""

    def claim(self, key: str, owner: str, ttl_seconds: int) -> str | None:
        """Set key=owner unless it exists; return the previous owner (None when claimed now)."""

    def ttl(self, key: str) -> int:
        """Seconds the key has left (<= 0 when gone)."""

    def finish(self, key: str, owner: str, ttl_seconds: int) -> None:
        """Mark the turn done by `owner`."""

    def hold(self, key: str, owner: str, ttl_seconds: int) -> AbstractContextManager[None]:
        """Keep renewing `owner`'s claim while the block runs (it lapses if the process dies)."""


DONE_PREFIX = "done:"


def idempotency_key(game_id: str, seat: int, version: int) -> str:
    """The submission key of a turn: one action per (game, seat, version)."""
    return f"{game_id}:{seat}:{version}"


def claim_key(prefix: str, game_id: str, seat: int, version: int) -> str:
    """The Redis key that claims a turn."""
    return f"{prefix}bots:turn:{game_id}:{seat}:{version}"


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """What a turn did: one of the outcome names, and the option submitted if any."""

    outcome: str
    option_id: str = ""
    detail: str = ""


Chooser = Callable[[str, Any, int, Any, BotSpec, str], Choice]


def _default_chooser(overrides: Mapping[str, Mapping[str, Any]]) -> Chooser:
    def chooser(
        game_id: str, view: Any, seat: int, decision: Any, spec: BotSpec, variant: str
    ) -> Choice:
        return core.choose(game_id, view, seat, decision, spec, variant, overrides)[0]

    return chooser


def play_turn(
    game_id: str,
    seat: int,
    version: int,
    *,
    task_id: str,
    token: str,
    api: GameApi,
    claims: Claims,
    claim_prefix: str,
    claim_ttl: int,
    chooser: Chooser | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    decision_id: str = "",
    done_ttl: int | None = None,
) -> TurnOutcome:
    """Play one bot turn at most once (see the module docstring); raises Transient to retry.

    `claim_ttl` is the lifetime of the (renewed) claim; `done_ttl` how long the "done"
    marker stays (default ten claim lifetimes).
    """
    key = claim_key(claim_prefix, game_id, seat, version)
    previous = claims.claim(key, task_id, claim_ttl)
    if previous is not None and previous != task_id:
        if previous.startswith(DONE_PREFIX):
            return TurnOutcome(DUPLICATE, detail=f"turn already played by {previous}")
        raise Transient(f"turn claimed by task {previous}", countdown=max(1, claims.ttl(key)) + 1)
    with claims.hold(key, task_id, claim_ttl):
        return _play_claimed(
            game_id,
            seat,
            version,
            task_id=task_id,
            token=token,
            api=api,
            finish=lambda: claims.finish(
                key, f"{DONE_PREFIX}{task_id}", done_ttl or claim_ttl * 10
            ),
            chooser=chooser or _default_chooser(overrides or {}),
            decision_id=decision_id,
        )


def _play_claimed(
    game_id: str,
    seat: int,
    version: int,
    *,
    task_id: str,
    token: str,
    api: GameApi,
    finish: Callable[[], None],
    chooser: Chooser,
    decision_id: str,
) -> TurnOutcome:
    try:
        seat_view = api.get_view(game_id, token)
    except grpc.RpcError as exc:
        return _rpc_outcome(exc, "GetView")
    if seat_view.HasField("result"):
        return TurnOutcome(GAME_OVER)
    decision = seat_view.decision
    owes = seat in decision.seats and bool(decision.options)
    moved = seat_view.version != version
    if moved and (not owes or (decision_id and decision.decision_id != decision_id)):
        return TurnOutcome(STALE, detail=f"game at version {seat_view.version}")
    if not owes:
        return TurnOutcome(NOT_OWED, detail=f"seat {seat} owes no decision")
    bot = seat_view.seats[seat].bot if seat < len(seat_view.seats) else None
    spec = core.spec_from_message(bot, "heuristic") if bot is not None else BotSpec("heuristic")
    if not spec.seed:
        spec = BotSpec(
            spec.kind,
            spec.difficulty,
            spec.budget_iterations,
            spec.budget_ms,
            core.derived_seed(game_id, seat, version),
        )
    rules_id = core.resolve_game(seat_view.game, seat_view.rules_id)
    rules = core.load_rules(rules_id)
    view = core.unpack_view(rules, seat_view.view)
    engine_decision = core.engine_decision(decision, seat)
    choice = chooser(rules_id, view, seat, engine_decision, spec, seat_view.variant)
    request = game_pb2.SubmitActionRequest(
        game_id=game_id,
        token=token,
        expected_version=version,
        decision_id=decision.decision_id,
        option_id=choice.option_id,
        idempotency_key=idempotency_key(game_id, seat, version),
        omit_view=True,
    )
    try:
        api.submit(request)
    except grpc.RpcError as exc:
        outcome = _rpc_outcome(exc, "SubmitAction")
        if outcome.outcome == DUPLICATE:
            finish()
        return outcome
    finish()
    return TurnOutcome(SUBMITTED, choice.option_id)


def _rpc_outcome(exc: grpc.RpcError, call: str) -> TurnOutcome:
    code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
    details = exc.details() if hasattr(exc, "details") else str(exc)
    if code in TRANSIENT:
        raise Transient(f"{call}: {code.name}: {details}")
    if code == grpc.StatusCode.ABORTED:
        return TurnOutcome(STALE, detail=details or "")
    if code == grpc.StatusCode.ALREADY_EXISTS:
        return TurnOutcome(DUPLICATE, detail=details or "")
    if code == grpc.StatusCode.NOT_FOUND:
        return TurnOutcome(GONE, detail=details or "")
    return TurnOutcome(NOT_OWED, detail=f"{call}: {code.name}: {details}")
