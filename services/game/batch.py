"""Coalescing of concurrent calls into batches (group commit, batched Redis round trips).

Callers `await batcher(item)`; up to `parallel` runs are in flight at once and each takes
every queued item (at most `limit`). A lone call runs at once; under load one run (one SQL
transaction, one Redis round trip) answers many callers.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

In = TypeVar("In")
Out = TypeVar("Out")

Run = Callable[[list[In]], Awaitable[Sequence[Out | BaseException]]]


class Batcher(Generic[In, Out]):
    """Runs `run(items)` on batches of queued items; each caller gets its own outcome.

    `run` returns one outcome per item, in order: a value, or an exception raised to that
    caller. An exception raised by `run` itself is raised to every caller of the batch.
    """

    def __init__(
        self,
        run: Run[In, Out],
        parallel: int = 1,
        limit: int = 256,
        on_batch: Callable[[int], None] | None = None,
    ) -> None:
        self.run = run
        self.parallel = max(1, parallel)
        self.limit = max(1, limit)
        self.on_batch = on_batch
        self.queue: deque[tuple[In, asyncio.Future[Out]]] = deque()
        self.active = 0
        self.batches = 0
        self.items = 0
        self._tasks: set[asyncio.Future[None]] = set()

    @property
    def idle(self) -> bool:
        """Nothing queued and no run in flight (a call now would run alone)."""
        return not self.queue and not self.active

    async def __call__(self, item: In) -> Out:
        """Queue one item and wait for its outcome."""
        return await self.enqueue(item)

    def enqueue(self, item: In) -> asyncio.Future[Out]:
        """Queue one item now and return the future of its outcome (with `parallel` 1, items
        run in the order they were queued)."""
        future: asyncio.Future[Out] = asyncio.get_running_loop().create_future()
        self.queue.append((item, future))
        if self.active < self.parallel:
            self.active += 1
            task = asyncio.ensure_future(self._drain())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return future

    async def _drain(self) -> None:
        try:
            while self.queue:
                taken = [self.queue.popleft() for _ in range(min(self.limit, len(self.queue)))]
                self.batches += 1
                self.items += len(taken)
                if self.on_batch is not None:
                    self.on_batch(len(taken))
                outcomes: Sequence[Out | BaseException]
                try:
                    outcomes = await self.run([item for item, _f in taken])
                except Exception as exc:
                    outcomes = [exc] * len(taken)
                for (_item, future), outcome in zip(taken, outcomes, strict=True):
                    if future.done():
                        continue
                    if isinstance(outcome, BaseException):
                        future.set_exception(outcome)
                    else:
                        future.set_result(outcome)
        finally:
            self.active -= 1
