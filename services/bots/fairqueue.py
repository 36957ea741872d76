"""Search slots shared fairly between callers, and each player's search-time quota.

A `FairQueue` lets `slots` searches run at once; a request finding none free waits in its
caller's line, and lines are served round-robin, so one caller with many requests cannot
push the others back. A caller may hold at most `per_caller` requests (running or waiting),
and at most `max_waiting` requests wait in all; beyond either the request is refused at once
with RESOURCE_EXHAUSTED and a RetryInfo. BotService keeps two queues: the live lane for the
service credential and the analysis lane for players, so analysis traffic never delays the
platform's own bot decisions.

A `Quota` is a per-player token bucket of search milliseconds (`per_minute`, refilled
continuously): a search reserves its time budget before it starts and is refunded what it did
not use.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import grpc

from services.common.errors import RpcError


def exhausted(reason: str, message: str, retry_after: float, **meta: str) -> RpcError:
    """RESOURCE_EXHAUSTED with a reason and how long to wait."""
    return RpcError(
        grpc.StatusCode.RESOURCE_EXHAUSTED, reason, message, meta, retry_after=retry_after
    )


class FairQueue:
    """`slots` concurrent holders; waiting callers are served round-robin."""

    def __init__(self, name: str, slots: int, per_caller: int, max_waiting: int) -> None:
        self.name = name
        self.slots = max(1, slots)
        self.per_caller = max(1, per_caller)
        self.max_waiting = max(0, max_waiting)
        self._free = self.slots
        self._lines: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._held: dict[str, int] = {}
        self.waiting = 0

    @asynccontextmanager
    async def slot(self, caller: str, expected_s: float) -> AsyncIterator[None]:
        """Hold one slot for `caller` (waiting fairly for it); refuses when over a limit."""
        if self._held.get(caller, 0) >= self.per_caller:
            raise exhausted(
                "TOO_MANY_SEARCHES",
                f"at most {self.per_caller} searches per caller at once on the {self.name} "
                "lane: wait for one to finish",
                expected_s,
                limit=str(self.per_caller),
            )
        if self._free == 0 and self.waiting >= self.max_waiting:
            raise exhausted(
                "BOT_SERVICE_BUSY",
                f"every {self.name} search slot is taken and {self.waiting} searches wait",
                expected_s * (1 + self.waiting / self.slots),
            )
        self._held[caller] = self._held.get(caller, 0) + 1
        try:
            await self._acquire(caller)
            try:
                yield
            finally:
                self._release()
        finally:
            left = self._held[caller] - 1
            if left:
                self._held[caller] = left
            else:
                del self._held[caller]

    async def _acquire(self, caller: str) -> None:
        if self._free > 0 and not self._lines:
            self._free -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines.setdefault(caller, deque()).append(future)
        self.waiting += 1
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # the slot was handed over just as the caller left
            else:
                self._forget(caller, future)
            raise

    def _forget(self, caller: str, future: asyncio.Future[None]) -> None:
        line = self._lines.get(caller)
        if line is not None and future in line:
            line.remove(future)
            self.waiting -= 1
            if not line:
                del self._lines[caller]

    def _release(self) -> None:
        """Hand the freed slot to the next caller in round-robin order, or free it."""
        while self._lines:
            caller, line = next(iter(self._lines.items()))
            future = line.popleft()
            self.waiting -= 1
            if line:
                self._lines.move_to_end(caller)
            else:
                del self._lines[caller]
            if not future.done():
                future.set_result(None)
                return
        self._free += 1


@dataclass
class _Bucket:
    level: float
    stamp: float = field(default_factory=time.monotonic)


class Quota:
    """Per-caller search-time buckets: `per_minute` ms, refilled continuously."""

    def __init__(self, per_minute: dict[str, int]) -> None:
        self.per_minute = per_minute
        self._buckets: dict[str, _Bucket] = {}

    def _bucket(self, key: str, capacity: float) -> _Bucket:
        bucket = self._buckets.get(key)
        now = time.monotonic()
        if bucket is None:
            if len(self._buckets) > 100_000:
                self._buckets.clear()
            bucket = self._buckets[key] = _Bucket(capacity, now)
        else:
            bucket.level = min(capacity, bucket.level + (now - bucket.stamp) * capacity / 60)
            bucket.stamp = now
        return bucket

    def reserve(self, role: str, key: str, ms: float) -> None:
        """Take `ms` from the caller's bucket, or raise RESOURCE_EXHAUSTED with a retry delay."""
        capacity = self.per_minute.get(role)
        if capacity is None:
            return  # the role has no quota (the service credential)
        bucket = self._bucket(key, float(capacity))
        if ms > capacity:
            ms = float(capacity)  # a search as large as the whole quota needs a full bucket
        if bucket.level < ms:
            wait = (ms - bucket.level) * 60 / capacity
            raise exhausted(
                "SEARCH_QUOTA_EXHAUSTED",
                f"a {role} may search {capacity} ms per minute; this search needs {ms:.0f} ms "
                f"and {bucket.level:.0f} ms are left",
                wait,
                quota_ms_per_minute=str(capacity),
            )
        bucket.level -= ms

    def refund(self, role: str, key: str, ms: float) -> None:
        """Give back the unused part of a reservation."""
        capacity = self.per_minute.get(role)
        if capacity is None or ms <= 0:
            return
        bucket = self._bucket(key, float(capacity))
        bucket.level = min(float(capacity), bucket.level + ms)
