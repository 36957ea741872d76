"""Starting claimed matches: create their games, record them in SQL, assign their tickets.

The director feeds claimed matches chunk by chunk, as its claims come back from Redis, so
game creation starts on the first chunk while Redis still claims the next. Three stages
overlap: `concurrency` CreateGame calls in flight in match order (one worker per match up
to that, so a small cycle starts few); the games created so far (at most `record_chunk`
matches) recorded in one SQL transaction; the previous recorded batch assigned in one
Redis round trip. A slow authority does not hold back the assignment
of games already made. Per match the outcome is "started"; "aborted" when a ticket was
cancelled (or its claim lapsed) meanwhile, its other tickets going back to the pool;
"failed" when the game could not be created or recorded, every ticket going back to the
pool. A match is assigned only once its game is recorded, so a failure mid-batch leaves
its tickets claimed (then returned), never matched and waiting at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, cast

from services.common.logging import get_logger
from services.lobby.config import LobbySettings
from services.lobby.games import GameCreator
from services.lobby.queue import TicketQueue
from services.lobby.store import LobbyStore, MatchRecord, SeatPlan
from warroom.api import kinds
from warroom.matchmaking import Proposal, SeatAssignment
from warroom.v1 import common_pb2, game_pb2

log = get_logger("lobby.starts")
# Most matches recorded and assigned together.
RECORD_CHUNK = 1000
# A claimed match: its id and proposal.
Claimed = tuple[str, Proposal]
# What assigns one recorded match: match id, game id, variant, ticket -> assignment JSON.
Final = tuple[str, str, str, dict[str, str]]
# The feed of claimed matches: chunks, then None once the claims are all in.
Feed = asyncio.Queue[Sequence[Claimed] | None]
_json_str = json.encoder.encode_basestring_ascii


def game_kind(game: str) -> common_pb2.GameKind.ValueType:
    """The GameKind of a registry id (UNSPECIFIED for games without one, e.g. the toy game)."""
    return common_pb2.GameKind.ValueType(
        kinds.GAME_KINDS.get(game, common_pb2.GAME_KIND_UNSPECIFIED)
    )


def create_request(
    match_id: str, proposal: Proposal, names: dict[str, str]
) -> game_pb2.CreateGameRequest:
    """The CreateGame request of a match (idempotent on the match id)."""
    return game_pb2.CreateGameRequest(
        game=game_kind(proposal.game_id),
        rules_id=proposal.game_id,
        variant=proposal.variant,
        request_id=f"match:{match_id}",
        # the lobby keeps the spectator token to read the result without side effects
        allow_spectators=True,
        # the seats as field dicts: upb builds them in place, where a SeatSpec built first
        # would be built and then copied in (half the request's cost)
        seats=cast(Any, [_seat_spec(s, names) for s in proposal.seats]),
    )


def _seat_spec(seat: SeatAssignment, names: dict[str, str]) -> dict[str, Any]:
    """The fields of one seat's SeatSpec."""
    spec: dict[str, Any] = {}
    if seat.player_id:
        spec["player_id"] = seat.player_id
        spec["display_name"] = names.get(seat.player_id, "")
    if seat.bot is not None:
        spec["bot"] = {"kind": seat.bot.kind, "difficulty": seat.bot.difficulty}
    return spec


def assignments(proposal: Proposal, created: game_pb2.CreateGameResponse) -> dict[str, str]:
    """Per ticket: the JSON of each of its players' assignment (player -> seat, side, seat
    token), as `json.dumps` writes it compactly."""
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


def match_record(
    match_id: str,
    proposal: Proposal,
    names: dict[str, str],
    response: game_pb2.CreateGameResponse,
) -> MatchRecord:
    """The SQL record of a match whose game exists."""
    return MatchRecord(
        match_id,
        proposal.game_id,
        proposal.variant,
        response.game_id,
        [
            SeatPlan(
                s.seat,
                s.side,
                s.team,
                s.player_id,
                names.get(s.player_id) if s.player_id else None,
                s.bot,
            )
            for s in proposal.seats
        ],
        list(response.seat_tokens),
        response.spectator_token,
    )


class _Run:
    """One run of the pipeline: the matches fed so far and what became of each."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self.matches: list[Claimed] = []
        self.results: list[str] = []
        self.created: list[game_pb2.CreateGameResponse | None] = []
        self.todo: asyncio.Queue[int | None] = asyncio.Queue()
        self.finished: list[int] = []
        self.changed = asyncio.Event()
        self.fed_all = False
        # the CreateGame workers, started as matches arrive (at most one per match)
        self.creators: list[asyncio.Task[None]] = []

    def add(self, chunk: Sequence[Claimed]) -> None:
        start = len(self.matches)
        self.matches.extend(chunk)
        self.results.extend(["failed"] * len(chunk))
        self.created.extend([None] * len(chunk))
        for i in range(start, len(self.matches)):
            self.todo.put_nowait(i)


class MatchStarter:
    """Creates, records and assigns claimed matches (see the module docstring)."""

    def __init__(
        self,
        queue: TicketQueue,
        store: LobbyStore,
        games: GameCreator,
        lobby: LobbySettings,
        concurrency: int = 16,
        record_chunk: int = RECORD_CHUNK,
    ) -> None:
        self.queue = queue
        self.store = store
        self.games = games
        self.lobby = lobby
        self.concurrency = concurrency
        self.record_chunk = record_chunk

    async def start(self, matches: Sequence[Claimed], names: dict[str, str]) -> list[str]:
        """Start claimed matches given at once; their outcomes in order."""
        feed: Feed = asyncio.Queue()
        feed.put_nowait(matches)
        feed.put_nowait(None)
        return (await self.run(feed, names))[1]

    async def run(self, feed: Feed, names: dict[str, str]) -> tuple[list[Claimed], list[str]]:
        """Start the matches of every chunk fed until None: (the matches, their outcomes)."""
        run = _Run(names)
        recorded: asyncio.Queue[tuple[list[int], list[Final]] | None] = asyncio.Queue(2)
        try:
            await asyncio.gather(
                self._feeder(run, feed),
                self._recorder(run, recorded),
                self._assigner(run, recorded),
            )
            await asyncio.gather(*run.creators)
        finally:
            for creator in run.creators:
                creator.cancel()
        return run.matches, run.results

    async def _feeder(self, run: _Run, feed: Feed) -> None:
        try:
            while (chunk := await feed.get()) is not None:
                if not chunk:
                    continue
                try:
                    run.names = await self._with_names(chunk, run.names)
                except Exception:
                    # like a director dying here: these claims lapse and the reaper
                    # returns their tickets
                    log.exception("reading player names failed")
                    continue
                run.add(chunk)
                wanted = min(self.concurrency, len(run.matches))
                while len(run.creators) < wanted:
                    run.creators.append(asyncio.create_task(self._creator(run)))
        finally:
            run.fed_all = True
            for _ in run.creators:
                run.todo.put_nowait(None)
            run.changed.set()

    async def _with_names(self, chunk: Sequence[Claimed], names: dict[str, str]) -> dict[str, str]:
        """`names` with the display names of the chunk's players it lacks (from SQL)."""
        missing = sorted(
            {s.player_id for _, p in chunk for s in p.seats if s.player_id} - set(names)
        )
        if not missing:
            return names
        found = await asyncio.to_thread(self.store.players, missing)
        return {**names, **{k: v.display_name for k, v in found.items()}}

    async def _creator(self, run: _Run) -> None:
        while (i := await run.todo.get()) is not None:
            mid, proposal = run.matches[i]
            try:
                run.created[i] = await self.games.create_game(
                    create_request(mid, proposal, run.names)
                )
            except Exception:
                log.exception("game creation failed", match_id=mid)
            run.finished.append(i)
            run.changed.set()

    async def _recorder(
        self, run: _Run, recorded: asyncio.Queue[tuple[list[int], list[Final]] | None]
    ) -> None:
        taken = 0
        while True:
            if run.finished:
                batch = run.finished[: self.record_chunk]
                del run.finished[: len(batch)]
                taken += len(batch)
                await recorded.put((batch, await self._record(run, batch)))
                continue
            if run.fed_all and taken == len(run.matches):
                break
            run.changed.clear()
            await run.changed.wait()
        await recorded.put(None)

    async def _assigner(
        self, run: _Run, recorded: asyncio.Queue[tuple[list[int], list[Final]] | None]
    ) -> None:
        while (item := await recorded.get()) is not None:
            await self._assign(run, *item)

    async def _record(self, run: _Run, batch: Sequence[int]) -> list[Final]:
        """Record the matches of `batch` whose games exist in SQL; what to assign (nothing
        when recording failed)."""
        records: list[MatchRecord] = []
        finals: list[Final] = []
        for i in batch:
            response = run.created[i]
            if response is None:
                continue
            mid, proposal = run.matches[i]
            records.append(match_record(mid, proposal, run.names, response))
            finals.append(
                (mid, response.game_id, proposal.variant, assignments(proposal, response))
            )
        try:
            await asyncio.to_thread(self.store.record_matches, records, self.lobby.watch_matchmade)
        except Exception:
            log.exception("recording matches failed")
            return []
        return finals

    async def _assign(self, run: _Run, batch: Sequence[int], finals: Sequence[Final]) -> None:
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
            mid = run.matches[i][0]
            verdict = verdicts.get(mid)
            if verdict is None:
                await self.queue.release(mid)
                closing.append((mid, "game creation failed"))
            elif verdict[0]:
                run.results[i] = "started"
            else:
                returned = await self.queue.release(mid)
                closing.append((mid, f"aborted: {verdict[1]}"))
                log.info("match aborted", match_id=mid, why=verdict[1], returned=returned)
                run.results[i] = "aborted"
        if closing:
            await asyncio.to_thread(self.store.close_many, closing)
