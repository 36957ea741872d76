"""Commands that write a version: submit, resign, and a clock's expiry.

Each reads as one pipeline: validate → lock (`Writer.hold`) → apply (a new frame and the
seat changes that go with it) → commit (the SQL compare-and-set; acknowledged only after
it) → publish (Redis version + update message; a lone write on the lease sends the version
beside its commit: `Writer.stake`) → dispatch (the owed bot turns and clocks).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import timedelta

from services.common.logging import get_logger
from services.game import errors, metrics
from services.game.cache import GameCache
from services.game.callers import Callers
from services.game.checks import Answer, check_answer, check_ids
from services.game.core import Core
from services.game.frames import Terminal, result_row, step_row, update_message
from services.game.live import BOT, HUMAN, Frame, LiveGame, LogEntry, Logged
from services.game.owed import Owed, Plan, apply_updates, open_turns, stop_clock
from services.game.store import Append, Conflict, now
from services.game.views import seat_view
from services.game.writer import Held, Writer
from warroom.api import convert
from warroom.engine.model import Result
from warroom.v1 import common_pb2, game_pb2

log = get_logger("game.commands")
Reply = tuple[int, game_pb2.SeatView | None]


class LeaseLost(Exception):
    """A write on this replica's lease lost the SQL compare-and-set: another replica took
    the lease over and wrote first (`submit` answers again under the lock)."""


@dataclass
class Change:
    """An applied answer not yet committed: the new frame, its log row and what goes with it."""

    frame: Frame
    row: LogEntry
    write: Append
    plan: Plan


class Commands:
    """The write side of the authority (CreateGame is `creation.Creation`)."""

    def __init__(
        self, core: Core, cache: GameCache, callers: Callers, owed: Owed, writer: Writer
    ) -> None:
        self.core = core
        self.cache = cache
        self.callers = callers
        self.owed = owed
        self.writer = writer

    # ------------------------------------------------------------------ submit
    async def submit(
        self,
        game_id: str,
        token: str,
        expected_version: int,
        decision_id: str,
        option_id: str,
        key: str,
        with_view: bool = True,
    ) -> Reply:
        """SubmitAction: validate, append durably, publish; returns (version, view; the view
        None without `with_view`)."""
        check_ids(decision_id, option_id, key)
        live = await self.cache.get(game_id)
        seat, as_bot = await self.callers.actor(live, token, "act")
        answer = Answer(seat, expected_version, decision_id, option_id, key, with_view)
        try:
            return await self._submit(live, answer, as_bot, token)
        except LeaseLost:
            # another replica wrote the game while this one wrote on its lease: answer again
            # on the game as SQL now holds it, as the lock would have ordered the two (the
            # rate limit was paid)
            return await self._submit(live, answer, as_bot, None)

    async def _submit(
        self, live: LiveGame, answer: Answer, as_bot: bool, token: str | None
    ) -> Reply:
        """One attempt of `submit` under the write fence."""
        async with self.writer.hold(live, token) as held:
            reply = await self._validate(live, answer, as_bot)
            if reply is not None:
                return reply
            change = self._apply(live, answer)
            self.writer.stake(live, held, change.frame)
            reply = await self._commit(live, answer, change, held)
            if reply is not None:
                return reply
            await self.writer.publish(live, held, change.frame.version, update_message(change.row))
        metrics.ACTIONS.labels(live.row.rules_id).inc()
        if live.result is not None:
            await self.cache.mark_finished(live)
        if as_bot:
            await self.core.hot.bot_turn_done(live.id, answer.seat)
        await self.owed.dispatch(live, change.plan)
        return change.frame.version, self._view(live, answer, change.frame)

    def _view(self, live: LiveGame, answer: Answer, frame: Frame) -> game_pb2.SeatView | None:
        if not answer.with_view:
            return None
        return seat_view(live, answer.seat, frame, self.core.settings.game_recent_events)

    async def _validate(self, live: LiveGame, answer: Answer, as_bot: bool) -> Reply | None:
        """None when the answer may be applied; the original reply when its idempotency key
        was used for this very answer; raises the refusal otherwise."""
        if answer.key:
            prior = live.keys.get((answer.seat, answer.key))
            if prior is not None:
                return await self._prior(live, prior, answer)
        try:
            check_answer(live, answer, as_bot)
        except errors.GameError:
            reply = await self._prior_in_sql(live, answer)
            if reply is None:
                raise
            return reply
        return None

    async def _prior_in_sql(self, live: LiveGame, answer: Answer) -> Reply | None:
        """The reply to an answer already written with the same key (another replica's)."""
        if not answer.key:
            return None
        core = self.core
        found = await core.db(core.store.find_key, live.id, answer.seat, answer.key)
        return None if found is None else await self._prior(live, found, answer)

    async def _prior(self, live: LiveGame, prior: Logged, answer: Answer) -> Reply:
        """The original reply of a used idempotency key (ALREADY_EXISTS for another answer)."""
        if (prior.expected_version, prior.decision_id, prior.option_id) != (
            answer.expected_version,
            answer.decision_id,
            answer.option_id,
        ):
            metrics.REJECTS.labels("ALREADY_EXISTS").inc()
            raise errors.already_exists(
                f"idempotency key {prior.idempotency_key!r} was used at version {prior.seq} "
                f"for option {prior.option_id!r} of decision {prior.decision_id} "
                f"(expected_version {prior.expected_version}); use a new key for a new action",
                version=str(prior.seq),
            )
        frame = await self.cache.frame_at(live, prior.seq)
        return prior.seq, self._view(live, answer, frame)

    def _apply(self, live: LiveGame, answer: Answer) -> Change:
        """The answer applied to the head: the new frame, its log row, seat changes, work owed."""
        step = live.match.apply(live.state, answer.seat, answer.option_id)
        result = live.rules.result(step.state.game) if step.state.over else None
        frame = Frame(live.version + 1, step.state, step.events, result)
        stamp = now()
        plan = Plan()
        stop_clock(live.seats, answer.seat, stamp, plan)
        after = step.state.pending if result is None else None
        open_turns(live.seats, live.state.pending, after, answer.seat, frame.version, stamp, plan)
        row = LogEntry(
            frame.version,
            answer.seat,
            "option",
            answer.decision_id,
            answer.option_id,
            answer.expected_version,
            answer.key or None,
        )
        action = {
            "seat": row.seat,
            "kind": row.kind,
            "decision_id": row.decision_id,
            "option_id": row.option_id,
            "expected_version": row.expected_version,
            "idempotency_key": row.idempotency_key,
        }
        write = Append(action=action, seat_updates=plan.updates)
        if result is not None:
            write.result = result_row(result)
        elif (
            step.state.previous is None
            and frame.version % self.core.settings.game_snapshot_every == 0
        ):
            write.snapshot = convert.snapshot(live.rules, step.state)
        return Change(frame, row, write, plan)

    async def _commit(
        self, live: LiveGame, answer: Answer, change: Change, held: Held
    ) -> Reply | None:
        """Append durably (group commit); on a lost race, the key's original reply, or
        `LeaseLost` when written on this replica's lease, or ABORTED."""
        try:
            stamp = await self.core.committer((live.id, live.version, change.write))
        except Conflict:
            with contextlib.suppress(Exception):  # (a failed stake drops the lease too)
                await self.writer.settle(live, held)  # the stake's lease news first, then:
            live.lease = None  # another replica wrote the game: take the lock again
            await self.cache.from_sql(live, live.epoch)
            reply = await self._prior_in_sql(live, answer)
            if reply is not None:
                return reply
            if held.leased:
                raise LeaseLost from None
            metrics.REJECTS.labels("ABORTED").inc()
            raise errors.aborted(
                "VERSION_CONFLICT",
                f"another action was applied to game {live.id} first; it is now at "
                f"version {live.version}: read the view again",
            ) from None
        apply_updates(live.seats, change.plan.updates)
        live.advance(change.frame, change.row)
        if change.frame.result is not None:
            live.row.finished_at = stamp  # as SQL recorded it: no read to learn it
        return None

    # ------------------------------------------------------------------ resign, forfeit
    async def _terminal(self, live: LiveGame, held: Held, seat: int, kind: str) -> Frame:
        """Append and publish a resign/forfeit row that ends the game (under `held`)."""
        pseudo = Terminal(live.version + 1, seat, kind)
        frame = step_row(live.rules, live.match, live.frame, pseudo)
        assert frame.result is not None
        updates = {
            s.seat: {"clock_deadline": None, "clock_version": None, "turn_version": None}
            for s in live.seats
            if s.clock_deadline is not None or s.turn_version is not None
        }
        write = Append(
            action={"seat": seat, "kind": kind, "expected_version": live.version},
            seat_updates=updates,
            result=result_row(frame.result),
        )
        try:
            stamp = await self.core.db(self.core.store.append, live.id, live.version, write)
        except Conflict:
            raise errors.aborted("VERSION_CONFLICT", "the game moved; retry") from None
        apply_updates(live.seats, updates)
        live.advance(frame)
        live.row.finished_at = stamp
        await self.writer.publish(live, held, frame.version, update_message(pseudo))
        await self.cache.mark_finished(live)
        return frame

    async def resign(self, game_id: str, token: str) -> tuple[int, Result]:
        """Resign: the game ends, ranked by `resign_result` (the game's hook, else this seat last)."""
        live = await self.cache.get(game_id)
        seat, _bot = await self.callers.actor(live, token, "resign")
        async with self.writer.hold(live, token) as held:
            if live.result is not None:
                raise errors.precondition("GAME_OVER", f"game {game_id} is already over")
            frame = await self._terminal(live, held, seat, "resign")
        assert frame.result is not None
        return frame.version, frame.result

    # ------------------------------------------------------------------ clocks
    async def expire_clock(self, game_id: str, seat: int, decision_id: str, version: int) -> str:
        """A clock timer fired: apply the seat's fallback if the timer is still current.

        Returns "stale" (the timer no longer matches), "early" (checked again at the
        deadline), "forfeit" (the game ended) or "bot" (a bot plays the seat now).
        """
        live = await self.cache.get(game_id)
        plan = Plan()
        async with self.writer.hold(live) as held:
            row = live.seats[seat]
            pending = live.pending_for(seat)
            if row.clock_version != version or row.clock_deadline is None:
                return "stale"
            if pending is None or row.controller != HUMAN:
                await self._stop_stale_clock(live, seat)
                return "stale"
            if pending.id != decision_id:
                return "stale"
            if row.clock_deadline > now() + timedelta(milliseconds=50):
                plan.clocks.append((seat, decision_id, version, row.clock_deadline))
                outcome = "early"
            elif (row.clock or {}).get("fallback", 0) == common_pb2.ClockSpec.FALLBACK_FORFEIT:
                await self._terminal(live, held, seat, "forfeit")
                outcome = "forfeit"
            else:
                await self._hand_to_bot(live, seat)
                plan.bots.append(seat)
                outcome = "bot"
        log.info("clock expired", game_id=game_id, seat=seat, outcome=outcome)
        await self.owed.dispatch(live, plan)
        return outcome

    async def _stop_stale_clock(self, live: LiveGame, seat: int) -> None:
        """A clock left running on a seat that owes nothing now stops (no new version)."""
        changes = {"clock_deadline": None, "clock_version": None}
        await self.core.db(self.core.store.update_seats, live.id, {seat: changes})
        apply_updates(live.seats, {seat: changes})

    async def _hand_to_bot(self, live: LiveGame, seat: int) -> None:
        """A bot plays the seat from now on (a seat control change: no new version)."""
        core = self.core
        changes = {
            "controller": BOT,
            "reclaim": False,
            "clock_deadline": None,
            "clock_version": None,
            "clock_remaining_ms": 0,
        }
        await core.db(core.store.update_seats, live.id, {seat: changes})
        apply_updates(live.seats, {seat: changes})
        live.epoch = await core.hot.bump_epoch(live.id)
        await core.hot.publish(live.id, {"s": live.epoch})
        live.notify()
