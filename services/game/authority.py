"""The authority core: loads games, validates and applies actions, builds seat views.

gRPC-agnostic (the servicer in `service.py` maps `GameError` to statuses). One
`Authority` per replica keeps live games in memory; SQL is the truth and Redis
coordinates replicas:

* a writer takes the per-game Redis lock (a fence), catches up from SQL if
  another replica moved the game, validates, appends the log row with a SQL
  compare-and-set on `games.version` (the real fence: of two writers exactly one
  commits), then publishes the new version on the game's channel;
* readers compare the Redis version with their copy and catch up from SQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import re
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol, TypeVar

import redis.asyncio as aioredis
from google.protobuf import json_format
from sqlalchemy.engine import Engine

from services.common.auth import bot_seat_token, token_digest
from services.common.logging import get_logger
from services.common.settings import Settings
from services.game import errors, metrics
from services.game.batch import Batcher
from services.game.hot import Hot, LockTimeout
from services.game.models import ACTIVE, FINISHED, ActionRow, GameRow, GameSeatRow
from services.game.ratelimit import SharedRateLimiter
from services.game.store import Append, Conflict, Loaded, Store, now
from warroom.api import convert, kinds
from warroom.engine.errors import RulesError
from warroom.engine.match import Match, MatchState
from warroom.engine.model import Decision, Event, Result
from warroom.engine.registry import get_rules
from warroom.engine.rules import Rules
from warroom.v1 import common_pb2, game_pb2

log = get_logger("game.authority")
T = TypeVar("T")

GAME_ID = re.compile(r"^[0-9a-f]{32}$")
MAX_ID = 256
HUMAN, BOT = "human", "bot"
DEFAULT_BOT = {"kind": "heuristic"}


class Scheduler(Protocol):
    """Where the authority sends background work (Celery in production)."""

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        """A bot seat owes a decision at `version`."""

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        """Check the seat's clock at `eta` (stale when the version moved)."""


class NullScheduler:
    """Drops background work (benchmarks and tests without clocks or bots)."""

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        """Ignore."""

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        """Ignore."""


@dataclass(frozen=True, slots=True)
class Frame:
    """The game at one version: match state, the events of that version, the result if over."""

    version: int
    state: MatchState[Any]
    events: tuple[Event, ...]
    result: Result | None


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


@dataclass
class Plan:
    """Seat changes that go with a write, and the background work to send after it commits."""

    updates: dict[int, dict[str, Any]] = field(default_factory=dict)
    bots: list[int] = field(default_factory=list)
    clocks: list[tuple[int, str, int, datetime]] = field(default_factory=list)


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
        self.epoch = 0
        self.touched = time.monotonic()
        self.watchers = 0
        self._changed = asyncio.Event()
        self.bot_tokens: dict[str, int] = {}
        self.event_cache: dict[tuple[int, int | None], list[common_pb2.GameEvent]] = {}
        self.seat_cache: (
            tuple[tuple[int, int, int, int], list[common_pb2.Seat], MatchState[Any]] | None
        ) = None
        # seat and spectator tokens already matched by digest (digests never change)
        self.callers: dict[str, Caller] = {}
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
            await asyncio.wait_for(event.wait(), seconds)

    def pending_for(self, seat: int) -> Decision | None:
        """The pending decision when this seat must act in it."""
        pending = self.state.pending
        if self.result is None and pending is not None and seat in pending.options:
            return pending
        return None


def resign_result(rules: Rules[Any], state: MatchState[Any], seat: int, reason: str) -> Result:
    """The result when a seat resigns or forfeits.

    A game may define `resign(state, seat) -> Result` (its ranking; the reason is
    this call's); otherwise the seat (and its team) rank last and the other seats
    rank by `scores(state)` when the rules define it (else they tie for first).
    """
    hook = getattr(rules, "resign", None)
    if callable(hook):
        result = hook(state.game, seat)
        if isinstance(result, Result):
            return Result(result.scores, result.winners, result.ranks, reason)
    seats = list(rules.seats(state.game))
    team = next((s.team for s in seats if s.index == seat), "")
    losers = {s.index for s in seats if s.index == seat or (team and s.team == team)}
    scorer = getattr(rules, "scores", None)
    scores: dict[int, float] = {s.index: 0.0 for s in seats}
    if callable(scorer):
        scores.update({int(k): float(v) for k, v in dict(scorer(state.game)).items()})
    remaining = [s.index for s in seats if s.index not in losers]
    levels = sorted({scores[i] for i in remaining}, reverse=True)
    ranks = {i: levels.index(scores[i]) for i in remaining}
    for i in losers:
        ranks[i] = len(levels)
    winners = frozenset(i for i in remaining if ranks[i] == 0)
    return Result(scores, winners, ranks, reason)


def _step_row(live_rules: Rules[Any], match: Match[Any], frame: Frame, row: Any) -> Frame:
    if row.kind == "option":
        step = match.apply(frame.state, row.seat, row.option_id)
        result = live_rules.result(step.state.game) if step.state.over else None
        return Frame(row.seq, step.state, step.events, result)
    reason = "resignation" if row.kind == "resign" else "forfeit"
    verb = "resigned" if row.kind == "resign" else "forfeited on time"
    result = resign_result(live_rules, frame.state, row.seat, reason)
    return Frame(row.seq, frame.state, (Event(f"seat {row.seat} {verb}", kind=row.kind),), result)


def _clock(row: GameSeatRow) -> dict[str, Any] | None:
    clock = row.clock
    if not clock or clock.get("mode") not in (
        common_pb2.ClockSpec.MODE_LIVE,
        common_pb2.ClockSpec.MODE_CORRESPONDENCE,
    ):
        return None
    return clock


class Authority:
    """The game-state authority of one replica."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        client: aioredis.Redis,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.settings = settings
        self.store = Store(engine)
        self.hot = Hot(client, settings.redis_prefix, settings.game_lock_ms)
        self.redis = client
        self.scheduler: Scheduler = scheduler or NullScheduler()
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.pool = ThreadPoolExecutor(max(2, settings.db_pool_size), thread_name_prefix="game-db")
        self.limiter = SharedRateLimiter(
            client,
            settings.redis_prefix,
            settings.game_rate_per_second,
            settings.game_rate_burst,
            settings.game_rate_lease,
        )
        self.committer: Batcher[tuple[str, int, Append], None] = Batcher(
            self._commit_many,
            settings.game_commit_parallel,
            limit=128,
            on_batch=metrics.BATCH.labels("commit").observe,
        )
        # One creation batch in flight: the creations that arrive meanwhile share the next
        # transaction (measured through gRPC, 16 concurrent calls: batches of ~6 instead of ~3
        # and ~20% less authority CPU per game than with two in flight).
        self.creator: Batcher[tuple[GameRow, list[GameSeatRow]], GameRow] = Batcher(
            self._create_many, 1, limit=128, on_batch=metrics.BATCH.labels("create").observe
        )
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribed: dict[str, int] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ plumbing
    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking SQL call in the pool."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, partial(fn, *args))

    async def _commit_many(self, items: list[tuple[str, int, Append]]) -> list[Exception | None]:
        """Group commit: the queued appends of different games in one SQL transaction."""
        return await self.db(self.store.append_many, items)

    async def _create_many(
        self, items: list[tuple[GameRow, list[GameSeatRow]]]
    ) -> list[GameRow | Exception]:
        """Group commit: the queued new games in one SQL transaction."""
        return await self.db(self.store.create_many, items)

    async def close(self) -> None:
        """Stop background work."""
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None
        if self._pubsub is not None:
            await self._pubsub.aclose()
            self._pubsub = None
        self.pool.shutdown(wait=False)

    async def limit(self, token: str) -> None:
        """Apply the per-token rate limit (shared by every replica)."""
        wait = await self.limiter.take(token)
        if wait > 0:
            raise errors.exhausted(f"too many requests for this token: retry in {wait:.2f}s", wait)

    def _keep(self, row: GameRow) -> int:
        return max(64, row.spectator_delay_versions + 8)

    # ------------------------------------------------------------------ loading
    def _build(self, loaded: Loaded) -> tuple[Frame, list[Frame], list[ActionRow]]:
        row = loaded.game
        rules = get_rules(row.rules_id)
        match: Match[Any] = Match(rules)
        if loaded.snapshot is not None:
            state = convert.restore(rules, loaded.snapshot.data)
            frame = Frame(loaded.snapshot.version, state, (), None)
        else:
            state = match.start(int(row.seed), row.variant, dict(row.options))
            frame = Frame(0, state, (), None)
        if frame.state.over:
            frame = Frame(frame.version, frame.state, (), rules.result(frame.state.game))
        frames = [frame]
        for action in loaded.actions:
            frame = _step_row(rules, match, frame, action)
            frames.append(frame)
        return frame, frames, loaded.actions

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
            loaded = await self.db(self.store.load, game_id)
            if loaded is None:
                self._loading.pop(game_id, None)
                raise errors.not_found(f"no game {game_id}", game_id=game_id)
            _head, frames, actions = await self.db(self._build, loaded)
            live = self._live(loaded.game, get_rules(loaded.game.rules_id), loaded.seats, frames)
            for action in actions:
                if action.idempotency_key:
                    live.keys[(action.seat, action.idempotency_key)] = action
            cached, epoch = await self.hot.state(game_id)
            if cached is None or cached < live.version:
                await self.hot.set_version(game_id, live.version)
            if epoch is None:
                await self.hot.set_epoch(game_id, 0)
                epoch = 0
            live.epoch = epoch
            self.games[game_id] = live
            self._loading.pop(game_id, None)
            metrics.LIVE.set(len(self.games))
            if live.result is None:
                await self._reconcile(live)
            return live

    def _live(
        self, row: GameRow, rules: Rules[Any], seats: list[GameSeatRow], frames: list[Frame]
    ) -> LiveGame:
        keep = self._keep(row)
        live = LiveGame(row, rules, seats, frames[-1], keep)
        live.history = deque(frames[-keep:], maxlen=keep)
        live.bot_tokens = {
            bot_seat_token(self.settings.secret(), row.id, s.seat): s.seat for s in seats
        }
        return live

    async def _reconcile(self, live: LiveGame) -> None:
        """After a (re)load: re-send the bot turn or clock check the current decision may owe."""
        pending = live.state.pending
        if pending is None or live.result is not None:
            return
        plan = Plan()
        for seat in pending.seats:
            row = live.seats[seat]
            if row.controller == BOT:
                plan.bots.append(seat)
            elif row.clock_deadline is not None and row.clock_version is not None:
                plan.clocks.append((seat, pending.id, row.clock_version, row.clock_deadline))
        await self._dispatch(live, plan)

    async def refresh(self, live: LiveGame, version: int | None, epoch: int | None) -> None:
        """Catch up with SQL when Redis says another replica moved the game (or knows nothing)."""
        if version is None:
            head = await self.db(self.store.head, live.id)
            version = head if head is not None else live.version
            await self.hot.set_version(live.id, version)
        moved = False
        if version > live.version:
            rows = await self.db(self.store.actions_after, live.id, live.version)
            for row in rows:
                if row.seq != live.version + 1:
                    break
                live.advance(_step_row(live.rules, live.match, live.frame, row), row)
                moved = True
        if moved or epoch is None or epoch != live.epoch:
            live.seats = await self.db(self.store.seats, live.id)
            if epoch is None:
                await self.hot.set_epoch(live.id, 0)
                _, epoch = await self.hot.state(live.id)
            live.epoch = epoch or 0
            if moved and live.result is not None:
                live.row.status = FINISHED

    async def sync(self, live: LiveGame) -> None:
        """Bring a live game up to date with Redis (readers)."""
        version, epoch = await self.hot.state(live.id)
        if version != live.version or epoch != live.epoch:
            async with live.lock:
                await self.refresh(live, version, epoch)

    # ------------------------------------------------------------------ auth
    async def authenticate(self, live: LiveGame, token: str) -> Caller:
        """The caller of a token; raises PERMISSION_DENIED."""
        caller = self._match_token(live, token)
        if caller is None and token.startswith("bot."):
            live.seats = await self.db(self.store.seats, live.id)
            caller = self._match_token(live, token)
        if caller is None:
            metrics.REJECTS.labels("PERMISSION_DENIED").inc()
            parts = token.split(".")
            if len(parts) == 4 and parts[0] == "wr" and parts[1] != live.id:
                raise errors.denied(
                    "FOREIGN_TOKEN",
                    f"this token belongs to game {parts[1][:32]}, not to game {live.id}",
                    game_id=live.id,
                )
            if token.startswith("bot.") and token in live.bot_tokens:
                seat = live.bot_tokens[token]
                raise errors.denied(
                    "SEAT_NOT_BOT",
                    f"seat {seat} of game {live.id} is not played by a bot now",
                    game_id=live.id,
                )
            raise errors.denied(
                "BAD_TOKEN" if token else "MISSING_TOKEN",
                f"the token is not valid for game {live.id}" if token else "a token is required",
                game_id=live.id,
            )
        if caller.seat is not None and not caller.bot:
            row = live.seats[caller.seat]
            if row.controller == BOT and row.bot is None and not row.reclaim:
                await self._mark_reclaim(live, caller.seat)
        return caller

    def _match_token(self, live: LiveGame, token: str) -> Caller | None:
        if not token:
            return None
        if token.startswith("bot."):
            seat = live.bot_tokens.get(token)
            if seat is not None and live.seats[seat].controller == BOT:
                return Caller(seat, bot=True)
            return None
        known = live.callers.get(token)
        if known is not None:
            return known
        digest = token_digest(token)
        found: Caller | None = None
        for row in live.seats:
            if hmac.compare_digest(digest, row.token_digest):
                found = Caller(row.seat)
        spectator = live.row.spectator_token_digest
        if spectator and live.row.allow_spectators and hmac.compare_digest(digest, spectator):
            found = Caller(None)
        if found is not None:
            live.callers[token] = found
        return found

    async def _mark_reclaim(self, live: LiveGame, seat: int) -> None:
        await self.db(self.store.update_seats, live.id, {seat: {"reclaim": True}})
        live.seats[seat].reclaim = True
        live.epoch = await self.hot.bump_epoch(live.id)
        await self.hot.publish(live.id, {"s": live.epoch})

    # ------------------------------------------------------------------ create
    def _tokens(self, game_id: str, salt: str, count: int) -> tuple[list[str], str]:
        secret = self.settings.secret()
        seats = [
            f"wr.{game_id}.{i}."
            + hmac.new(secret, f"seat:{game_id}:{i}:{salt}".encode(), "sha256").hexdigest()[:40]
            for i in range(count)
        ]
        spectator = (
            f"wr.{game_id}.s."
            + hmac.new(secret, f"spectator:{game_id}:{salt}".encode(), "sha256").hexdigest()[:40]
        )
        return seats, spectator

    async def create(self, request: game_pb2.CreateGameRequest) -> game_pb2.CreateGameResponse:
        """Create a game (the caller's service credential is checked by the servicer).

        A used `request_id` answers with the game it created: the grouped insert meets the
        unique request_id and the store returns the stored game (no read before the write).
        """
        try:
            rules_id = request.rules_id or kinds.game_id(request.game)
            rules = get_rules(rules_id)
        except (RulesError, ImportError) as exc:
            raise errors.invalid(
                "UNKNOWN_GAME", f"cannot host this game: {exc}", field="game"
            ) from exc
        variant = request.variant or rules.variants()[0].id
        seed = request.seed or secrets.randbits(63)
        match: Match[Any] = Match(rules)
        try:
            state = match.start(seed, variant, dict(request.options))
        except RulesError as exc:
            raise errors.invalid("BAD_SETUP", str(exc), field="variant") from exc
        infos = list(rules.seats(state.game))
        if len(request.seats) != len(infos):
            raise errors.invalid(
                "SEAT_COUNT",
                f"variant {variant!r} has {len(infos)} seats, the request names {len(request.seats)}",
                field="seats",
            )
        game_id = secrets.token_hex(16)
        salt = secrets.token_hex(16)
        tokens, spectator = self._tokens(game_id, salt, len(infos))
        stamp = now()
        row = GameRow(
            id=game_id,
            rules_id=rules_id,
            variant=variant,
            options=dict(request.options),
            seed=str(seed),
            salt=salt,
            status=ACTIVE,
            version=0,
            allow_spectators=request.allow_spectators,
            spectator_delay_versions=max(0, request.spectator_delay_versions),
            spectator_token_digest=token_digest(spectator) if request.allow_spectators else None,
            request_id=request.request_id or None,
            created_at=stamp,
            updated_at=stamp,
        )
        seats = []
        for index, spec in enumerate(request.seats):
            is_bot = bool(spec.bot.kind)
            if not is_bot and not spec.player_id:
                raise errors.invalid(
                    "BAD_SEAT",
                    f"seat {index} needs a player_id or a bot spec",
                    field=f"seats[{index}]",
                )
            clock = (
                json_format.MessageToDict(
                    spec.clock, preserving_proto_field_name=True, use_integers_for_enums=True
                )
                if spec.HasField("clock")
                else None
            )
            seats.append(
                GameSeatRow(
                    game_id=game_id,
                    seat=index,
                    player_id=spec.player_id,
                    display_name=spec.display_name or (spec.bot.kind if is_bot else spec.player_id),
                    token_digest=token_digest(tokens[index]),
                    bot=json_format.MessageToDict(spec.bot, preserving_proto_field_name=True)
                    if is_bot
                    else None,
                    clock=clock,
                    controller=BOT if is_bot else HUMAN,
                    reclaim=False,
                    clock_remaining_ms=int(spec.clock.initial_seconds) * 1000 if clock else None,
                )
            )
        plan = Plan()
        _start_decision(seats, None, state.pending, 0, stamp, plan)
        for seat, changes in plan.updates.items():
            for key, value in changes.items():
                setattr(seats[seat], key, value)
        stored = await self.creator((row, seats))
        if stored.id != game_id:
            return await self._created(await self.get(stored.id))
        frame = Frame(0, state, (), rules.result(state.game) if state.over else None)
        live = self._live(row, rules, seats, [frame])
        await self.hot.init(game_id, 0, 0)
        self.games[game_id] = live
        metrics.LIVE.set(len(self.games))
        if live.result is None:
            await self._reconcile(live)
        log.debug("game created", game_id=game_id, rules=rules_id, variant=variant)
        return await self._created(live, (tokens, spectator))

    async def _created(
        self, live: LiveGame, minted: tuple[list[str], str] | None = None
    ) -> game_pb2.CreateGameResponse:
        tokens, spectator = minted or self._tokens(live.id, live.row.salt, len(live.seats))
        return game_pb2.CreateGameResponse(
            game_id=live.id,
            seat_tokens=["" if s.bot is not None else tokens[s.seat] for s in live.seats],
            spectator_token=spectator if live.row.allow_spectators else "",
            seats=self.seat_messages(live, live.state),
            seed=int(live.row.seed),
        )

    # ------------------------------------------------------------------ views
    def seat_messages(self, live: LiveGame, state: MatchState[Any]) -> list[common_pb2.Seat]:
        """The seats with who plays them (shared by every view of one version and seat state)."""
        key = (live.version, live.epoch, id(live.seats), id(state))
        cached = live.seat_cache
        if cached is not None and cached[0] == key:
            return cached[1]  # (the cache holds `state`, so its id is not reused meanwhile)
        out = convert.seat_messages(live.rules.seats(state.game))
        for message, row in zip(out, live.seats, strict=False):
            message.player_id = row.player_id
            message.display_name = row.display_name
            message.is_bot = row.controller == BOT
            if row.controller == BOT:
                spec = row.bot or (row.clock or {}).get("fallback_bot") or DEFAULT_BOT
                json_format.ParseDict(spec, message.bot, ignore_unknown_fields=True)
        live.seat_cache = (key, out, state)
        return out

    def seat_view(
        self,
        live: LiveGame,
        viewer: int | None,
        frame: Frame,
        events: Sequence[common_pb2.GameEvent] | None = None,
    ) -> game_pb2.SeatView:
        """What `viewer` (None = spectator) sees of the game at `frame`."""
        state = frame.state
        view = game_pb2.SeatView(
            game_id=live.id,
            game=live.kind,  # type: ignore[arg-type]
            variant=live.row.variant,
            version=frame.version,
            seat=-1 if viewer is None else viewer,
            seats=self.seat_messages(live, state),
            rules_id=live.row.rules_id,
        )
        view.view.Pack(live.rules.view(state.game, viewer))
        if frame.result is None and state.pending is not None:
            decision = convert.decision_message(state.pending, frame.version, viewer)
            if decision is not None:
                view.decision.CopyFrom(decision)
            if viewer is not None and frame is live.frame and viewer in state.pending.options:
                row = live.seats[viewer]
                if row.clock_deadline is not None and row.controller == HUMAN:
                    view.clock_deadline.FromDatetime(row.clock_deadline)
        if events is None:
            events = self.recent_events(live, viewer, frame.version)
        view.events.extend(events)
        if frame.result is not None:
            result = convert.result_message(frame.result)
            if result is not None:
                view.result.CopyFrom(result)
        return view

    def recent_events(
        self, live: LiveGame, viewer: int | None, upto: int
    ) -> list[common_pb2.GameEvent]:
        """The viewer's visible events of the remembered versions up to `upto`."""
        limit = self.settings.game_recent_events
        chunks: list[list[common_pb2.GameEvent]] = []
        count = 0
        for frame in reversed(live.history):
            if frame.version > upto or not frame.events:
                continue
            visible = live.events_for(frame, viewer)
            if visible:
                chunks.append(visible)
                count += len(visible)
                if count >= limit:
                    break
        out = [event for chunk in reversed(chunks) for event in chunk]
        return out[-limit:]

    async def frames(self, live: LiveGame, after: int, upto: int) -> list[Frame]:
        """The frames of versions after+1 .. upto (from memory, else rebuilt from SQL)."""
        if upto <= after:
            return []
        kept = [f for f in live.history if after < f.version <= upto]
        if kept and kept[0].version == after + 1 and kept[-1].version == upto:
            return kept
        loaded = await self.db(self.store.load, live.id, upto)
        if loaded is None:
            raise errors.not_found(f"no game {live.id}")
        if loaded.snapshot is not None and loaded.snapshot.version > after:
            loaded = Loaded(loaded.game, loaded.seats, None, [], loaded.result)
            loaded.actions = await self.db(self.store.actions_after, live.id, 0, upto)
        _, built, _ = await self.db(self._build, loaded)
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

    async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
        """GetView."""
        live = await self.get(game_id)
        caller = await self.authenticate(live, token)
        if self.limiter.take_leased(token):
            await self.sync(live)
        else:
            await asyncio.gather(self.limit(token), self.sync(live))
        if caller.seat is None:
            frame = await self.frame_at(live, self._spectator_head(live))
            return self.seat_view(live, None, frame)
        return self.seat_view(live, caller.seat, live.frame)

    def _spectator_head(self, live: LiveGame) -> int:
        if live.result is not None:
            return live.version
        return max(0, live.version - live.row.spectator_delay_versions)

    # ------------------------------------------------------------------ actions
    def _check(
        self,
        live: LiveGame,
        caller: Caller,
        seat: int,
        expected_version: int,
        decision_id: str,
        option_id: str,
    ) -> None:
        if live.result is not None:
            raise errors.precondition(
                "GAME_OVER", f"game {live.id} is over (version {live.version}): no more actions"
            )
        row = live.seats[seat]
        if row.controller == BOT and not caller.bot:
            raise errors.precondition(
                "SEAT_PLAYED_BY_BOT",
                f"a bot plays seat {seat} for the current decision; you take the seat back "
                "at its next decision",
            )
        pending = live.state.pending
        assert pending is not None
        if expected_version != live.version:
            if pending.id == decision_id and pending.find(seat, option_id) is not None:
                return
            raise errors.aborted(
                "STALE_VERSION",
                f"expected_version {expected_version} is stale: game {live.id} is at version "
                f"{live.version}; read the view again and choose from its decision",
                current_version=str(live.version),
            )
        if decision_id != pending.id:
            raise errors.invalid(
                "UNKNOWN_DECISION",
                f"decision_id {decision_id[:64]!r} is not the pending decision "
                f"{pending.id!r} at version {live.version}",
                field="decision_id",
            )
        if seat not in pending.options:
            acting = ", ".join(str(s) for s in pending.seats)
            raise errors.precondition(
                "NOT_YOUR_DECISION",
                f"seat {seat} does not act in decision {pending.id} ({pending.kind}); "
                f"waiting for seat(s) {acting}",
            )
        if pending.find(seat, option_id) is None:
            raise errors.invalid(
                "UNKNOWN_OPTION",
                f"option {option_id[:64]!r} is not a legal option of seat {seat} in decision "
                f"{pending.id} ({pending.kind})",
                field="option_id",
            )

    async def _prior(
        self,
        live: LiveGame,
        prior: Logged,
        seat: int,
        expected_version: int,
        decision_id: str,
        option_id: str,
    ) -> tuple[int, game_pb2.SeatView]:
        if (prior.expected_version, prior.decision_id, prior.option_id) != (
            expected_version,
            decision_id,
            option_id,
        ):
            metrics.REJECTS.labels("ALREADY_EXISTS").inc()
            raise errors.already_exists(
                f"idempotency key {prior.idempotency_key!r} was used at version {prior.seq} "
                f"for option {prior.option_id!r} of decision {prior.decision_id} "
                f"(expected_version {prior.expected_version}); use a new key for a new action",
                version=str(prior.seq),
            )
        frame = await self.frame_at(live, prior.seq)
        return prior.seq, self.seat_view(live, seat, frame)

    async def submit(
        self,
        game_id: str,
        token: str,
        expected_version: int,
        decision_id: str,
        option_id: str,
        key: str,
    ) -> tuple[int, game_pb2.SeatView]:
        """SubmitAction: validate, append durably, publish; returns (version, view)."""
        for name, value in (("decision_id", decision_id), ("option_id", option_id)):
            if not value or len(value) > MAX_ID:
                raise errors.invalid(
                    "MALFORMED_ID", f"{name} must be 1-{MAX_ID} characters", field=name
                )
        if len(key) > 128:
            raise errors.invalid(
                "MALFORMED_ID",
                "idempotency_key must be at most 128 characters",
                field="idempotency_key",
            )
        live = await self.get(game_id)
        caller = await self.authenticate(live, token)
        if caller.seat is None:
            await self.limit(token)
            raise errors.denied("SPECTATOR", "a spectator token cannot act", game_id=game_id)
        seat = caller.seat
        plan = Plan()
        async with live.lock:
            # the rate limit and the writer lock in parallel (one round trip of latency)
            wait_s = self.settings.game_lock_ms / 1000
            limited: BaseException | None = None
            acquired: tuple[str, int | None, int | None] | BaseException
            if self.limiter.take_leased(token):
                try:
                    acquired = await self.hot.acquire(game_id, wait_s)
                except LockTimeout as exc:
                    acquired = exc
            else:
                limited, acquired = await asyncio.gather(
                    self.limit(token), self.hot.acquire(game_id, wait_s), return_exceptions=True
                )
            if isinstance(acquired, BaseException):
                if isinstance(limited, BaseException):
                    raise limited
                if isinstance(acquired, LockTimeout):
                    raise errors.aborted("GAME_BUSY", f"{acquired}; retry") from acquired
                raise acquired
            fence, version, epoch = acquired
            published = False
            try:
                if isinstance(limited, BaseException):
                    raise limited
                await self.refresh(live, version, epoch)
                if key:
                    prior = live.keys.get((seat, key))
                    if prior is not None:
                        return await self._prior(
                            live, prior, seat, expected_version, decision_id, option_id
                        )
                try:
                    self._check(live, caller, seat, expected_version, decision_id, option_id)
                except errors.GameError:
                    if key:
                        found = await self.db(self.store.find_key, game_id, seat, key)
                        if found is not None:
                            return await self._prior(
                                live, found, seat, expected_version, decision_id, option_id
                            )
                    raise
                step = live.match.apply(live.state, seat, option_id)
                result = live.rules.result(step.state.game) if step.state.over else None
                frame = Frame(live.version + 1, step.state, step.events, result)
                stamp = now()
                _stop_clock(live.seats, seat, stamp, plan)
                _start_decision(
                    live.seats,
                    live.state.pending,
                    step.state.pending if result is None else None,
                    frame.version,
                    stamp,
                    plan,
                )
                action = {
                    "seat": seat,
                    "kind": "option",
                    "decision_id": decision_id,
                    "option_id": option_id,
                    "expected_version": expected_version,
                    "idempotency_key": key or None,
                }
                write = Append(action=action, seat_updates=plan.updates)
                if result is not None:
                    write.result = _result_row(result)
                elif (
                    step.state.previous is None
                    and frame.version % self.settings.game_snapshot_every == 0
                ):
                    write.snapshot = convert.snapshot(live.rules, step.state)
                try:
                    await self.committer((game_id, live.version, write))
                except Conflict:
                    await self.refresh(live, None, None)
                    if key:
                        found = await self.db(self.store.find_key, game_id, seat, key)
                        if found is not None:
                            return await self._prior(
                                live, found, seat, expected_version, decision_id, option_id
                            )
                    metrics.REJECTS.labels("ABORTED").inc()
                    raise errors.aborted(
                        "VERSION_CONFLICT",
                        f"another action was applied to game {game_id} first; it is now at "
                        f"version {live.version}: read the view again",
                    ) from None
                row = LogEntry(
                    frame.version,
                    seat,
                    "option",
                    decision_id,
                    option_id,
                    expected_version,
                    key or None,
                )
                _apply_updates(live.seats, plan.updates)
                live.advance(frame, row)
                await self.hot.release(game_id, fence, frame.version, _message(row))
                published = True
            finally:
                if not published:
                    await self.hot.unlock(game_id, fence)
        metrics.ACTIONS.labels(live.row.rules_id).inc()
        await self._finish(live)
        if caller.bot:
            await self.hot.bot_turn_done(game_id, seat)
        await self._dispatch(live, plan)
        return frame.version, self.seat_view(live, seat, frame)

    async def _terminal(self, live: LiveGame, seat: int, kind: str) -> Frame:
        """Append a resign/forfeit row that ends the game (caller holds live.lock and the fence)."""
        frame = _step_row(
            live.rules, live.match, live.frame, _Pseudo(live.version + 1, seat, kind, "", "")
        )
        assert frame.result is not None
        updates = {
            s.seat: {"clock_deadline": None, "clock_version": None}
            for s in live.seats
            if s.clock_deadline is not None
        }
        write = Append(
            action={"seat": seat, "kind": kind, "expected_version": live.version},
            seat_updates=updates,
            result=_result_row(frame.result),
        )
        await self.db(self.store.append, live.id, live.version, write)
        _apply_updates(live.seats, updates)
        live.advance(frame)
        return frame

    async def resign(self, game_id: str, token: str) -> tuple[int, Result]:
        """Resign: the game ends, ranked by `resign_result` (the game's hook, else this seat last)."""
        live = await self.get(game_id)
        caller = await self.authenticate(live, token)
        await self.limit(token)
        if caller.seat is None:
            raise errors.denied("SPECTATOR", "a spectator cannot resign", game_id=game_id)
        async with live.lock:
            fence, version, epoch = await self.hot.acquire(
                game_id, self.settings.game_lock_ms / 1000
            )
            published = False
            try:
                await self.refresh(live, version, epoch)
                if live.result is not None:
                    raise errors.precondition("GAME_OVER", f"game {game_id} is already over")
                try:
                    frame = await self._terminal(live, caller.seat, "resign")
                except Conflict:
                    raise errors.aborted("VERSION_CONFLICT", "the game moved; retry") from None
                await self.hot.release(
                    game_id,
                    fence,
                    frame.version,
                    {"v": frame.version, "seat": caller.seat, "kind": "resign"},
                )
                published = True
            finally:
                if not published:
                    await self.hot.unlock(game_id, fence)
        await self._finish(live)
        assert frame.result is not None
        return frame.version, frame.result

    async def expire_clock(self, game_id: str, seat: int, decision_id: str, version: int) -> str:
        """A clock timer fired: apply the seat's fallback if the timer is still current."""
        live = await self.get(game_id)
        plan = Plan()
        outcome = ""
        async with live.lock:
            fence, cached, epoch = await self.hot.acquire(
                game_id, self.settings.game_lock_ms / 1000
            )
            published = False
            try:
                await self.refresh(live, cached, epoch)
                row = live.seats[seat]
                pending = live.pending_for(seat)
                if (
                    pending is None
                    or pending.id != decision_id
                    or row.clock_version != version
                    or row.controller != HUMAN
                    or row.clock_deadline is None
                ):
                    return "stale"
                if row.clock_deadline > now() + timedelta(milliseconds=50):
                    plan.clocks.append((seat, decision_id, version, row.clock_deadline))
                    outcome = "early"
                fallback = (row.clock or {}).get("fallback", 0)
                if outcome == "early":
                    pass
                elif fallback == common_pb2.ClockSpec.FALLBACK_FORFEIT:
                    frame = await self._terminal(live, seat, "forfeit")
                    await self.hot.release(
                        game_id,
                        fence,
                        frame.version,
                        {"v": frame.version, "seat": seat, "kind": "forfeit"},
                    )
                    published = True
                    outcome = "forfeit"
                else:
                    changes = {
                        "controller": BOT,
                        "reclaim": False,
                        "clock_deadline": None,
                        "clock_version": None,
                        "clock_remaining_ms": 0,
                    }
                    await self.db(self.store.update_seats, game_id, {seat: changes})
                    _apply_updates(live.seats, {seat: changes})
                    live.epoch = await self.hot.bump_epoch(game_id)
                    await self.hot.publish(game_id, {"s": live.epoch})
                    live.notify()
                    plan.bots.append(seat)
                    outcome = "bot"
            finally:
                if not published:
                    await self.hot.unlock(game_id, fence)
        log.info("clock expired", game_id=game_id, seat=seat, outcome=outcome)
        await self._finish(live)
        await self._dispatch(live, plan)
        return outcome

    async def _finish(self, live: LiveGame) -> None:
        if live.result is not None:
            live.row.status = FINISHED

    async def _dispatch(self, live: LiveGame, plan: Plan) -> None:
        if not plan.bots and not plan.clocks:
            return
        version = live.version
        if plan.bots:
            try:
                await self.hot.bot_turns_sent(live.id, plan.bots, time.time())
            except Exception:
                log.exception("could not record the bot turns sent", game_id=live.id)

        def send() -> None:
            for seat in plan.bots:
                self.scheduler.bot_turn(live.id, seat, version)
            for seat, decision_id, started, eta in plan.clocks:
                self.scheduler.clock(live.id, seat, decision_id, started, eta)

        try:
            await self.db(send)
        except Exception:
            log.exception("could not schedule background work", game_id=live.id)

    async def resend_bot_turns(self, older_than: float, limit: int = 1000) -> int:
        """Re-send the bot turns sent more than `older_than` seconds ago and still owed.

        A bot turn task can be lost (a worker died, the broker lost it). Answered turns
        leave the waiting set when the bot's action commits; what is left and old is sent
        again (the bot task is idempotent by seat and version), and entries whose seat owes
        nothing any more are dropped. Returns how many turns were sent again.
        """
        resent = 0
        for game_id, seat in await self.hot.bot_turns_waiting(time.time() - older_than, limit):
            fresh = game_id not in self.games
            try:
                live = await self.get(game_id)
                if not fresh:
                    await self.sync(live)
            except errors.GameError:
                await self.hot.bot_turn_done(game_id, seat)
                continue
            owed = (
                live.pending_for(seat) is not None
                and seat < len(live.seats)
                and live.seats[seat].controller == BOT
            )
            if not owed:
                await self.hot.bot_turn_done(game_id, seat)
                continue
            if not fresh:  # a fresh load re-sent what the decision owes already
                await self._dispatch(live, Plan(bots=[seat]))
            log.info("bot turn sent again", game_id=game_id, seat=seat, version=live.version)
            resent += 1
        return resent

    # ------------------------------------------------------------------ watch
    async def watch(
        self, game_id: str, token: str, from_version: int
    ) -> AsyncIterator[game_pb2.WatchGameResponse]:
        """WatchGame: seat-filtered updates from `from_version` on, ending when the game ends."""
        live = await self.get(game_id)
        caller = await self.authenticate(live, token)
        await self.limit(token)
        viewer = caller.seat
        await self.subscribe(game_id)
        live.watchers += 1
        metrics.WATCHERS.inc()
        try:
            await self.sync(live)

            def head() -> int:
                return live.version if viewer is not None else self._spectator_head(live)

            if from_version <= 0:
                frame = await self.frame_at(live, head())
                view = self.seat_view(live, viewer, frame)
                yield game_pb2.WatchGameResponse(
                    version=frame.version, events=view.events, view=view
                )
                sent = frame.version
            else:
                sent = min(from_version, head())
            while True:
                target = head()
                if target > sent:
                    for frame in await self.frames(live, sent, target):
                        events = convert.event_messages(frame.events, frame.version, viewer)
                        view = self.seat_view(live, viewer, frame, events)
                        yield game_pb2.WatchGameResponse(
                            version=frame.version, events=events, view=view
                        )
                        sent = frame.version
                    continue
                if live.result is not None and sent >= live.version:
                    return
                await live.wait(5.0)
                if live.version == sent:
                    await self.sync(live)
        finally:
            live.watchers -= 1
            metrics.WATCHERS.dec()
            await self.unsubscribe(game_id)

    async def subscribe(self, game_id: str) -> None:
        """Follow a game's channel (first watcher on this replica)."""
        count = self._subscribed.get(game_id, 0)
        self._subscribed[game_id] = count + 1
        if count:
            return
        if self._pubsub is None:
            self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.hot.channel(game_id))
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen())

    async def unsubscribe(self, game_id: str) -> None:
        """Stop following when the last watcher leaves."""
        count = self._subscribed.get(game_id, 0) - 1
        if count > 0:
            self._subscribed[game_id] = count
            return
        self._subscribed.pop(game_id, None)
        if self._pubsub is not None:
            await self._pubsub.unsubscribe(self.hot.channel(game_id))

    async def _listen(self) -> None:
        prefix = f"{self.settings.redis_prefix}game:"
        while self._pubsub is not None:
            try:
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=1.0
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub listener failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if message is None:
                if not self._subscribed:
                    await asyncio.sleep(0.05)
                continue
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            live = self.games.get(channel.removeprefix(prefix))
            if live is not None:
                task = asyncio.create_task(self.sync(live))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ replay / list
    async def replay(self, game_id: str, token: str) -> game_pb2.GetReplayResponse:
        """GetReplay: players after the end, spectators past the configured delay."""
        live = await self.get(game_id)
        caller = await self.authenticate(live, token)
        await self.limit(token)
        await self.sync(live)
        if live.result is None:
            raise errors.precondition(
                "GAME_NOT_OVER", f"game {game_id} is still running: the replay opens at its end"
            )
        if caller.seat is None:
            finished = live.row.finished_at or now()
            result_row = await self.db(self.store.result, game_id)
            if result_row is not None:
                finished = result_row.finished_at
            if finished.tzinfo is None:
                finished = finished.replace(tzinfo=now().tzinfo)
            opens = finished + timedelta(seconds=self.settings.game_replay_spectator_delay_seconds)
            if now() < opens:
                raise errors.precondition(
                    "REPLAY_DELAYED",
                    f"spectators may fetch the replay from {opens.isoformat()}",
                )
        rows = await self.db(self.store.actions_after, game_id, 0)
        response = game_pb2.GetReplayResponse(
            game_id=game_id,
            variant=live.row.variant,
            options=dict(live.row.options),
            seed=int(live.row.seed),
            seats=self.seat_messages(live, live.state),
            rules_id=live.row.rules_id,
        )
        with contextlib.suppress(RulesError):
            response.game = kinds.game_kind(live.row.rules_id)  # type: ignore[assignment]
        for row in rows:
            if row.kind != "option":
                continue
            action = response.actions.add(
                version=row.seq, seat=row.seat, decision_id=row.decision_id, option_id=row.option_id
            )
            action.at.FromDatetime(row.created_at)
        result = convert.result_message(live.result)
        if result is not None:
            response.result.CopyFrom(result)
        return response

    async def list_games(self, request: game_pb2.ListGamesRequest) -> game_pb2.ListGamesResponse:
        """ListGames (the servicer checks the service credential)."""
        status = {
            game_pb2.GAME_STATUS_ACTIVE: ACTIVE,
            game_pb2.GAME_STATUS_FINISHED: FINISHED,
        }.get(request.status)
        rules_id = request.rules_id
        if request.game and not rules_id:
            try:
                rules_id = kinds.game_id(request.game)
            except RulesError as exc:
                raise errors.invalid("UNKNOWN_GAME", str(exc), field="game") from exc
        size = request.page.page_size or 50
        if not 0 < size <= 500:
            raise errors.invalid("BAD_PAGE", "page_size must be 1-500", field="page.page_size")
        try:
            offset = int(request.page.page_token or "0")
        except ValueError:
            raise errors.invalid(
                "BAD_PAGE", "malformed page_token", field="page.page_token"
            ) from None
        rows, more = await self.db(self.store.list_games, status, rules_id, offset, size)
        response = game_pb2.ListGamesResponse(next_page_token=str(offset + size) if more else "")
        for game, seats, result in rows:
            summary = response.games.add(
                game_id=game.id,
                variant=game.variant,
                status=game_pb2.GAME_STATUS_FINISHED
                if game.status == FINISHED
                else game_pb2.GAME_STATUS_ACTIVE,
                version=game.version,
                rules_id=game.rules_id,
            )
            with contextlib.suppress(RulesError):
                summary.game = kinds.game_kind(game.rules_id)  # type: ignore[assignment]
            summary.created_at.FromDatetime(game.created_at)
            for seat in seats:
                summary.seats.add(
                    index=seat.seat,
                    player_id=seat.player_id,
                    display_name=seat.display_name,
                    is_bot=seat.controller == BOT,
                )
            if result is not None:
                summary.result.reason = result.reason
                for key, rank in sorted(result.ranks.items(), key=lambda kv: int(kv[0])):
                    summary.result.seats.add(
                        seat=int(key),
                        rank=rank,
                        score=float(result.scores.get(key, 0.0)),
                        winner=int(key) in result.winners,
                    )
        return response

    def evict_idle(self) -> int:
        """Forget games idle longer than the cache time (no watchers); returns how many.

        A finished game is forgotten sooner (`game_finished_cache_seconds`): it no longer
        changes, and a later read simply loads it again.
        """
        stamp = time.monotonic()
        idle = stamp - self.settings.game_cache_seconds
        over = stamp - self.settings.game_finished_cache_seconds
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


@dataclass(frozen=True, slots=True)
class _Pseudo:
    seq: int
    seat: int
    kind: str
    decision_id: str
    option_id: str


def _message(row: Logged) -> dict[str, Any]:
    return {"v": row.seq, "seat": row.seat, "kind": row.kind}


def _result_row(result: Result) -> dict[str, Any]:
    return {
        "reason": result.reason,
        "scores": {str(k): float(v) for k, v in result.scores.items()},
        "ranks": {str(k): int(v) for k, v in result.ranks.items()},
        "winners": sorted(result.winners),
    }


def _apply_updates(seats: list[GameSeatRow], updates: Mapping[int, Mapping[str, Any]]) -> None:
    for seat, changes in updates.items():
        for key, value in changes.items():
            setattr(seats[seat], key, value)


def _stop_clock(seats: list[GameSeatRow], seat: int, stamp: datetime, plan: Plan) -> None:
    row = seats[seat]
    clock = _clock(row)
    if clock is None or row.clock_deadline is None:
        return
    deadline = row.clock_deadline
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=stamp.tzinfo)
    left = max(0, int((deadline - stamp).total_seconds() * 1000))
    if clock.get("mode") == common_pb2.ClockSpec.MODE_LIVE:
        left += int(clock.get("increment_seconds", 0)) * 1000
    plan.updates.setdefault(seat, {}).update(
        clock_deadline=None, clock_version=None, clock_remaining_ms=left
    )


def _start_decision(
    seats: list[GameSeatRow],
    before: Decision | None,
    after: Decision | None,
    version: int,
    stamp: datetime,
    plan: Plan,
) -> None:
    """Start clocks and bot turns for the seats of a new decision (same id: nothing new)."""
    if after is None or (before is not None and before.id == after.id):
        return
    for seat in after.seats:
        row = seats[seat]
        changes = plan.updates.setdefault(seat, {})
        controller = changes.get("controller", row.controller)
        if controller == BOT and row.bot is None and row.reclaim:
            changes.update(controller=HUMAN, reclaim=False)
            controller = HUMAN
        if controller == BOT:
            plan.bots.append(seat)
            continue
        clock = _clock(row)
        if clock is None:
            continue
        if clock.get("mode") == common_pb2.ClockSpec.MODE_LIVE:
            allowance = changes.get("clock_remaining_ms", row.clock_remaining_ms)
            if allowance is None or allowance <= 0:
                allowance = int(clock.get("initial_seconds", 0)) * 1000
            if controller == HUMAN and "reclaim" in changes:
                allowance = max(allowance, int(clock.get("initial_seconds", 0)) * 1000)
        else:
            allowance = int(clock.get("initial_seconds", 0)) * 1000
        deadline = stamp + timedelta(milliseconds=allowance)
        changes.update(clock_deadline=deadline, clock_version=version)
        plan.clocks.append((seat, after.id, version, deadline))
