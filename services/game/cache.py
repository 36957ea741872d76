"""The live-game cache of one replica, and recovery from SQL.

A game is loaded from its latest snapshot plus the log after it; on load it re-sends the
work its pending decision owes. Redis says when another replica moved a game (version)
or changed its seats (seat epoch): readers and writers then catch up from the SQL log. If
Redis lost those keys they are re-read from SQL and seeded again. Idle games leave memory.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from typing import Any

from services.game import errors, metrics
from services.game.callers import bot_tokens
from services.game.core import Core
from services.game.frames import build, step_row
from services.game.live import Frame, LiveGame
from services.game.models import FINISHED, GameRow, GameSeatRow
from services.game.owed import Owed
from services.game.store import Loaded
from warroom.engine.registry import get_rules
from warroom.engine.rules import Rules

GAME_ID = re.compile(r"^[0-9a-f]{32}$")
IN_FLIGHT_WAITS = (0.002, 0.004, 0.008, 0.016, 0.032, 0.064)
"""Pauses between SQL reads while Redis holds a version SQL does not (`_catch_up`)."""


def in_flight_wait_s() -> float:
    """How long in all a catch-up waits for a commit in flight (`GameCache._catch_up`)."""
    return sum(IN_FLIGHT_WAITS)


class GameCache:
    """The games this replica holds, loaded on demand and kept in step with SQL."""

    def __init__(self, core: Core, owed: Owed) -> None:
        self.core = core
        self.owed = owed
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Lock] = {}

    def keep(self, row: GameRow) -> int:
        """How many recent frames to hold for a game (enough for its spectator delay)."""
        return max(64, row.spectator_delay_versions + 8)

    def hold(
        self, row: GameRow, rules: Rules[Any], seats: list[GameSeatRow], frames: list[Frame]
    ) -> LiveGame:
        """A live game over rows and frames (not yet cached)."""
        keep = self.keep(row)
        live = LiveGame(row, rules, seats, frames[-1], keep)
        live.history = deque(frames[-keep:], maxlen=keep)
        live.bot_tokens = bot_tokens(self.core.settings, row.id, seats)
        return live

    def add(self, live: LiveGame) -> None:
        """Cache a game this replica just created."""
        self.games[live.id] = live
        metrics.LIVE.set(len(self.games))

    async def get(self, game_id: str) -> LiveGame:
        """A live game by id; raises INVALID_ARGUMENT or NOT_FOUND."""
        if not GAME_ID.match(game_id or ""):
            raise errors.invalid(
                "MALFORMED_GAME_ID",
                f"game_id {game_id[:40]!r} is malformed: expected 32 lowercase hex digits",
                field="game_id",
            )
        live = self.games.get(game_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            try:
                live = await self._load(game_id)
            finally:
                self._loading.pop(game_id, None)
        if live.result is None:
            await self.owed.reconcile(live)
        return live

    async def _load(self, game_id: str) -> LiveGame:
        """Rebuild a game from SQL, seed its Redis keys if Redis lost them, and cache it."""
        core = self.core
        loaded = await core.db(core.store.load, game_id)
        if loaded is None:
            raise errors.not_found(f"no game {game_id}", game_id=game_id)
        _head, frames, actions = await core.db(build, loaded)
        live = self.hold(loaded.game, get_rules(loaded.game.rules_id), loaded.seats, frames)
        for action in actions:
            if action.idempotency_key:
                live.keys[(action.seat, action.idempotency_key)] = action
        cached, epoch = await core.hot.state(game_id)
        if cached is None or cached < live.version:
            await core.hot.set_version(game_id, live.version)
        if epoch is None:
            await core.hot.set_epoch(game_id, 0)
            epoch = 0
        live.epoch = epoch
        self.add(live)
        return live

    async def refresh(self, live: LiveGame, version: int | None, epoch: int | None) -> None:
        """Catch up with SQL when Redis says another replica moved the game (or knows nothing)."""
        core = self.core
        lost = version is None or epoch is None
        if version is None:
            head = await core.db(core.store.head, live.id)
            version = head if head is not None else live.version
            await core.hot.set_version(live.id, version)
        moved = version > live.version and await self._catch_up(live, version)
        if moved or epoch is None or epoch != live.epoch:
            live.seats = await core.db(core.store.seats, live.id)
            if epoch is None:
                await core.hot.set_epoch(live.id, 0)
                _, epoch = await core.hot.state(live.id)
            live.epoch = epoch or 0
            if moved and live.result is not None:
                await self.mark_finished(live)
        if lost and live.result is None:
            # Redis forgot the game (flush, restart): the queued bot turns and the waiting
            # set may be gone with it, so send again what the current decision owes.
            await self.owed.reconcile(live)

    async def _catch_up(self, live: LiveGame, version: int) -> bool:
        """Apply the log rows after the head, up to `version` (Redis's); whether any was.

        A version Redis holds and SQL not yet is a commit in flight (a write on its lease
        sends its version beside its commit, `Writer.stake`): SQL is read again a few times,
        about 0.13 s in all, before going on without it (a writer that died, or whose commit
        failed, left Redis ahead of SQL until the game's next write). Once per such version:
        a catch-up to the version it stopped waiting for reads SQL once."""
        core = self.core
        moved = False
        pauses = (None,) if version == live.behind else (*IN_FLIGHT_WAITS, None)
        for pause in pauses:
            rows = await core.db(core.store.actions_after, live.id, live.version)
            for row in rows:
                if row.seq != live.version + 1:
                    break
                live.advance(step_row(live.rules, live.match, live.frame, row), row)
                moved = True
            if live.version >= version or pause is None:
                break
            await asyncio.sleep(pause)
        if live.version < version:
            live.behind = version
        return moved

    async def mark_finished(self, live: LiveGame) -> None:
        """The game ended: its row says so, with the time SQL recorded."""
        live.row.status = FINISHED
        if live.row.finished_at is None:
            core = self.core
            result = await core.db(core.store.result, live.id)
            live.row.finished_at = result.finished_at if result is not None else None

    async def from_sql(self, live: LiveGame, epoch: int | None) -> None:
        """Catch up with SQL itself, not Redis (the caller holds `live.lock`): a replica that
        died between its commit and its Redis release left Redis behind SQL. Seeds Redis
        with the SQL head."""
        core = self.core
        head = await core.db(core.store.head, live.id)
        if head is not None and head > live.version:
            await core.hot.set_version(live.id, head)
        await self.refresh(live, live.version if head is None else head, epoch)

    async def catch_up(self, live: LiveGame) -> None:
        """The sweeps: the game and its seats as SQL has them now."""
        core = self.core
        async with live.lock:
            _, epoch = await core.hot.state(live.id)
            await self.from_sql(live, epoch)
            live.seats = await core.db(core.store.seats, live.id)

    async def sync(self, live: LiveGame) -> None:
        """Bring a live game up to date with Redis (readers)."""
        version, epoch = await self.core.hot.state(live.id)
        if version != live.version or epoch != live.epoch:
            async with live.lock:
                await self.refresh(live, version, epoch)

    async def frames(self, live: LiveGame, after: int, upto: int) -> list[Frame]:
        """The frames of versions after+1 .. upto (from memory, else rebuilt from SQL)."""
        if upto <= after:
            return []
        kept = [f for f in live.history if after < f.version <= upto]
        if kept and kept[0].version == after + 1 and kept[-1].version == upto:
            return kept
        core = self.core
        loaded = await core.db(core.store.load, live.id, upto)
        if loaded is None:
            raise errors.not_found(f"no game {live.id}")
        if loaded.snapshot is not None and loaded.snapshot.version > after:
            loaded = Loaded(loaded.game, loaded.seats, None, [], loaded.result)
            loaded.actions = await core.db(core.store.actions_after, live.id, 0, upto)
        _, built, _ = await core.db(build, loaded)
        return [f for f in built if after < f.version <= upto]

    async def frame_at(self, live: LiveGame, version: int) -> Frame:
        """The frame at one version."""
        for frame in live.history:
            if frame.version == version:
                return frame
        if version == 0:
            state = live.match.start(int(live.row.seed), live.row.variant, dict(live.row.options))
            return Frame(0, state, (), None)
        found = await self.frames(live, version - 1, version)
        return found[-1]

    def evict_idle(self) -> int:
        """Forget games idle longer than the cache time (no watchers); returns how many.

        A finished game is forgotten sooner (`game_finished_cache_seconds`): it no longer
        changes, and a later read simply loads it again.
        """
        settings = self.core.settings
        stamp = time.monotonic()
        idle = stamp - settings.game_cache_seconds
        over = stamp - settings.game_finished_cache_seconds
        gone = [
            gid
            for gid, live in self.games.items()
            if live.watchers == 0
            and live.touched < (over if live.result is not None else idle)
            and not live.lock.locked()
        ]
        for gid in gone:
            del self.games[gid]
        metrics.LIVE.set(len(self.games))
        return len(gone)
