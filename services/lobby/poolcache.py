"""The director's copy of each pool in memory, kept up to date from the pool's change log.

Redis stays the source of truth. Every script that adds a ticket to a pool or takes one out
(enqueue, claim, cancel, expiry, a released claim) also appends the change to the pool's
log, a Redis stream `P poollog:<game>:<queue>` (entries `a` ticket `d` data, or `r` ticket
ids separated by spaces), trimmed to about `LOG_MAX` entries. A cycle reads only the
entries after the last one it applied, so it decodes the tickets that arrived since, not
the whole pool (as Open Match's ticket cache does).

A full resync (HGETALL of the pool's data, in the same transaction as a marker entry that
becomes the cursor) happens on the first read, when the cursor entry is gone from the log
(trimmed past it, or Redis lost its data), when the copy's size differs from the pool's,
and every `resync_s` at the latest. A stale copy cannot match anything twice or match a
cancelled ticket (the claim script checks each ticket's status in Redis); it could only
leave a waiting ticket out of a cycle until the next resync.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from warroom.matchmaking import BotChoice, Ticket

# Entries a pool's log keeps (about: trimmed with MAXLEN ~); a director that falls further
# behind than this between two reads resyncs.
LOG_MAX = 20_000
# A full resync at least this often (a safety net; deltas keep the copy exact).
RESYNC_S = 60.0

_BOTS: dict[tuple[str, str], BotChoice] = {}


def parse_ticket(ticket_id: str, raw: str | bytes) -> Ticket:
    """A ticket back from its stored match data."""
    return _ticket(ticket_id, json.loads(raw))


def parse_tickets(ticket_ids: Sequence[bytes], raws: Sequence[bytes]) -> list[Ticket]:
    """Many tickets back from their stored match data (one JSON decode for all)."""
    if not raws:
        return []
    decoded = json.loads(b"[" + b",".join(raws) + b"]")
    return [_ticket(tid.decode(), d) for tid, d in zip(ticket_ids, decoded, strict=True)]


def _ticket(ticket_id: str, d: dict[str, Any]) -> Ticket:
    key = (d["k"], d["d"])
    bot = _BOTS.get(key)
    if bot is None:
        bot = _BOTS.setdefault(key, BotChoice(*key)) if len(_BOTS) < 256 else BotChoice(*key)
    return Ticket(
        ticket_id,
        tuple(d["p"]),
        tuple(d["r"]),
        float(d["c"]),
        tuple(d["v"]),
        tuple(d["s"]),
        bool(d["b"]),
        float(d["f"]),
        bot,
        tuple(d.get("n", ())),
    )


@dataclass
class _Copy:
    """One pool as last read: ticket id -> (stored data, parsed ticket), and the log entry
    applied last."""

    cursor: str
    synced_at: float
    tickets: dict[bytes, tuple[bytes, Ticket]] = field(default_factory=dict)


@dataclass
class SyncStats:
    """How the copies were brought up to date (counts since the cache was made)."""

    resyncs: int = 0
    deltas: int = 0
    applied: int = 0


class PoolCache:
    """Each pool's searching tickets, in memory, synced from the pool's change log."""

    def __init__(self, client: aioredis.Redis, prefix: str, resync_s: float = RESYNC_S) -> None:
        self.redis = client
        self.prefix = prefix
        self.resync_s = resync_s
        self.stats = SyncStats()
        self._copies: dict[str, _Copy] = {}

    def log_key(self, game: str, queue: str) -> str:
        """The pool's change log (a stream)."""
        return f"{self.prefix}poollog:{game}:{queue}"

    def data_key(self, game: str, queue: str) -> str:
        """The pool's match data (ticket id -> data)."""
        return f"{self.prefix}pooldata:{game}:{queue}"

    def forget(self) -> None:
        """Drop every copy (the next read of each pool resyncs)."""
        self._copies.clear()

    async def tickets(self, game: str, queue: str) -> list[Ticket]:
        """Every searching ticket of a pool, as the match function's input."""
        key = self.data_key(game, queue)
        copy = self._copies.get(key)
        if (
            copy is None
            or time.monotonic() - copy.synced_at > self.resync_s
            or not await self._catch_up(game, queue, copy)
        ):
            copy = await self._resync(game, queue, copy)
        self._copies[key] = copy
        return [ticket for _, ticket in copy.tickets.values()]

    async def _resync(self, game: str, queue: str, before: _Copy | None) -> _Copy:
        """The whole pool read again (tickets whose data did not change keep their parse)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.xadd(self.log_key(game, queue), {"s": b""}, maxlen=LOG_MAX, approximate=True)
        pipe.hgetall(self.data_key(game, queue))
        cursor, raw = await pipe.execute()
        old = before.tickets if before is not None else {}
        tickets: dict[bytes, tuple[bytes, Ticket]] = {}
        fresh: list[bytes] = []
        for tid, data in raw.items():
            seen = old.get(tid)
            if seen is not None and seen[0] == data:
                tickets[tid] = seen
            else:
                fresh.append(tid)
        for tid, ticket in zip(fresh, parse_tickets(fresh, [raw[t] for t in fresh]), strict=True):
            tickets[tid] = (raw[tid], ticket)
        self.stats.resyncs += 1
        return _Copy(_id(cursor), time.monotonic(), tickets)

    async def _catch_up(self, game: str, queue: str, copy: _Copy) -> bool:
        """Apply the log entries after the cursor; False when the copy cannot be trusted
        (the cursor entry is gone, or the sizes differ): resync then."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.xrange(self.log_key(game, queue), min=copy.cursor)
        pipe.hlen(self.data_key(game, queue))
        entries, size = await pipe.execute()
        if not entries or _id(entries[0][0]) != copy.cursor:
            return False
        tickets = copy.tickets
        added: dict[bytes, bytes] = {}
        for _, fields in entries[1:]:
            tid = fields.get(b"a")
            if tid is not None:
                data = fields[b"d"]
                seen = tickets.get(tid)
                if seen is None or seen[0] != data:
                    added[tid] = data
                    tickets.pop(tid, None)
                continue
            gone = fields.get(b"r")
            if gone:
                for tid in gone.split(b" "):
                    tickets.pop(tid, None)
                    added.pop(tid, None)
        ids = list(added)
        for tid, ticket in zip(ids, parse_tickets(ids, list(added.values())), strict=True):
            tickets[tid] = (added[tid], ticket)
        copy.cursor = _id(entries[-1][0])
        self.stats.deltas += 1
        self.stats.applied += len(entries) - 1
        return len(tickets) == int(size)


def _id(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
