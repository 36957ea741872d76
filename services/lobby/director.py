"""The matchmaker director: one cycle per pool claims proposals and starts their games.

A cycle (any replica, any number of them) reaps lapsed claims, expires old tickets, takes
the pool's lock with a fresh fencing token, runs the pure match function over the pool,
claims every proposal's tickets in one Lua call (a stale matcher is fenced off; a ticket
already claimed or cancelled sinks its proposal), then for each claimed proposal creates
the game through the authority (idempotent on the match id), records it in SQL, and marks
the tickets matched with their assignments. A ticket cancelled meanwhile aborts the whole
match: the others go back to the pool and the table is closed. A director that dies after
claiming leaves a claim whose lease lapses, returning the tickets to the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.common.logging import get_logger
from services.lobby import metrics
from services.lobby.config import LobbySettings
from services.lobby.games import GameCreator
from services.lobby.queue import TicketQueue
from services.lobby.store import LobbyStore, MatchRecord, SeatPlan
from warroom.api import kinds
from warroom.matchmaking import MatchConfig, Proposal, layouts_for, make_matches
from warroom.v1 import common_pb2, game_pb2

log = get_logger("lobby.director")
# Most matches recorded and assigned together.
RECORD_CHUNK = 1000
# What assigns one recorded match: match id, game id, variant, ticket -> assignment JSON.
Final = tuple[str, str, str, dict[str, str]]
_json_str = json.encoder.encode_basestring_ascii


def match_config(lobby: LobbySettings) -> MatchConfig:
    """The match function's tunables from the lobby settings."""
    return MatchConfig(
        window_base=lobby.window_base,
        window_per_s=lobby.window_per_s,
        window_max=lobby.window_max,
        accept_fewer_after_s=lobby.accept_fewer_after_s,
    )


def game_kind(game: str) -> common_pb2.GameKind.ValueType:
    """The GameKind of a registry id (UNSPECIFIED for games without one, e.g. the toy game)."""
    return common_pb2.GameKind.ValueType(
        kinds.GAME_KINDS.get(game, common_pb2.GAME_KIND_UNSPECIFIED)
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
    ) -> None:
        self.queue = queue
        self.store = store
        self.games = games
        self.lobby = lobby
        self.game_endpoint = game_endpoint
        self.config = match_config(lobby)
        self.concurrency = concurrency
        self.record_chunk = record_chunk

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
        try:
            tickets = await self.queue.load_pool(game, queue_name)
            report.pool_size = len(tickets)
            metrics.POOL.labels(game).set(len(tickets))
            if not tickets:
                return report
            t0 = time.perf_counter()
            outcome = make_matches(tickets, layouts_for(game), time.time(), self.config)
            report.match_s = time.perf_counter() - t0
            report.proposals = len(outcome.proposals)
            if not outcome.proposals:
                return report
            entropy = os.urandom(16 * len(outcome.proposals)).hex()
            ids = [entropy[i : i + 32] for i in range(0, len(entropy), 32)]
            t0 = time.perf_counter()
            claimed = await self.queue.claim(
                lock,
                game,
                queue_name,
                [(mid, p.ticket_ids) for mid, p in zip(ids, outcome.proposals, strict=True)],
                self.lobby.claim_lease_s,
            )
            report.claim_s = time.perf_counter() - t0
            if claimed is None:
                report.fenced = True
                return report
            mine = [
                (mid, p) for mid, p, ok in zip(ids, outcome.proposals, claimed, strict=True) if ok
            ]
            names = {
                player: name
                for t in tickets
                for player, name in zip(t.player_ids, t.names, strict=False)
            }
            report.claimed = len(mine)
        finally:
            await self.queue.unlock(lock)
        t0 = time.perf_counter()
        done = asyncio.Event()

        async def start() -> list[str]:
            try:
                return await self.start_matches(mine, names)
            finally:
                done.set()

        outcomes, _ = await asyncio.gather(
            start(), self._keep_claims([mid for mid, _ in mine], done)
        )
        report.start_s = time.perf_counter() - t0
        report.started = outcomes.count("started")
        report.aborted = outcomes.count("aborted")
        report.failed = outcomes.count("failed")
        report.matches = [mid for (mid, _), o in zip(mine, outcomes, strict=True) if o == "started"]
        report.total_s = time.perf_counter() - started
        for outcome_name in ("started", "aborted", "failed"):
            metrics.MATCHES.labels(outcome_name).inc(outcomes.count(outcome_name))
        metrics.CYCLE.observe(report.total_s)
        return report

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
        return (await self.start_matches([(match_id, proposal)], {}))[0]

    async def start_matches(
        self, matches: Sequence[tuple[str, Proposal]], names: dict[str, str]
    ) -> list[str]:
        """Create the games of claimed matches and commit them as they come.

        `concurrency` CreateGame calls are in flight at once, in match order. The games
        created so far (at most `record_chunk` matches) are recorded in one SQL transaction,
        then assigned in one Redis round trip while the next games are recorded: creation,
        SQL and Redis overlap, and a slow authority does not hold back the assignment of
        games already made. Per match: "started"; "aborted" when a ticket was cancelled (or
        its claim lapsed) meanwhile, its other tickets going back to the pool; "failed" when
        the game could not be created or recorded, every ticket going back to the pool.
        """
        if not matches:
            return []
        missing = sorted(
            {s.player_id for _, p in matches for s in p.seats if s.player_id} - set(names)
        )
        if missing:
            found = await asyncio.to_thread(self.store.players, missing)
            names = {**names, **{k: v.display_name for k, v in found.items()}}
        n = len(matches)
        results = ["failed"] * n
        created: list[game_pb2.CreateGameResponse | None] = [None] * n
        finished: list[int] = []
        arrived = asyncio.Event()
        recorded: asyncio.Queue[tuple[list[int], list[Final]] | None] = asyncio.Queue(2)
        order = iter(range(n))

        async def creator() -> None:
            for i in order:
                mid, proposal = matches[i]
                try:
                    created[i] = await self.games.create_game(self.request(mid, proposal, names))
                except Exception:
                    log.exception("game creation failed", match_id=mid)
                finished.append(i)
                arrived.set()

        async def recorder() -> None:
            taken = 0
            while taken < n:
                await arrived.wait()
                batch = finished[: self.record_chunk]
                del finished[: len(batch)]
                if not finished:
                    arrived.clear()
                taken += len(batch)
                await recorded.put((batch, await self._record(matches, names, created, batch)))
            await recorded.put(None)

        async def assigner() -> None:
            while (item := await recorded.get()) is not None:
                await self._assign(matches, results, *item)

        await asyncio.gather(
            recorder(), assigner(), *(creator() for _ in range(min(self.concurrency, n)))
        )
        return results

    async def _record(
        self,
        matches: Sequence[tuple[str, Proposal]],
        names: dict[str, str],
        created: Sequence[game_pb2.CreateGameResponse | None],
        batch: Sequence[int],
    ) -> list[Final]:
        """Record the matches of `batch` whose games exist in SQL; what to assign (nothing
        when recording failed)."""
        records: list[MatchRecord] = []
        finals: list[Final] = []
        for i in batch:
            response = created[i]
            if response is None:
                continue
            mid, proposal = matches[i]
            records.append(
                MatchRecord(
                    mid,
                    proposal.game_id,
                    proposal.variant,
                    response.game_id,
                    [
                        SeatPlan(
                            s.seat,
                            s.side,
                            s.team,
                            player_id=s.player_id,
                            display_name=names.get(s.player_id) if s.player_id else None,
                            bot=s.bot,
                        )
                        for s in proposal.seats
                    ],
                    list(response.seat_tokens),
                    response.spectator_token,
                )
            )
            finals.append(
                (mid, response.game_id, proposal.variant, self.assignments(proposal, response))
            )
        try:
            await asyncio.to_thread(self.store.record_matches, records, self.lobby.watch_matchmade)
        except Exception:
            log.exception("recording matches failed")
            return []
        return finals

    async def _assign(
        self,
        matches: Sequence[tuple[str, Proposal]],
        results: list[str],
        batch: Sequence[int],
        finals: Sequence[Final],
    ) -> None:
        """Assign the recorded matches of `batch`; return the tickets of the others to the
        pool and close their tables."""
        try:
            outcome = await self.queue.finalize_many(finals)
        except Exception:
            # the assignment may or may not have happened: like a director that died here,
            # leave the claims to lapse (the reaper returns tickets still claimed)
            log.exception("assigning matches failed")
            return
        verdicts = dict(zip((f[0] for f in finals), outcome, strict=True))
        closing: list[tuple[str, str]] = []
        for i in batch:
            mid = matches[i][0]
            verdict = verdicts.get(mid)
            if verdict is None:
                await self.queue.release(mid)
                closing.append((mid, "game creation failed"))
            elif verdict[0]:
                results[i] = "started"
            else:
                returned = await self.queue.release(mid)
                closing.append((mid, f"aborted: {verdict[1]}"))
                log.info("match aborted", match_id=mid, why=verdict[1], returned=returned)
                results[i] = "aborted"
        if closing:
            await asyncio.to_thread(self.store.close_many, closing)

    def request(
        self, match_id: str, proposal: Proposal, names: dict[str, str]
    ) -> game_pb2.CreateGameRequest:
        """The CreateGame request of a match (idempotent on the match id)."""
        return game_pb2.CreateGameRequest(
            game=game_kind(proposal.game_id),
            rules_id=proposal.game_id,
            variant=proposal.variant,
            request_id=f"match:{match_id}",
            # the lobby keeps the spectator token to read the result without side effects
            allow_spectators=True,
            seats=[
                game_pb2.SeatSpec(
                    player_id=s.player_id or "",
                    display_name=names.get(s.player_id, "") if s.player_id else "",
                    bot=common_pb2.BotSpec(kind=s.bot.kind, difficulty=s.bot.difficulty)
                    if s.bot
                    else None,
                )
                for s in proposal.seats
            ],
        )

    def assignments(
        self, proposal: Proposal, created: game_pb2.CreateGameResponse
    ) -> dict[str, str]:
        """Per ticket: the JSON of each of its players' assignment (player -> seat, side,
        seat token), as `json.dumps` writes it compactly."""
        parts: dict[str, list[str]] = {t: [] for t in proposal.ticket_ids}
        tokens = created.seat_tokens
        for seat in proposal.seats:
            if seat.player_id is None or seat.ticket_id is None:
                continue
            parts[seat.ticket_id].append(
                f'{_json_str(seat.player_id)}:{{"seat":{seat.seat:d},'
                f'"side":{_json_str(seat.side)},"token":{_json_str(tokens[seat.seat])}}}'
            )
        return {t: "{" + ",".join(p) + "}" for t, p in parts.items()}


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
