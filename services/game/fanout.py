"""Fan-out: WatchGame streams and the replica's subscription to the games' pub/sub channels.

One pub/sub connection per replica follows the channels of the games watched here; a
message that is news to the replica (not its own write) wakes it: it catches up from SQL
and wakes its local watchers. Once Redis confirms a subscription, the replica's own writes
to that game are not echoed back to it unless another subscriber listens (`Hot.heard`). Each watcher renders its own seat-filtered view per version
(the parts a frame shows one viewer are rendered once: `views.render`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from services.common.logging import get_logger
from services.game import metrics
from services.game.cache import GameCache
from services.game.callers import Callers
from services.game.core import Core
from services.game.live import Frame, LiveGame
from services.game.views import seat_view, spectator_head
from warroom.v1 import common_pb2, game_pb2

log = get_logger("game.fanout")
CONFIRM_WAIT_S = 1.0
"""How long a new watcher waits for Redis to confirm the replica's subscription (past it, a
write it misses reaches it at the stream's next 5-second check)."""


def is_news(live: LiveGame, data: bytes | str) -> bool:
    """Whether an update message tells this replica something it does not hold: a version
    past its head, or a seat epoch other than its own. The replica's own writes (already
    applied here before they are announced) are not news: no Redis read follows them. A
    takeover of a lock lease ({"r": fence}) is news only to the replica holding that lease."""
    try:
        update = json.loads(data)
    except ValueError:
        return True
    if not isinstance(update, dict):
        return True
    version, epoch, revoked = update.get("v"), update.get("s"), update.get("r")
    if isinstance(version, int):
        return version > live.version
    if isinstance(epoch, int):
        return epoch != live.epoch
    if isinstance(revoked, str):
        return live.lease is not None and live.lease.fence == revoked
    return True


def _response(
    live: LiveGame,
    viewer: int | None,
    frame: Frame,
    recent: int,
    events: list[common_pb2.GameEvent] | None,
) -> game_pb2.WatchGameResponse:
    """One stream message: the viewer's view at `frame` (rendered in place) and its events
    (that version's own, or without `events` the last `recent`)."""
    response = game_pb2.WatchGameResponse(version=frame.version)
    view = seat_view(live, viewer, frame, recent, events, into=response.view)
    response.events.extend(view.events)
    response.content_version = view.content_version
    return response


class Fanout:
    """WatchGame and the pub/sub listener of one replica."""

    def __init__(self, core: Core, cache: GameCache, callers: Callers) -> None:
        self.core = core
        self.cache = cache
        self.callers = callers
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribed: dict[str, int] = {}
        # subscription confirmations still to come, per game (heard only once none is)
        self._unconfirmed: dict[str, int] = {}
        self._ready: dict[str, asyncio.Event] = {}  # set once the subscription is confirmed
        self._tasks: set[asyncio.Task[Any]] = set()

    async def watch(
        self, game_id: str, token: str, from_version: int
    ) -> AsyncIterator[game_pb2.WatchGameResponse]:
        """WatchGame: seat-filtered updates from `from_version` on, ending when the game ends."""
        live = await self.cache.get(game_id)
        caller = await self.callers.authenticate(live, token)
        await self.core.limit(token)
        await self.subscribe(game_id)
        live.watchers += 1
        metrics.WATCHERS.inc()
        try:
            await self.cache.sync(live)
            async for update in self._updates(live, caller.seat, from_version):
                yield update
        finally:
            live.watchers -= 1
            metrics.WATCHERS.dec()
            await self.unsubscribe(game_id)

    async def _updates(
        self, live: LiveGame, viewer: int | None, from_version: int
    ) -> AsyncIterator[game_pb2.WatchGameResponse]:
        """The stream of one watcher: the current view first (without `from_version`), then
        every version after the last one sent."""
        recent = self.core.settings.game_recent_events

        def head() -> int:
            return live.version if viewer is not None else spectator_head(live)

        if from_version <= 0:
            frame = await self.cache.frame_at(live, head())
            yield _response(live, viewer, frame, recent, None)
            sent = frame.version
        else:
            sent = min(from_version, head())
        while True:
            target = head()
            if target > sent:
                for frame in await self.cache.frames(live, sent, target):
                    events = live.events_for(frame, viewer)
                    yield _response(live, viewer, frame, recent, events)
                    sent = frame.version
                continue
            if live.result is not None and sent >= live.version:
                return
            await live.wait(5.0)
            if live.version == sent:
                await self.cache.sync(live)

    async def subscribe(self, game_id: str) -> None:
        """Follow a game's channel (the first watcher on this replica subscribes).

        Returns once Redis has confirmed the subscription (waiting at most `CONFIRM_WAIT_S`):
        a write is then either announced to this replica or already visible to the read
        that follows, so a new watcher misses none."""
        count = self._subscribed.get(game_id, 0)
        self._subscribed[game_id] = count + 1
        ready = self._ready.get(game_id)
        if not count:
            if self._pubsub is None:
                self._pubsub = self.core.redis.pubsub()
            ready = self._ready[game_id] = asyncio.Event()
            self._unconfirmed[game_id] = self._unconfirmed.get(game_id, 0) + 1
            await self._pubsub.subscribe(self.core.hot.channel(game_id))
            if self._listener is None or self._listener.done():
                self._listener = asyncio.create_task(self._listen())
        if ready is not None and not ready.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CONFIRM_WAIT_S):
                    await ready.wait()

    async def unsubscribe(self, game_id: str) -> None:
        """Stop following when the last watcher leaves."""
        count = self._subscribed.get(game_id, 0) - 1
        if count > 0:
            self._subscribed[game_id] = count
            return
        self._subscribed.pop(game_id, None)
        self._ready.pop(game_id, None)
        self.core.hot.heard.discard(game_id)  # before Redis stops counting this replica
        self._drop_lease(game_id)
        if self._pubsub is not None:
            await self._pubsub.unsubscribe(self.core.hot.channel(game_id))

    async def _listen(self) -> None:
        prefix = f"{self.core.settings.redis_prefix}game:"
        while self._pubsub is not None:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub listener failed; retrying")
                self._resubscribing()
                await asyncio.sleep(0.5)
                continue
            if message is None:
                if not self._subscribed:
                    await asyncio.sleep(0.05)
                continue
            channel = message["channel"]
            game_id = (channel.decode() if isinstance(channel, bytes) else channel).removeprefix(
                prefix
            )
            if message["type"] == "subscribe":
                self._confirmed(game_id)
                continue
            if message["type"] != "message":
                continue
            live = self.cache.games.get(game_id)
            if live is not None and is_news(live, message["data"]):
                live.lease = None  # another replica writes the game: take its lock again
                task = asyncio.create_task(self.cache.sync(live))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    def _confirmed(self, game_id: str) -> None:
        """Redis confirmed a subscription: once the last one asked for is, and the game is
        still followed, its own writes need not come back to this replica."""
        left = max(0, self._unconfirmed.get(game_id, 0) - 1)
        if left:
            self._unconfirmed[game_id] = left
            return
        self._unconfirmed.pop(game_id, None)
        if game_id in self._subscribed:
            self.core.hot.heard.add(game_id)
            ready = self._ready.get(game_id)
            if ready is not None:
                ready.set()

    def _drop_lease(self, game_id: str) -> None:
        """This replica no longer hears the game's channel: its next write takes the lock."""
        live = self.cache.games.get(game_id)
        if live is not None:
            live.lease = None

    def _resubscribing(self) -> None:
        """The pub/sub connection failed: until Redis confirms the subscriptions it renews,
        every write is announced to the channel again."""
        self.core.hot.heard.clear()
        for game_id in self._subscribed:
            self._drop_lease(game_id)  # a takeover may go unheard until Redis confirms again
        self._unconfirmed = dict.fromkeys(self._subscribed, 1)
        for ready in self._ready.values():
            ready.clear()

    async def close(self) -> None:
        """Stop the listener and the pub/sub connection."""
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None
        self.core.hot.heard.clear()
        if self._pubsub is not None:
            await self._pubsub.aclose()
            self._pubsub = None
