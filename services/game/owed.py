"""Owed work: the bot turns and clock checks a game's pending decision owes, and sending them.

A write computes a `Plan` (seat changes to commit with it, then bot turns and clock checks
to send after the commit). What a game owes is also derivable from its rows alone: the
pending decision plus the seat rows (`controller`, `clock_deadline`), so a (re)load and the
sweeps (`services/game/sweep.py`) send it again; every receiver is idempotent.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from services.common.logging import get_logger
from services.game.core import Core
from services.game.live import BOT, HUMAN, LiveGame
from services.game.models import GameSeatRow
from warroom.engine.model import Decision
from warroom.v1 import common_pb2

log = get_logger("game.owed")
CLOCK_MODES = (common_pb2.ClockSpec.MODE_LIVE, common_pb2.ClockSpec.MODE_CORRESPONDENCE)


@dataclass
class Plan:
    """Seat changes that go with a write, and the background work to send after it commits."""

    updates: dict[int, dict[str, Any]] = field(default_factory=dict)
    bots: list[int] = field(default_factory=list)
    clocks: list[tuple[int, str, int, datetime]] = field(default_factory=list)


def clock_of(row: GameSeatRow) -> dict[str, Any] | None:
    """The seat's clock spec when it has a running mode (live or correspondence)."""
    clock = row.clock
    if not clock or clock.get("mode") not in CLOCK_MODES:
        return None
    return clock


def apply_updates(seats: list[GameSeatRow], updates: Mapping[int, Mapping[str, Any]]) -> None:
    """Apply committed seat changes to the rows held in memory."""
    for seat, changes in updates.items():
        for key, value in changes.items():
            setattr(seats[seat], key, value)


def stop_clock(seats: list[GameSeatRow], seat: int, stamp: datetime, plan: Plan) -> None:
    """The seat answered: stop its clock and keep what is left of a live allowance."""
    row = seats[seat]
    clock = clock_of(row)
    if clock is None or row.clock_deadline is None:
        return
    left = max(0, int((row.clock_deadline - stamp).total_seconds() * 1000))
    if clock.get("mode") == common_pb2.ClockSpec.MODE_LIVE:
        left += int(clock.get("increment_seconds", 0)) * 1000
    plan.updates.setdefault(seat, {}).update(
        clock_deadline=None, clock_version=None, clock_remaining_ms=left
    )


def _allowance(row: GameSeatRow, clock: dict[str, Any], changes: dict[str, Any]) -> int:
    """Milliseconds a seat gets for a new decision."""
    initial = int(clock.get("initial_seconds", 0)) * 1000
    if clock.get("mode") != common_pb2.ClockSpec.MODE_LIVE:
        return initial
    allowance = changes.get("clock_remaining_ms", row.clock_remaining_ms)
    if allowance is None or allowance <= 0:
        allowance = initial
    if "reclaim" in changes:  # a human back from a bot: a fresh allowance at least
        allowance = max(allowance, initial)
    return int(allowance)


def _open_turn(
    row: GameSeatRow, decision_id: str, version: int, stamp: datetime, plan: Plan
) -> None:
    """A turn opens for a seat: a reclaimed seat returns to its human, a bot seat gets a bot
    turn, a human seat with a clock gets a deadline."""
    seat = row.seat
    changes = plan.updates.setdefault(seat, {})
    controller = changes.get("controller", row.controller)
    if controller == BOT and row.bot is None and row.reclaim:
        changes.update(controller=HUMAN, reclaim=False)
        controller = HUMAN
    if controller == BOT:
        plan.bots.append(seat)
        return
    clock = clock_of(row)
    if clock is None:
        return
    deadline = stamp + timedelta(milliseconds=_allowance(row, clock, changes))
    changes.update(clock_deadline=deadline, clock_version=version)
    plan.clocks.append((seat, decision_id, version, deadline))


def open_turns(
    seats: list[GameSeatRow],
    before: Decision | None,
    after: Decision | None,
    answered: int | None,
    version: int,
    stamp: datetime,
    plan: Plan,
) -> None:
    """Track every seat's turn across one version (`answered` = the seat that just answered).

    A seat's turn continues while the same decision stays open for it and it did not answer;
    it opens at `version` when the seat acts in a new decision, or answered and still acts in
    the same one (its options changed). `turn_version` records when it opened (None: the
    seat owes nothing); a turn that opens starts the seat's clock or sends its bot turn.
    """
    for row in seats:
        seat = row.seat
        owes = after is not None and seat in after.options
        continued = (
            owes
            and before is not None
            and after is not None
            and before.id == after.id
            and seat in before.options
            and seat != answered
        )
        opened = row.turn_version if continued else (version if owes else None)
        if opened != row.turn_version:
            plan.updates.setdefault(seat, {})["turn_version"] = opened
        if owes and not continued:
            assert after is not None
            _open_turn(row, after.id, version, stamp, plan)


def owed_plan(live: LiveGame) -> Plan:
    """What the current decision owes, from the rows alone: bot turns and running clocks."""
    plan = Plan()
    pending = live.state.pending
    if pending is None or live.result is not None:
        return plan
    for seat in pending.seats:
        row = live.seats[seat]
        if row.controller == BOT:
            plan.bots.append(seat)
        elif row.clock_deadline is not None and row.clock_version is not None:
            plan.clocks.append((seat, pending.id, row.clock_version, row.clock_deadline))
    return plan


def turn_of(live: LiveGame, seat: int) -> int:
    """The version at which the seat's current turn opened (the head when unknown)."""
    opened = live.seats[seat].turn_version
    return live.version if opened is None else opened


class Owed:
    """Sends a game's owed work: bot turns (recorded as waiting in Redis) and clock checks."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def reconcile(self, live: LiveGame) -> None:
        """After a (re)load: re-send the bot turn or clock check the current decision owes."""
        await self.dispatch(live, owed_plan(live))

    async def dispatch(self, live: LiveGame, plan: Plan) -> None:
        """Send the plan's bot turns and clock checks (after the write committed)."""
        if not plan.bots and not plan.clocks:
            return
        scheduler = self.core.scheduler
        versions = {seat: turn_of(live, seat) for seat in plan.bots}
        if plan.bots:
            try:
                await self.core.hot.bot_turns_sent(live.id, plan.bots, time.time())
            except Exception:
                log.exception("could not record the bot turns sent", game_id=live.id)

        def send() -> None:
            for seat, version in versions.items():
                scheduler.bot_turn(live.id, seat, version)
            for seat, decision_id, started, eta in plan.clocks:
                scheduler.clock(live.id, seat, decision_id, started, eta)

        try:
            await self.core.db(send)
        except Exception:
            log.exception("could not schedule background work", game_id=live.id)
