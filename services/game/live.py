"""A game held in one replica's memory: its rows, its head frame and the recent frames.

`LiveGame` is plain state shared by the authority's parts (cache, commands, owed work,
fan-out, queries); it does no I/O. `Frame` is the game at one version.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf import any_pb2

from services.game.models import GameRow, GameSeatRow
from warroom.api import convert, kinds
from warroom.engine.errors import RulesError
from warroom.engine.match import Match, MatchState
from warroom.engine.model import Decision, Event, Result
from warroom.engine.rules import Rules
from warroom.v1 import common_pb2

HUMAN, BOT = "human", "bot"


@dataclass(frozen=True, slots=True)
class Frame:
    """The game at one version: match state, the events of that version, the result if over."""

    version: int
    state: MatchState[Any]
    events: tuple[Event, ...]
    result: Result | None


@dataclass(frozen=True, slots=True)
class Lease:
    """The game's Redis lock kept idle by this replica between its writes (`writer.Writer`):
    the next write here takes no lock round trip while `until` (monotonic s) is ahead."""

    fence: str
    until: float


@dataclass(frozen=True, slots=True)
class Rendered:
    """What one viewer sees of `frame` that nothing later changes: the packed view and the
    decision (None when nothing is pending). Shared: never modified once built."""

    frame: Frame
    view: any_pb2.Any
    decision: common_pb2.Decision | None


class Logged(Protocol):
    """What the authority keeps of a log row: an `ActionRow` read from SQL, or a `LogEntry`."""

    @property
    def seq(self) -> int: ...
    @property
    def seat(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def decision_id(self) -> str: ...
    @property
    def option_id(self) -> str: ...
    @property
    def expected_version(self) -> int: ...
    @property
    def idempotency_key(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A log row this replica just wrote (a plain record: no ORM instrumentation)."""

    seq: int
    seat: int
    kind: str
    decision_id: str
    option_id: str
    expected_version: int
    idempotency_key: str | None


@dataclass(frozen=True, slots=True)
class Caller:
    """Who presented a token: a seat (None = spectator), and whether as that seat's bot."""

    seat: int | None
    bot: bool = False


class LiveGame:
    """A game held in one replica's memory."""

    def __init__(
        self, row: GameRow, rules: Rules[Any], seats: list[GameSeatRow], frame: Frame, keep: int
    ) -> None:
        self.row = row
        self.rules = rules
        self.match: Match[Any] = Match(rules)
        self.seats = seats
        self.frame = frame
        self.history: deque[Frame] = deque([frame], maxlen=keep)
        self.keys: dict[tuple[int, str], Logged] = {}
        self.lock = asyncio.Lock()
        self.lease: Lease | None = None
        self.behind: int | None = None
        """A version Redis held and SQL did not when a catch-up last stopped waiting for it."""
        self.stake_failed: int | None = None
        """A version this replica staked in Redis whose commit then failed (`Writer.stake`)."""
        self.epoch = 0
        self.touched = time.monotonic()
        self.watchers = 0
        self._changed = asyncio.Event()
        self.bot_tokens: dict[str, int] = {}
        self.event_cache: dict[tuple[int, int | None], list[common_pb2.GameEvent]] = {}
        self.rendered: dict[tuple[int, int | None], Rendered] = {}
        self.seat_cache: (
            tuple[tuple[int, int, int, int], list[common_pb2.Seat], MatchState[Any]] | None
        ) = None
        # seat and spectator tokens already matched by digest (digests never change)
        self.callers: dict[str, Caller] = {}
        # a finished game's replay hashes (per-version public view hashes, final state hash)
        self.replay_hashes: tuple[list[bytes], bytes] | None = None
        try:
            self.kind: int = kinds.game_kind(row.rules_id)
        except RulesError:
            self.kind = common_pb2.GAME_KIND_UNSPECIFIED

    def events_for(self, frame: Frame, viewer: int | None) -> list[common_pb2.GameEvent]:
        """The events of one frame a viewer may see, as messages (cached)."""
        key = (frame.version, viewer)
        cached = self.event_cache.get(key)
        if cached is None:
            if len(self.event_cache) > 4096:
                self.event_cache.clear()
            cached = convert.event_messages(frame.events, frame.version, viewer)
            self.event_cache[key] = cached
        return cached

    @property
    def id(self) -> str:
        """The game id."""
        return self.row.id

    @property
    def version(self) -> int:
        """The head version held here."""
        return self.frame.version

    @property
    def state(self) -> MatchState[Any]:
        """The match state at the head."""
        return self.frame.state

    @property
    def result(self) -> Result | None:
        """The result once over."""
        return self.frame.result

    def advance(self, frame: Frame, row: Logged | None = None) -> None:
        """Move to a new head and wake watchers."""
        self.frame = frame
        self.history.append(frame)
        if row is not None and row.idempotency_key:
            self.keys[(row.seat, row.idempotency_key)] = row
        self.notify()

    def notify(self) -> None:
        """Wake every watcher of this game."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait(self, seconds: float) -> None:
        """Wait for the next change (at most `seconds`)."""
        event = self._changed
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):  # no extra task, unlike wait_for
                await event.wait()

    def pending_for(self, seat: int) -> Decision | None:
        """The pending decision when this seat must act in it."""
        pending = self.state.pending
        if self.result is None and pending is not None and seat in pending.options:
            return pending
        return None
