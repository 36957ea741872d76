"""LobbyService "my games" and "games to watch": ListMyGames, GetSeatAccess, ListLiveGames,
GetSpectatorAccess.

The listing comes from SQL (`services.lobby.listings`); whose turn it is and the result
come from the authority's spectator view of each active game (the lobby keeps a spectator
token for every game it creates), asked concurrently and bounded in time: a game the
authority does not answer for is listed with `live_info` false. No game logic here.
"""

from __future__ import annotations

import asyncio
from datetime import UTC

from services.common import validation
from services.common.logging import get_logger
from services.lobby.base import TABLE_STATUS, Context, LobbyBase, page, seat_messages, ts
from services.lobby.director import game_kind
from services.lobby.errors import FailedPrecondition, NotFound, PermissionDenied
from services.lobby.listings import MyGameRow
from services.lobby.models import TableRow
from services.lobby.store import FINISHED
from warroom.v1 import game_pb2, lobby_pb2

log = get_logger("lobby.my_games")
VIEW_TIMEOUT_S = 3.0


class GamesMixin(LobbyBase):
    """My games, seat access, watchable games, spectator access."""

    def _my_game(self, row: MyGameRow) -> lobby_pb2.MyGame:
        table = row.table
        finished = table.status == FINISHED or row.game_status == "finished"
        message = lobby_pb2.MyGame(
            table_id=table.id,
            game_id=table.game_id or "",
            game=game_kind(table.game),
            rules_id=table.game,
            variant=table.variant,
            seats=seat_messages(table),
            seat=row.seat,
            side=row.side,
            status=TABLE_STATUS[FINISHED if finished else table.status],
            version=row.version or 0,
            last_activity=ts(row.updated_at or table.started_at),
            started_at=ts(table.started_at),
            finished_at=ts(row.finished_at or table.finished_at),
            game_endpoint=self.settings.game_endpoint,
            spectator_token=(table.spectator_token or "") if table.allow_spectators else "",
            matchmade=table.source == "match",
        )
        if row.clock_deadline is not None and not finished:
            deadline = row.clock_deadline
            message.clock_deadline.FromDatetime(
                deadline if deadline.tzinfo else deadline.replace(tzinfo=UTC)
            )
        return message

    async def _live(self, table: TableRow, message: lobby_pb2.MyGame) -> None:
        """Fill whose turn it is (and the result) from the authority's spectator view."""
        if not table.game_id or not table.spectator_token:
            return
        try:
            view = await asyncio.wait_for(
                self.games.view(table.game_id, table.spectator_token), VIEW_TIMEOUT_S
            )
        except Exception as exc:  # the listing still answers: live_info stays false
            log.warning("no live info", game_id=table.game_id, error=str(exc)[:200])
            return
        message.live_info = True
        message.version = view.version
        if view.HasField("result") and view.result.seats:
            message.result.CopyFrom(view.result)
            message.status = lobby_pb2.Table.STATUS_FINISHED
            message.ClearField("clock_deadline")
            return
        message.to_act.extend(view.decision.seats)
        message.my_turn = message.seat in view.decision.seats

    async def ListMyGames(
        self, request: lobby_pb2.ListMyGamesRequest, context: Context
    ) -> lobby_pb2.ListMyGamesResponse:
        async def call() -> lobby_pb2.ListMyGamesResponse:
            me = self._identity(context)
            game = (
                self._game(request.game, request.rules_id)
                if (request.game or request.rules_id)
                else ""
            )
            offset, size = page(request.page, self.lobby.page_size_max)
            rows = await self._db(
                self.listings.my_games,
                me.player_id,
                request.include_finished,
                game,
                offset,
                size + 1,
            )
            messages = [self._my_game(r) for r in rows[:size]]
            slots = asyncio.Semaphore(max(1, self.lobby.live_info_concurrency))

            async def fill(row: MyGameRow, message: lobby_pb2.MyGame) -> None:
                async with slots:
                    await self._live(row.table, message)

            await asyncio.gather(*(fill(r, m) for r, m in zip(rows, messages, strict=False)))
            return lobby_pb2.ListMyGamesResponse(
                games=messages, next_page_token=str(offset + size) if len(rows) > size else ""
            )

        return await self._run(context, call)

    async def GetSeatAccess(
        self, request: lobby_pb2.GetSeatAccessRequest, context: Context
    ) -> lobby_pb2.GetSeatAccessResponse:
        async def call() -> lobby_pb2.GetSeatAccessResponse:
            me = self._identity(context)
            if not request.game_id and not request.table_id:
                validation.check_id(request.game_id, "game_id")
            validation.check_id(request.game_id, "game_id", required=False)
            validation.check_id(request.table_id, "table_id", required=False)
            table = await self._db(self.listings.table_of, request.game_id, request.table_id)
            which = request.game_id or request.table_id
            if table is None or not any(s.player_id == me.player_id for s in table.seats):
                raise NotFound("NOT_SEATED", f"you sit at no started game {which}")
            if not table.game_id:
                raise FailedPrecondition(
                    "TABLE_NOT_STARTED", f"table {table.id} has not started yet"
                )
            assignment = await self._assignment(table, me.player_id)
            return lobby_pb2.GetSeatAccessResponse(assignment=assignment)

        return await self._run(context, call)

    def _live_game(self, table: TableRow) -> lobby_pb2.LiveGame:
        return lobby_pb2.LiveGame(
            game_id=table.game_id or "",
            table_id=table.id,
            game=game_kind(table.game),
            rules_id=table.game,
            variant=table.variant,
            seats=seat_messages(table),
            started_at=ts(table.started_at),
            matchmade=table.source == "match",
            spectator_token=table.spectator_token or "",
            game_endpoint=self.settings.game_endpoint,
        )

    async def ListLiveGames(
        self, request: lobby_pb2.ListLiveGamesRequest, context: Context
    ) -> lobby_pb2.ListLiveGamesResponse:
        async def call() -> lobby_pb2.ListLiveGamesResponse:
            self._identity(context)
            game = (
                self._game(request.game, request.rules_id)
                if (request.game or request.rules_id)
                else ""
            )
            if request.variant:
                if not game:
                    raise_variant_needs_game()
                self._layout(game, request.variant)
            offset, size = page(request.page, self.lobby.page_size_max)
            rows = await self._db(self.listings.live_games, game, request.variant, offset, size + 1)
            return lobby_pb2.ListLiveGamesResponse(
                games=[self._live_game(t) for t in rows[:size]],
                next_page_token=str(offset + size) if len(rows) > size else "",
            )

        return await self._run(context, call)

    async def GetSpectatorAccess(
        self, request: lobby_pb2.GetSpectatorAccessRequest, context: Context
    ) -> lobby_pb2.GetSpectatorAccessResponse:
        async def call() -> lobby_pb2.GetSpectatorAccessResponse:
            me = self._identity(context)
            validation.check_id(request.game_id, "game_id")
            table = await self._db(self.listings.table_of, request.game_id, "")
            if table is None:
                raise NotFound("GAME_NOT_FOUND", f"the lobby knows no game {request.game_id}")
            seated = any(s.player_id == me.player_id for s in table.seats)
            public = await self._db(self.listings.is_watchable, table.id)
            if not public and not (seated and table.allow_spectators and table.spectator_token):
                raise PermissionDenied(
                    "NOT_WATCHABLE",
                    f"game {request.game_id} cannot be watched: its table is private or does "
                    "not allow spectators",
                )
            return lobby_pb2.GetSpectatorAccessResponse(game=self._live_game(table))

        return await self._run(context, call)


def raise_variant_needs_game() -> None:
    """VARIANT_NEEDS_GAME: a variant filter without the game."""
    from services.lobby.errors import InvalidArgument

    raise InvalidArgument("VARIANT_NEEDS_GAME", "filtering by variant needs the game", "variant")


__all__ = ["GamesMixin", "game_pb2"]
