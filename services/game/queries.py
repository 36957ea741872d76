"""Queries: GetView, GetReplay, GetReplayViews and ListGames (reads that change nothing but
the cache)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import OrderedDict
from datetime import timedelta

from services.game import errors
from services.game.cache import GameCache
from services.game.callers import Callers
from services.game.core import Core
from services.game.live import BOT, Caller, Frame, LiveGame
from services.game.models import ACTIVE, FINISHED, GameRow, GameSeatRow, ResultRow
from services.game.store import now
from services.game.views import (
    replay_views,
    result_message,
    seat_messages,
    seat_view,
    spectator_head,
    view_hash,
)
from warroom.api import kinds
from warroom.engine.errors import RulesError
from warroom.v1 import game_pb2

STATUSES = {game_pb2.GAME_STATUS_ACTIVE: ACTIVE, game_pb2.GAME_STATUS_FINISHED: FINISHED}
# GetReplayViews: versions per page (default, most) and finished games whose frames are kept
PAGE_DEFAULT, PAGE_MAX, REPLAYS_KEPT = 50, 100, 8


class Queries:
    """The read side of the authority."""

    def __init__(self, core: Core, cache: GameCache, callers: Callers) -> None:
        self.core = core
        self.cache = cache
        self.callers = callers
        # finished games' frames of every version (game id -> frames), least recently used out
        self._replays: OrderedDict[str, list[Frame]] = OrderedDict()
        self._building: dict[str, asyncio.Lock] = {}  # one rebuild per game at a time

    async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
        """GetView."""
        core = self.core
        live = await self.cache.get(game_id)
        caller = await self.callers.authenticate(live, token)
        if core.limiter.take_leased(token):
            await self.cache.sync(live)
        else:
            await asyncio.gather(core.limit(token), self.cache.sync(live))
        recent = core.settings.game_recent_events
        if caller.seat is None:
            frame = await self.cache.frame_at(live, spectator_head(live))
            return seat_view(live, None, frame, recent)
        return seat_view(live, caller.seat, live.frame, recent)

    async def replay(self, game_id: str, token: str) -> game_pb2.GetReplayResponse:
        """GetReplay: players after the end, spectators past the configured delay."""
        core = self.core
        live, _caller = await self._replay_access(game_id, token)
        rows = await core.db(core.store.actions_after, game_id, 0)
        views, final = await self._hashes(live)
        response = game_pb2.GetReplayResponse(
            game_id=game_id,
            variant=live.row.variant,
            options=dict(live.row.options),
            seed=int(live.row.seed),
            seats=seat_messages(live, live.state),
            rules_id=live.row.rules_id,
            view_hashes=views,
            final_state_hash=final,
        )
        with contextlib.suppress(RulesError):
            response.game = kinds.game_kind(live.row.rules_id)  # type: ignore[assignment]
        for row in rows:
            action = response.actions.add(
                version=row.seq,
                seat=row.seat,
                decision_id=row.decision_id,
                option_id=row.option_id,
                kind=row.kind,
            )
            action.at.FromDatetime(row.created_at)
        result = None if live.result is None else result_message(live, live.result)
        if result is not None:
            response.result.CopyFrom(result)
        return response

    async def _replay_access(self, game_id: str, token: str) -> tuple[LiveGame, Caller]:
        """A finished game and the caller of a token allowed its replay: players after the
        end, spectators `game_replay_spectator_delay_seconds` after it (else refused)."""
        core = self.core
        live = await self.cache.get(game_id)
        caller = await self.callers.authenticate(live, token)
        await core.limit(token)
        await self.cache.sync(live)
        if live.result is None:
            raise errors.precondition(
                "GAME_NOT_OVER", f"game {game_id} is still running: the replay opens at its end"
            )
        if caller.seat is None:
            finished = live.row.finished_at or now()
            result_row = await core.db(core.store.result, game_id)
            if result_row is not None:
                finished = result_row.finished_at
            opens = finished + timedelta(seconds=core.settings.game_replay_spectator_delay_seconds)
            if now() < opens:
                raise errors.precondition(
                    "REPLAY_DELAYED",
                    f"spectators may fetch the replay from {opens.isoformat()}",
                )
        return live, caller

    async def replay_views(
        self, request: game_pb2.GetReplayViewsRequest
    ) -> game_pb2.GetReplayViewsResponse:
        """GetReplayViews: one page of a finished game's views of one viewer, from a version."""
        live, caller = await self._replay_access(request.game_id, request.token)
        final = live.version
        viewer = _replay_viewer(live, caller, request)
        count = request.count or PAGE_DEFAULT
        if not 0 < count <= PAGE_MAX:
            raise errors.invalid(
                "BAD_PAGE", f"count {request.count} is out of range: 1-{PAGE_MAX}", field="count"
            )
        start = request.from_version
        if not 0 <= start <= final:
            raise errors.invalid(
                "BAD_FROM_VERSION",
                f"from_version {start} is not a version of the game: 0-{final}",
                field="from_version",
                final_version=str(final),
            )
        frames = (await self._frames(live))[start : start + count]
        views = await self.core.db(replay_views, live, viewer, frames)
        return game_pb2.GetReplayViewsResponse(
            views=views, final_version=final, next_version=start + len(views)
        )

    async def _frames(self, live: LiveGame) -> list[Frame]:
        """Every frame (versions 0 .. final) of a finished game, kept for the last few games."""
        lock = self._building.setdefault(live.id, asyncio.Lock())
        try:
            async with lock:  # viewers arriving together share one rebuild
                frames = self._replays.get(live.id)
                if frames is None or frames[-1].version != live.version:
                    frames = await self.cache.frames(live, -1, live.version)
                    self._replays[live.id] = frames
                    while len(self._replays) > REPLAYS_KEPT:
                        self._replays.popitem(last=False)
        finally:
            if not lock.locked() and self._building.get(live.id) is lock:
                del self._building[live.id]
        if live.id in self._replays:
            self._replays.move_to_end(live.id)
        return frames

    async def _hashes(self, live: LiveGame) -> tuple[list[bytes], bytes]:
        """The public view hash of every version and the final state hash (kept once made)."""
        if live.replay_hashes is None:
            frames = await self._frames(live)

            def digest() -> tuple[list[bytes], bytes]:
                views = [view_hash(live, frame) for frame in frames]
                final = hashlib.sha256(live.rules.encode_bytes(frames[-1].state.game)).digest()
                return views, final

            live.replay_hashes = await self.core.db(digest)
        return live.replay_hashes

    async def list_games(self, request: game_pb2.ListGamesRequest) -> game_pb2.ListGamesResponse:
        """ListGames (the servicer checks the service credential)."""
        status = STATUSES.get(request.status)
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
        rows, more = await self.core.db(self.core.store.list_games, status, rules_id, offset, size)
        response = game_pb2.ListGamesResponse(next_page_token=str(offset + size) if more else "")
        for game, seats, result in rows:
            _summary(response.games.add(), game, seats, result)
        return response


def _replay_viewer(
    live: LiveGame, caller: Caller, request: game_pb2.GetReplayViewsRequest
) -> int | None:
    """Whose view a GetReplayViews request asks for (None = the public view): the token's own
    by default; a seat's view only with that seat's token."""
    if not request.HasField("seat"):
        return caller.seat
    seat = request.seat
    if seat == -1:
        return None
    if not 0 <= seat < len(live.seats):
        raise errors.invalid(
            "BAD_SEAT",
            f"seat {seat} is not a seat of the game: -1 (public) or 0-{len(live.seats) - 1}",
            field="seat",
        )
    if seat != caller.seat:
        raise errors.denied(
            "SEAT_VIEW_DENIED",
            f"seat {seat}'s view is shown only to that seat's own token",
            game_id=live.id,
        )
    return seat


def _summary(
    summary: game_pb2.GameSummary,
    game: GameRow,
    seats: list[GameSeatRow],
    result: ResultRow | None,
) -> None:
    """Fill one ListGames entry."""
    summary.game_id = game.id
    summary.variant = game.variant
    summary.status = (
        game_pb2.GAME_STATUS_FINISHED if game.status == FINISHED else game_pb2.GAME_STATUS_ACTIVE
    )
    summary.version = game.version
    summary.rules_id = game.rules_id
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
        summary.result.finished_at.FromDatetime(result.finished_at)
        for key, rank in sorted(result.ranks.items(), key=lambda kv: int(kv[0])):
            summary.result.seats.add(
                seat=int(key),
                rank=rank,
                score=float(result.scores.get(key, 0.0)),
                winner=int(key) in result.winners,
            )
