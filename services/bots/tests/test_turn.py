"""The bot turn: at most one action per (game, seat, version), stale turns do nothing.

Claims live in real Redis (the shared fixtures); the authority is a fake that
applies submissions to a toy match with the authority's idempotency rules.
"""

from __future__ import annotations

import threading
from typing import Any

import grpc
import pytest
import redis
from google.protobuf import any_pb2

from services.bots import turn
from services.bots.settings import BotSettings
from services.bots.tasks import RedisClaims, backoff, time_limits
from tests.engine.toy_game import ToyRules
from warroom.api.convert import decision_message
from warroom.bots.position import Choice
from warroom.bots.registry import BotSpec
from warroom.engine.match import Match, MatchState
from warroom.v1 import common_pb2, game_pb2


class RpcError(grpc.RpcError):
    """A gRPC error as a stub raises it."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class FakeAuthority:
    """A toy game behind GetView/SubmitAction, with version CAS and idempotency keys."""

    def __init__(self, bot_kind: str = "random") -> None:
        self.rules = ToyRules()
        self.match = Match(self.rules)
        self.state: MatchState[Any] = self.match.start(6, "duel", {})
        self.keys: dict[str, tuple[int, str, str]] = {}
        self.applied: list[tuple[int, str]] = []
        self.bot_kind = bot_kind
        self.fail_next: grpc.StatusCode | None = None
        self.lock = threading.Lock()
        self.omitted: list[bool] = []

    def get_view(self, game_id: str, token: str) -> game_pb2.SeatView:
        if self.fail_next is not None:
            code, self.fail_next = self.fail_next, None
            raise RpcError(code, "injected")
        seat = int(token.removeprefix("seat-"))
        packed = any_pb2.Any()
        packed.Pack(self.rules.view(self.state.game, seat))
        seats = [
            common_pb2.Seat(index=i, is_bot=True, bot=common_pb2.BotSpec(kind=self.bot_kind))
            for i in range(2)
        ]
        view = game_pb2.SeatView(
            game_id=game_id,
            version=self.state.version,
            seat=seat,
            view=packed,
            rules_id="toy",
            variant="duel",
            seats=seats,
            decision=decision_message(self.state.pending, self.state.version, seat),
        )
        if self.state.pending is None:
            view.result.reason = "over"
        return view

    def submit(self, request: game_pb2.SubmitActionRequest) -> game_pb2.SubmitActionResponse:
        with self.lock:
            seat = int(request.token.removeprefix("seat-"))
            triple = (request.expected_version, request.decision_id, request.option_id)
            prior = self.keys.get(request.idempotency_key)
            if prior is not None:
                if prior != triple:
                    raise RpcError(grpc.StatusCode.ALREADY_EXISTS, "key used")
                return game_pb2.SubmitActionResponse(version=self.state.version)
            pending = self.state.pending
            assert pending is not None
            if request.expected_version != self.state.version and not (
                pending.id == request.decision_id and pending.find(seat, request.option_id)
            ):
                raise RpcError(grpc.StatusCode.ABORTED, "stale")
            self.state = self.match.apply(self.state, seat, request.option_id).state
            self.keys[request.idempotency_key] = triple
            self.applied.append((seat, request.option_id))
            self.omitted.append(request.omit_view)
            return game_pb2.SubmitActionResponse(version=self.state.version)


@pytest.fixture
def claims(redis_client: redis.Redis) -> RedisClaims:
    return RedisClaims(redis_client)


def _run(
    authority: FakeAuthority,
    claims: turn.Claims,
    prefix: str,
    seat: int,
    version: int,
    task_id: str,
    chooser: turn.Chooser | None = None,
) -> turn.TurnOutcome:
    return turn.play_turn(
        "g1",
        seat,
        version,
        task_id=task_id,
        token=f"seat-{seat}",
        api=authority,
        claims=claims,
        claim_prefix=prefix,
        claim_ttl=30,
        chooser=chooser,
    )


def test_a_turn_submits_one_legal_option(claims: RedisClaims, redis_prefix: str) -> None:
    authority = FakeAuthority("ismcts")
    outcome = _run(authority, claims, redis_prefix, 0, 0, "t1")
    assert outcome.outcome == turn.SUBMITTED
    assert authority.applied == [(0, outcome.option_id)]
    assert authority.keys == {"g1:0:0": (0, "1", outcome.option_id)}
    # a bot follows the game through its turns, not the answer: it asks for no view back
    assert authority.omitted == [True]


def test_duplicate_and_redelivered_tasks_do_not_act_twice(
    claims: RedisClaims, redis_prefix: str
) -> None:
    authority = FakeAuthority()
    assert _run(authority, claims, redis_prefix, 0, 0, "t1").outcome == turn.SUBMITTED
    # The same message delivered again, and a second task for the same turn.
    assert _run(authority, claims, redis_prefix, 0, 0, "t1").outcome == turn.DUPLICATE
    assert _run(authority, claims, redis_prefix, 0, 0, "t2").outcome == turn.DUPLICATE
    assert len(authority.applied) == 1


def test_a_claim_held_by_a_running_task_makes_a_duplicate_retry(
    claims: RedisClaims, redis_prefix: str
) -> None:
    authority = FakeAuthority()
    key = turn.claim_key(redis_prefix, "g1", 0, 0)
    assert claims.claim(key, "t-running", 30) is None
    with pytest.raises(turn.Transient) as caught:
        _run(authority, claims, redis_prefix, 0, 0, "t-other")
    assert caught.value.countdown is not None and 1 < caught.value.countdown <= 32
    assert authority.applied == []
    # The worker running it died: its redelivered message (same id) takes the turn over.
    assert _run(authority, claims, redis_prefix, 0, 0, "t-running").outcome == turn.SUBMITTED
    assert len(authority.applied) == 1


def test_a_simultaneous_decision_is_answered_after_the_version_moved(
    claims: RedisClaims, redis_prefix: str
) -> None:
    authority = FakeAuthority()
    # Both seats owe the opening (simultaneous) decision at version 0; seat 0 answers first.
    assert _run(authority, claims, redis_prefix, 0, 0, "t1").outcome == turn.SUBMITTED
    # Seat 1's task was sent at version 0; the decision is still pending for seat 1.
    assert _run(authority, claims, redis_prefix, 1, 0, "t2").outcome == turn.SUBMITTED
    assert [s for s, _ in authority.applied] == [0, 1]


def test_a_stale_task_does_nothing(claims: RedisClaims, redis_prefix: str) -> None:
    authority = FakeAuthority()
    for seat, task in ((0, "t1"), (1, "t2")):
        assert _run(authority, claims, redis_prefix, seat, 0, task).outcome == turn.SUBMITTED
    pending = authority.state.pending
    assert pending is not None and len(pending.seats) == 1
    idle = 1 - pending.seats[0]
    # A late task of the seat that owes nothing now, sent at an old version.
    assert _run(authority, claims, redis_prefix, idle, 1, "t3").outcome == turn.STALE
    # A task naming a decision that is over is stale even if its seat owes a newer one.
    acting = pending.seats[0]
    outcome = turn.play_turn(
        "g1",
        acting,
        1,
        task_id="t4",
        token=f"seat-{acting}",
        api=authority,
        claims=claims,
        claim_prefix=redis_prefix,
        claim_ttl=30,
        decision_id="1",
    )
    assert outcome.outcome == turn.STALE
    assert len(authority.applied) == 2


def test_concurrent_duplicates_submit_once(claims: RedisClaims, redis_prefix: str) -> None:
    authority = FakeAuthority()
    gate = threading.Barrier(2)
    outcomes: list[str] = []

    def slow(game_id: str, view: Any, seat: int, decision: Any, spec: BotSpec, v: str) -> Choice:
        return Choice(decision.options_for(seat)[0].id)

    def worker(task_id: str) -> None:
        gate.wait()
        try:
            outcomes.append(_run(authority, claims, redis_prefix, 0, 0, task_id, slow).outcome)
        except turn.Transient:
            outcomes.append("retry")

    threads = [threading.Thread(target=worker, args=(f"t{i}",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) in (["retry", "submitted"], ["duplicate", "submitted"])
    assert len(authority.applied) == 1


def test_authority_errors(claims: RedisClaims, redis_prefix: str) -> None:
    authority = FakeAuthority()
    authority.fail_next = grpc.StatusCode.UNAVAILABLE
    with pytest.raises(turn.Transient):
        _run(authority, claims, redis_prefix, 0, 0, "t1")
    authority.fail_next = grpc.StatusCode.NOT_FOUND
    assert _run(authority, claims, redis_prefix, 0, 0, "t1").outcome == turn.GONE
    # A retried task (same id) still acts, once.
    assert _run(authority, claims, redis_prefix, 0, 0, "t1").outcome == turn.SUBMITTED
    assert len(authority.applied) == 1


def test_delivery_settings_follow_the_budgets() -> None:
    settings = BotSettings(bot_budgets={"ismcts:expert": {"ms": 9000}})
    soft, hard = time_limits(settings)
    assert soft >= 9 + settings.bot_task_soft_margin_seconds
    assert hard > soft
    assert [backoff(settings, n) for n in range(7)] == [1, 2, 4, 8, 16, 30, 30]


def test_the_celery_task_is_registered_on_the_bots_queue() -> None:
    from services.bots.tasks import TASK_NAME, play_turn

    assert play_turn.name == TASK_NAME == "warroom.bots.play_turn"
    assert play_turn.acks_late and play_turn.reject_on_worker_lost
    routes = play_turn.app.conf.task_routes
    assert routes["warroom.bots.*"] == {"queue": "bots"}
    assert play_turn.max_retries is not None and play_turn.max_retries > 0
    assert play_turn.soft_time_limit and play_turn.time_limit
    assert play_turn.soft_time_limit < play_turn.time_limit


def test_a_held_claim_is_renewed_and_a_dead_holders_claim_lapses_in_seconds(
    claims: RedisClaims, redis_prefix: str
) -> None:
    """A working task keeps its short claim alive; once it stops renewing, it lapses."""
    import time

    key = turn.claim_key(redis_prefix, "g9", 0, 0)
    assert claims.claim(key, "t-working", 1) is None
    with claims.hold(key, "t-working", 1):
        time.sleep(2.0)  # twice the lifetime: only the heartbeat keeps it
        assert claims.claim(key, "t-other", 1) == "t-working"
    # The holder is gone (as if its worker was SIGKILLed): the claim lapses within its ttl.
    deadline = time.monotonic() + 3
    while claims.claim(key, "t-resent", 1) is not None:
        assert time.monotonic() < deadline, "the dead holder's claim did not lapse"
        time.sleep(0.1)
    assert not claims.renew(key, "t-working", 1), "only the holder may renew"
