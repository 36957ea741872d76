"""The matchmaker director: one cycle per pool claims proposals and starts their games.

A cycle (any replica, any number of them) reaps lapsed claims, expires old tickets, takes
the pool's lock with a fresh fencing token, runs the pure match function over the pool
(its copy in memory, services.lobby.poolcache), and claims the proposals' tickets in Lua
calls of `claim_chunk` matches each, each call sent as soon as the match function has
formed its chunk, so Redis claims while the rest are formed (a stale matcher is fenced
off; a ticket already claimed or cancelled sinks its proposal). Each chunk's claimed
matches go to the start pipeline as soon as its call answers (services.lobby.starts): games created through the authority (idempotent on the
match id), recorded in SQL, tickets marked matched with their assignments, while Redis
still claims the next chunks. A ticket cancelled meanwhile aborts the whole match: the
others go back to the pool and the table is closed. A director that dies after claiming
leaves a claim whose lease lapses, returning the tickets to the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

from services.common.logging import get_logger
from services.lobby import metrics
from services.lobby.config import LobbySettings
from services.lobby.games import GameCreator
from services.lobby.queue import Lock, TicketQueue
from services.lobby.starts import (
    RECORD_CHUNK,
    Claimed,
    Feed,
    MatchStarter,
    assignments,
    create_request,
    game_kind,
)
from services.lobby.store import LobbyStore
from warroom.matchmaking import MatchConfig, Proposal, Ticket, iter_matches, layouts_for
from warroom.v1 import common_pb2, game_pb2

__all__ = ["CycleReport", "Director", "assignment_message", "game_kind", "run_cycles"]

log = get_logger("lobby.director")
# Most matches one claim script call takes (Redis serves others between calls).
CLAIM_CHUNK = 250
# A claim call in flight: its matches (id, proposal) and the call.
_Call = tuple[list[tuple[str, Proposal]], "asyncio.Future[list[bool] | None]"]


def match_config(lobby: LobbySettings) -> MatchConfig:
    """The match function's tunables from the lobby settings."""
    return MatchConfig(
        window_base=lobby.window_base,
        window_per_s=lobby.window_per_s,
        window_max=lobby.window_max,
        accept_fewer_after_s=lobby.accept_fewer_after_s,
    )


@dataclass
class CycleReport:
    """What one cycle of one pool did."""

    pool_size: int = 0
    proposals: int = 0
    claimed: int = 0
    started: int = 0
    aborted: int = 0
    failed: int = 0
    expired: int = 0
    released: int = 0
    skipped: bool = False
    fenced: bool = False
    match_s: float = 0.0
    claim_s: float = 0.0
    start_s: float = 0.0
    total_s: float = 0.0
    matches: list[str] = field(default_factory=list)


class Director:
    """Claims proposals and starts their games."""

    def __init__(
        self,
        queue: TicketQueue,
        store: LobbyStore,
        games: GameCreator,
        lobby: LobbySettings,
        game_endpoint: str,
        concurrency: int = 16,
        record_chunk: int = RECORD_CHUNK,
        claim_chunk: int = CLAIM_CHUNK,
    ) -> None:
        self.queue = queue
        self.store = store
        self.lobby = lobby
        self.game_endpoint = game_endpoint
        self.config = match_config(lobby)
        self.claim_chunk = claim_chunk
        self.starter = MatchStarter(queue, store, games, lobby, concurrency, record_chunk)

    @property
    def games(self) -> GameCreator:
        """The authority client the start pipeline creates games with."""
        return self.starter.games

    @games.setter
    def games(self, games: GameCreator) -> None:
        self.starter.games = games

    async def cycle(self, game: str, queue_name: str | None = None) -> CycleReport:
        """One matchmaking cycle of the pool of `game` (returns what it did)."""
        started = time.perf_counter()
        queue_name = queue_name or self.lobby.queue
        report = CycleReport()
        report.released = await self.queue.reap()
        report.expired = await self.queue.expire_due()
        lock = await self.queue.acquire(game, queue_name, self.lobby.lock_ms)
        if lock is None:
            report.skipped = True
            return report
        feed: Feed = asyncio.Queue()
        starting: asyncio.Task[tuple[list[Claimed], list[str]]] | None = None
        claimed_ids: list[str] = []
        try:
            tickets = await self.queue.load_pool(game, queue_name)
            report.pool_size = len(tickets)
            metrics.POOL.labels(game).set(len(tickets))
            if not tickets:
                return report
            proposals = iter_matches(tickets, layouts_for(game), time.time(), self.config)
            first = self._next_chunk(proposals, report)
            if not first:
                return report
            starting = asyncio.create_task(self.starter.run(feed, _names(tickets)))
            t0 = time.perf_counter()
            await self._claim(lock, game, queue_name, first, proposals, feed, claimed_ids, report)
            report.claim_s = time.perf_counter() - t0
        finally:
            feed.put_nowait(None)
            try:
                await self.queue.unlock(lock)
            finally:
                if starting is not None:
                    await self._finish(starting, claimed_ids, report)
        report.total_s = time.perf_counter() - started
        metrics.CYCLE.observe(report.total_s)
        return report

    def _next_chunk(self, proposals: Iterator[Proposal], report: CycleReport) -> list[Proposal]:
        """The match function's next `claim_chunk` proposals (timed as matching)."""
        t0 = time.perf_counter()
        chunk = list(islice(proposals, self.claim_chunk))
        report.match_s += time.perf_counter() - t0
        report.proposals += len(chunk)
        return chunk

    async def _claim(
        self,
        lock: Lock,
        game: str,
        queue_name: str,
        first: list[Proposal],
        rest: Iterator[Proposal],
        feed: Feed,
        claimed_ids: list[str],
        report: CycleReport,
    ) -> None:
        """Claim the proposals' tickets, one script call per chunk of `claim_chunk`, each
        sent as soon as its chunk is formed; each chunk's claimed matches go to `feed` as
        its call answers, in order."""
        calls: list[_Call] = []
        answered = 0
        errors: list[Exception] = []
        chunk = first
        try:
            while chunk:
                entropy = os.urandom(16 * len(chunk)).hex()
                ids = [entropy[i : i + 32] for i in range(0, len(entropy), 32)]
                matches = list(zip(ids, chunk, strict=True))
                claim = self.queue.claim(
                    lock,
                    game,
                    queue_name,
                    [(mid, p.ticket_ids) for mid, p in matches],
                    self.lobby.claim_lease_s,
                    chunk=self.claim_chunk,
                )
                calls.append((matches, asyncio.ensure_future(claim)))
                await asyncio.sleep(0)  # the call goes out; Redis claims while we match on
                while answered < len(calls) and calls[answered][1].done():
                    await self._take(calls[answered], feed, claimed_ids, report, errors)
                    answered += 1
                chunk = self._next_chunk(rest, report)
            for call in calls[answered:]:
                await self._take(call, feed, claimed_ids, report, errors)
        finally:
            # cancelled (shutdown): what the calls still running claim lapses
            for _, future in calls:
                future.cancel()
        if errors:
            raise errors[0]

    async def _take(
        self,
        call: _Call,
        feed: Feed,
        claimed_ids: list[str],
        report: CycleReport,
        errors: list[Exception],
    ) -> None:
        """One claim call's answer: its claimed matches to `feed` (an error is kept and the
        other chunks still start what they claimed)."""
        matches, future = call
        try:
            claimed = await future
        except Exception as exc:
            errors.append(exc)
            return
        if claimed is None:
            report.fenced = True
            return
        mine = [m for m, ok in zip(matches, claimed, strict=True) if ok]
        claimed_ids.extend(mid for mid, _ in mine)
        report.claimed += len(mine)
        feed.put_nowait(mine)

    async def _finish(
        self,
        starting: asyncio.Task[tuple[list[Claimed], list[str]]],
        claimed_ids: list[str],
        report: CycleReport,
    ) -> None:
        """Wait for the start pipeline (extending its claims meanwhile) and count outcomes."""
        t0 = time.perf_counter()
        done = asyncio.Event()
        starting.add_done_callback(lambda _: done.set())
        await self._keep_claims(claimed_ids, done)
        matches, outcomes = await starting
        report.start_s = time.perf_counter() - t0
        report.started = outcomes.count("started")
        report.aborted = outcomes.count("aborted")
        report.failed = outcomes.count("failed")
        report.matches = [
            mid for (mid, _), o in zip(matches, outcomes, strict=True) if o == "started"
        ]
        for outcome_name in ("started", "aborted", "failed"):
            metrics.MATCHES.labels(outcome_name).inc(outcomes.count(outcome_name))

    async def _keep_claims(self, match_ids: list[str], done: asyncio.Event) -> None:
        """Extend this cycle's claims every third of a lease until `done` (its games are
        being created; a director that dies stops extending and the claims lapse)."""
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), self.lobby.claim_lease_s / 3)
            if done.is_set():
                return
            try:
                await self.queue.extend(match_ids, self.lobby.claim_lease_s)
            except Exception:
                log.exception("could not extend claims")

    async def start_match(self, match_id: str, proposal: Proposal) -> str:
        """Start one claimed match: "started", "aborted" or "failed"."""
        return (await self.starter.start([(match_id, proposal)], {}))[0]

    def request(
        self, match_id: str, proposal: Proposal, names: dict[str, str]
    ) -> game_pb2.CreateGameRequest:
        """The CreateGame request of a match (idempotent on the match id)."""
        return create_request(match_id, proposal, names)

    def assignments(
        self, proposal: Proposal, created: game_pb2.CreateGameResponse
    ) -> dict[str, str]:
        """Per ticket: the JSON of each of its players' assignment."""
        return assignments(proposal, created)


def _names(tickets: Sequence[Ticket]) -> dict[str, str]:
    """Player -> display name, as the tickets carry them."""
    return {
        player: name for t in tickets for player, name in zip(t.player_ids, t.names, strict=False)
    }


def assignment_message(
    ticket: dict[str, str], player_id: str, game_endpoint: str
) -> common_pb2.Assignment | None:
    """The Assignment of one player of a matched ticket."""
    mine = json.loads(ticket.get("assign", "{}")).get(player_id)
    if mine is None:
        return None
    return common_pb2.Assignment(
        game_id=ticket.get("game_id", ""),
        game=game_kind(ticket.get("game", "")),
        variant=ticket.get("variant", ""),
        seat=int(mine["seat"]),
        side=str(mine["side"]),
        seat_token=str(mine["token"]),
        game_endpoint=game_endpoint,
    )


async def run_cycles(director: Director, games: Sequence[str], stop: asyncio.Event) -> None:
    """A worker loop: cycle every pool every `cycle_interval_s` until `stop` is set."""
    while not stop.is_set():
        for game in games:
            try:
                await director.cycle(game)
            except Exception:
                log.exception("matchmaker cycle failed", game=game)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), director.lobby.cycle_interval_s)
