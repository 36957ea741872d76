"""The grpc.aio LobbyService: players, tables, matchmaking tickets, ratings.

Every call but Login needs `authorization: Bearer <player token>`. Errors map to statuses
with a message naming the problem (see `services.lobby.errors`) and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.timestamp_pb2 import Timestamp

from services.common.auth import bearer
from services.common.logging import get_logger
from services.common.settings import Settings
from services.lobby import metrics
from services.lobby.auth import Identity, TokenError, issue_token, read_token
from services.lobby.config import LobbySettings, token_key, token_keys
from services.lobby.director import assignment_message, game_kind
from services.lobby.errors import (
    FailedPrecondition,
    InvalidArgument,
    LobbyError,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from services.lobby.games import GameCreator
from services.lobby.models import PlayerRow, RatingRow, TableRow
from services.lobby.queue import ACTIVE, AlreadyQueuedError, TicketQueue
from services.lobby.store import LobbyStore, SeatPlan, plan_seats
from warroom.api import kinds
from warroom.bots.registry import default_difficulty
from warroom.engine.errors import RulesError
from warroom.engine.registry import game_ids, get_rules
from warroom.matchmaking import BotChoice, Ticket, VariantLayout, layouts_for, validate
from warroom.matchmaking.model import MatchConfig
from warroom.ratings import SkillRating
from warroom.v1 import common_pb2, game_pb2, lobby_pb2, lobby_pb2_grpc

log = get_logger("lobby.service")
T = TypeVar("T")
SERVICE_NAME = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
Context = grpc.aio.ServicerContext[Any, Any]
TOKEN_CACHE = 50_000

STATUS = {
    "searching": lobby_pb2.TICKET_STATUS_SEARCHING,
    "claimed": lobby_pb2.TICKET_STATUS_SEARCHING,
    "matched": lobby_pb2.TICKET_STATUS_MATCHED,
    "cancelled": lobby_pb2.TICKET_STATUS_CANCELLED,
    "expired": lobby_pb2.TICKET_STATUS_EXPIRED,
}
TABLE_STATUS = {
    "open": lobby_pb2.Table.STATUS_OPEN,
    "started": lobby_pb2.Table.STATUS_STARTED,
    "finished": lobby_pb2.Table.STATUS_FINISHED,
    "closed": lobby_pb2.Table.STATUS_CLOSED,
}


def _ts(value: datetime | float | None) -> Timestamp | None:
    if value is None:
        return None
    ts = Timestamp()
    if isinstance(value, datetime):
        ts.FromDatetime(value if value.tzinfo else value.replace(tzinfo=UTC))
    else:
        ts.FromNanoseconds(int(value * 1e9))
    return ts


def _page(page: common_pb2.PageRequest, limit: int) -> tuple[int, int]:
    size = page.page_size or 20
    if size < 0 or size > limit:
        raise InvalidArgument(f"page_size must be between 1 and {limit}")
    try:
        offset = int(page.page_token or "0")
    except ValueError:
        raise InvalidArgument(f"bad page_token {page.page_token!r}") from None
    if offset < 0:
        raise InvalidArgument(f"bad page_token {page.page_token!r}")
    return offset, size


def _bot(spec: common_pb2.BotSpec, default: BotChoice) -> BotChoice:
    if not spec.kind:
        return default
    return BotChoice(spec.kind, spec.difficulty or _difficulty(spec.kind, default))


def _difficulty(kind: str, default: BotChoice) -> str:
    """The difficulty of a bot named without one: the default bot's for its own kind, else
    the kind's own default (another kind may not have the default bot's difficulty)."""
    return default.difficulty if kind == default.kind else default_difficulty(kind)


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    """LobbyService over the SQL store, the Redis ticket queue and the authority."""

    def __init__(
        self,
        settings: Settings,
        lobby: LobbySettings,
        store: LobbyStore,
        queue: TicketQueue,
        games: GameCreator,
    ) -> None:
        self.settings = settings
        self.lobby = lobby
        self.store = store
        self.queue = queue
        self.games = games
        self.key = token_key(settings, lobby)
        self.keys = token_keys(settings)
        # Verified tokens (the signature is checked once per token; expiry on every call).
        self._tokens: dict[str, Identity] = {}
        self.default_bot = BotChoice(lobby.default_fill_bot_kind, lobby.default_fill_bot_difficulty)
        self.match_config = MatchConfig(
            window_base=lobby.window_base,
            window_per_s=lobby.window_per_s,
            window_max=lobby.window_max,
        )

    # ------------------------------------------------------------------ plumbing

    async def _run(self, context: Context, call: Callable[[], Awaitable[T]]) -> T:
        try:
            return await call()
        except LobbyError as error:
            metrics.REJECTS.labels(error.code.name).inc()
            await context.abort(error.code, error.message)
        except RulesError as error:
            metrics.REJECTS.labels("INVALID_ARGUMENT").inc()
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        raise AssertionError("unreachable")

    def _identity(self, context: Context) -> Identity:
        token = bearer(context.invocation_metadata())
        if token is None:
            raise Unauthenticated("missing token: send authorization: Bearer <token from Login>")
        known = self._tokens.get(token)
        if known is not None and known.expires_at > time.time():
            return known
        try:
            identity = read_token(self.keys, token)
        except TokenError as error:
            raise Unauthenticated(str(error)) from None
        self._remember(token, identity)
        return identity

    def _remember(self, token: str, identity: Identity) -> None:
        """Cache a token known to be valid (checked or just issued by this replica)."""
        if len(self._tokens) >= TOKEN_CACHE:
            self._tokens.clear()
        self._tokens[token] = identity

    def _game(self, kind: int, rules_id: str) -> str:
        if rules_id:
            game = rules_id
        elif kind:
            try:
                game = kinds.game_id(kind)
            except RulesError:
                raise InvalidArgument(f"unknown game kind {kind}") from None
        else:
            raise InvalidArgument("game is required")
        try:
            get_rules(game)
        except (RulesError, ImportError) as exc:
            raise InvalidArgument(f"unknown game {game!r}: {exc}") from None
        return game

    def _layout(self, game: str, variant: str) -> VariantLayout:
        layouts = layouts_for(game)
        if not variant:
            return next(iter(layouts.values()))
        if variant not in layouts:
            known = ", ".join(layouts)
            raise InvalidArgument(f"{game}: unknown variant {variant!r} (known: {known})")
        return layouts[variant]

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def _table(self, table: TableRow, viewer: str) -> lobby_pb2.Table:
        seats = [
            common_pb2.Seat(
                index=s.index,
                side=s.side,
                team=s.team,
                player_id=s.player_id or "",
                display_name=s.display_name
                or (f"{s.bot_kind} ({s.bot_difficulty})" if s.bot_kind else ""),
                is_bot=bool(s.bot_kind),
                bot=common_pb2.BotSpec(kind=s.bot_kind, difficulty=s.bot_difficulty or "")
                if s.bot_kind
                else None,
            )
            for s in table.seats
        ]
        message = lobby_pb2.Table(
            table_id=table.id,
            game=game_kind(table.game),
            rules_id=table.game,
            variant=table.variant,
            options={k: str(v) for k, v in table.options.items()},
            host_player_id=table.host_player_id or "",
            seats=seats,
            open_seats=sum(
                1 for s in table.seats if not s.player_id and not s.bot_kind and not s.automated
            ),
            private=table.private,
            invite_code=(table.invite_code or "") if viewer == table.host_player_id else "",
            allow_spectators=table.allow_spectators,
            status=TABLE_STATUS[table.status],
            game_id=table.game_id or "",
            created_at=_ts(table.created_at),
            spectator_token=(table.spectator_token or "")
            if table.allow_spectators and table.game_id
            else "",
        )
        if table.clock:
            json_format.ParseDict(table.clock, message.clock)
        return message

    def _seat_assignment(self, table: TableRow, player_id: str) -> common_pb2.Assignment | None:
        seat = next((s for s in table.seats if s.player_id == player_id), None)
        if seat is None or not table.game_id or not seat.seat_token:
            return None
        return common_pb2.Assignment(
            game_id=table.game_id,
            game=game_kind(table.game),
            variant=table.variant,
            seat=seat.index,
            side=seat.side,
            seat_token=seat.seat_token,
            game_endpoint=self.settings.game_endpoint,
        )

    # ------------------------------------------------------------------ players

    async def Login(
        self, request: lobby_pb2.LoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        async def call() -> lobby_pb2.LoginResponse:
            player = await self._db(
                self.store.login, request.name, request.password, request.register
            )
            means = await self._db(self.store.means, player.id)
            await self.queue.cache_profile(
                player.id,
                player.display_name,
                player.bot,
                {game: means.get(game) for game in {*game_ids(), *means}},
                self.lobby.token_ttl_s,
            )
            token, expires = issue_token(
                self.key, player.id, player.display_name, player.guest, self.lobby.token_ttl_s
            )
            self._remember(token, Identity(player.id, player.display_name, player.guest, expires))
            return lobby_pb2.LoginResponse(
                player_id=player.id,
                display_name=player.display_name,
                token=token,
                expires_at=_ts(expires),
                guest=player.guest,
            )

        return await self._run(context, call)

    def _rating(self, row: RatingRow) -> lobby_pb2.Rating:
        return lobby_pb2.Rating(
            game=game_kind(row.game),
            rules_id=row.game,
            mu=row.mu,
            sigma=row.sigma,
            ordinal=row.ordinal,
            games=row.games,
        )

    def _player(self, player: PlayerRow, ratings: list[RatingRow]) -> lobby_pb2.Player:
        return lobby_pb2.Player(
            player_id=player.id,
            display_name=player.display_name,
            guest=player.guest,
            bot=player.bot,
            ratings=[self._rating(r) for r in ratings],
            created_at=_ts(player.created_at),
        )

    async def GetPlayer(
        self, request: lobby_pb2.GetPlayerRequest, context: Context
    ) -> lobby_pb2.GetPlayerResponse:
        async def call() -> lobby_pb2.GetPlayerResponse:
            me = self._identity(context)
            player, ratings = await self._db(self.store.player, request.player_id or me.player_id)
            return lobby_pb2.GetPlayerResponse(player=self._player(player, ratings))

        return await self._run(context, call)

    async def GetLeaderboard(
        self, request: lobby_pb2.GetLeaderboardRequest, context: Context
    ) -> lobby_pb2.GetLeaderboardResponse:
        async def call() -> lobby_pb2.GetLeaderboardResponse:
            self._identity(context)
            game = self._game(request.game, request.rules_id)
            offset, size = _page(request.page, self.lobby.page_size_max)
            rows = await self._db(self.store.leaderboard, game, offset, size + 1)
            entries = [
                lobby_pb2.LeaderboardEntry(
                    rank=offset + i + 1, player=self._player(p, []), rating=self._rating(r)
                )
                for i, (p, r) in enumerate(rows[:size])
            ]
            return lobby_pb2.GetLeaderboardResponse(
                entries=entries, next_page_token=str(offset + size) if len(rows) > size else ""
            )

        return await self._run(context, call)

    # ------------------------------------------------------------------ tables

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        async def call() -> lobby_pb2.CreateTableResponse:
            me = self._identity(context)
            game = self._game(request.game, request.rules_id)
            layout = self._layout(game, request.variant)
            try:
                get_rules(game).setup(0, layout.variant, dict(request.options))
            except RulesError as exc:
                raise InvalidArgument(f"bad options for {game}/{layout.variant}: {exc}") from None
            official = layout.official_bot
            if request.fill_bot.difficulty:
                official = BotChoice(official.kind, request.fill_bot.difficulty)
            plans = plan_seats(layout, official)
            if request.seats:
                if len(request.seats) != len(plans):
                    raise InvalidArgument(
                        f"{game}/{layout.variant} has {len(plans)} seats, "
                        f"the request configures {len(request.seats)}"
                    )
                for i, spec in enumerate(request.seats):
                    if spec.side and spec.side != plans[i].side:
                        raise InvalidArgument(
                            f"seat {i} plays {plans[i].side!r}, not {spec.side!r}"
                        )
                    if plans[i].automated and spec.bot.difficulty:
                        plans[i] = SeatPlan(
                            i,
                            plans[i].side,
                            plans[i].team,
                            bot=BotChoice(official.kind, spec.bot.difficulty),
                            automated=True,
                        )
                    elif spec.bot.kind and not plans[i].automated:
                        plans[i] = SeatPlan(
                            i, plans[i].side, plans[i].team, bot=_bot(spec.bot, self.default_bot)
                        )
            free = [p for p in plans if p.bot is None and not p.automated]
            if not free:
                raise InvalidArgument("every seat is a bot: leave one for the host")
            host = next((p for p in free if p.side == request.host_side), None)
            if request.host_side and host is None:
                sides = ", ".join(p.side for p in free)
                raise InvalidArgument(f"no open seat plays {request.host_side!r} (open: {sides})")
            host = host or free[0]
            player, _ = await self._db(self.store.player, me.player_id)
            plans[host.index] = SeatPlan(
                host.index, host.side, host.team, player.id, player.display_name
            )
            clock = (
                json_format.MessageToDict(request.clock, preserving_proto_field_name=True)
                if request.HasField("clock")
                else {}
            )
            fill = json_format.MessageToDict(request.fill_bot, preserving_proto_field_name=True)
            table = await self._db(
                self.store.create_table,
                game=game,
                variant=layout.variant,
                options=dict(request.options),
                host=player,
                seats=plans,
                private=request.private,
                allow_spectators=request.allow_spectators,
                clock=clock,
                fill_bot=fill,
            )
            response = lobby_pb2.CreateTableResponse()
            if request.start_now:
                table = await self._start(table, me.player_id)
                assignment = self._seat_assignment(table, me.player_id)
                if assignment is not None:
                    response.assignment.CopyFrom(assignment)
            response.table.CopyFrom(self._table(table, me.player_id))
            return response

        return await self._run(context, call)

    async def _start(self, table: TableRow, player_id: str) -> TableRow:
        if table.host_player_id != player_id:
            raise PermissionDenied(f"only the host may start table {table.id}")
        if table.status != "open":
            raise FailedPrecondition(f"table {table.id} is already {table.status}")
        fill = self.default_bot
        if table.fill_bot.get("kind"):
            kind = table.fill_bot["kind"]
            fill = BotChoice(kind, table.fill_bot.get("difficulty") or _difficulty(kind, fill))
        clock = common_pb2.ClockSpec()
        if table.clock:
            json_format.ParseDict(table.clock, clock)
        seats = []
        for s in table.seats:
            bot = None
            if s.bot_kind:
                bot = common_pb2.BotSpec(kind=s.bot_kind, difficulty=s.bot_difficulty or "")
            elif not s.player_id:
                bot = common_pb2.BotSpec(kind=fill.kind, difficulty=fill.difficulty)
            seats.append(
                game_pb2.SeatSpec(
                    player_id=s.player_id or "",
                    display_name=s.display_name or "",
                    bot=bot,
                    clock=clock if table.clock and s.player_id else None,
                )
            )
        created = await self.games.create_game(
            game_pb2.CreateGameRequest(
                game=game_kind(table.game),
                rules_id=table.game,
                variant=table.variant,
                options={k: str(v) for k, v in table.options.items()},
                seats=seats,
                # always: the lobby reads results with the spectator token (side-effect free)
                # and hands it out only when the table allows spectators
                allow_spectators=True,
                request_id=f"table:{table.id}:{table.version}",
            )
        )
        return await self._db(
            self.store.mark_started,
            table.id,
            table.version,
            created.game_id,
            fill,
            list(created.seat_tokens),
            created.spectator_token,
        )

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        async def call() -> lobby_pb2.ListTablesResponse:
            me = self._identity(context)
            game = (
                self._game(request.game, request.rules_id)
                if request.game or request.rules_id
                else None
            )
            if request.variant and game is None:
                raise InvalidArgument("filtering by variant needs the game")
            if request.variant and game is not None:
                self._layout(game, request.variant)
            offset, size = _page(request.page, self.lobby.page_size_max)
            rows = await self._db(
                self.store.list_tables, game, request.variant, request.open_only, offset, size + 1
            )
            return lobby_pb2.ListTablesResponse(
                tables=[self._table(t, me.player_id) for t in rows[:size]],
                next_page_token=str(offset + size) if len(rows) > size else "",
            )

        return await self._run(context, call)

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        async def call() -> lobby_pb2.JoinTableResponse:
            me = self._identity(context)
            player, _ = await self._db(self.store.player, me.player_id)
            table, _seated = await self._db(
                self.store.join_table,
                request.table_id,
                player,
                request.side_preference,
                request.invite_code,
            )
            response = lobby_pb2.JoinTableResponse(table=self._table(table, me.player_id))
            assignment = self._seat_assignment(table, me.player_id)
            if assignment is not None:
                response.assignment.CopyFrom(assignment)
            return response

        return await self._run(context, call)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        async def call() -> lobby_pb2.LeaveTableResponse:
            me = self._identity(context)
            table = await self._db(self.store.leave_table, request.table_id, me.player_id)
            return lobby_pb2.LeaveTableResponse(table=self._table(table, me.player_id))

        return await self._run(context, call)

    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Context
    ) -> lobby_pb2.StartTableResponse:
        async def call() -> lobby_pb2.StartTableResponse:
            me = self._identity(context)
            table = await self._db(self.store.check_start, request.table_id, me.player_id)
            table = await self._start(table, me.player_id)
            response = lobby_pb2.StartTableResponse(table=self._table(table, me.player_id))
            assignment = self._seat_assignment(table, me.player_id)
            if assignment is not None:
                response.assignment.CopyFrom(assignment)
            return response

        return await self._run(context, call)

    # ------------------------------------------------------------------ matchmaking

    def _ticket(self, ticket_id: str, fields: dict[str, str]) -> lobby_pb2.Ticket:
        return lobby_pb2.Ticket(
            ticket_id=ticket_id,
            game=game_kind(fields.get("game", "")),
            rules_id=fields.get("game", ""),
            status=STATUS.get(fields.get("status", ""), lobby_pb2.TICKET_STATUS_UNSPECIFIED),
            created_at=_ts(float(fields.get("created_at", "0"))),
            expires_at=_ts(float(fields.get("expires_at", "0"))),
        )

    async def EnqueueTicket(
        self, request: lobby_pb2.EnqueueTicketRequest, context: Context
    ) -> lobby_pb2.EnqueueTicketResponse:
        async def call() -> lobby_pb2.EnqueueTicketResponse:
            me = self._identity(context)
            game = self._game(request.game, request.rules_id)
            layouts = layouts_for(game)
            party = list(request.party_player_ids)
            if me.player_id in party:
                raise InvalidArgument("bad party: list the other members, not yourself")
            if len(set(party)) != len(party):
                raise InvalidArgument("bad party: a member is listed twice")
            if len(party) + 1 > self.lobby.max_party:
                raise InvalidArgument(f"bad party: at most {self.lobby.max_party} players")
            if request.bot_fill_after_s < 0:
                raise InvalidArgument("bot_fill_after_s must not be negative")
            if request.ttl_s < 0 or request.ttl_s > self.lobby.ticket_ttl_max_s:
                raise InvalidArgument(
                    f"ttl_s must be between 0 and {self.lobby.ticket_ttl_max_s} seconds"
                )
            members = [me.player_id, *party]
            now = time.time()
            ticket = Ticket(
                ticket_id=f"tk-{uuid.uuid4().hex[:20]}",
                player_ids=tuple(members),
                ratings=(),
                created_at=now,
                variants=tuple(request.variants),
                side_preferences=tuple(request.side_preferences),
                allow_bots=request.allow_bots,
                bot_fill_after_s=float(request.bot_fill_after_s),
                fill_bot=_bot(request.fill_bot, self.default_bot),
            )
            reason = validate(ticket, layouts)
            if reason is not None:
                raise InvalidArgument(f"{game}: {reason}")
            ttl = request.ttl_s or self.lobby.ticket_ttl_s
            player_ttl = self.lobby.ticket_ttl_max_s + 60
            try:
                # names and means from the profile cache, read by the enqueue script itself
                verdict = await self.queue.enqueue_cached(
                    ticket, game, self.lobby.queue, now + ttl, player_ttl, SkillRating().mu
                )
                if verdict[0] == "miss":
                    profiles = await self._profiles(members, game)
                    missing = [p for p in members if p not in profiles]
                    if missing:
                        raise InvalidArgument(f"bad party: unknown players {missing}")
                    if any(profiles[p][1] for p in members):
                        raise InvalidArgument("bad party: bots cannot queue")
                    ticket = dataclasses.replace(
                        ticket,
                        ratings=tuple(
                            mu if (mu := profiles[p][2]) is not None else SkillRating().mu
                            for p in members
                        ),
                        names=tuple(profiles[p][0] for p in members),
                    )
                    await self.queue.enqueue(ticket, game, self.lobby.queue, now + ttl, player_ttl)
                elif verdict[0] == "bot":
                    raise InvalidArgument("bad party: bots cannot queue")
            except AlreadyQueuedError as error:
                raise FailedPrecondition(
                    f"already queued: player {error.player_id} has active ticket {error.ticket_id}"
                ) from None
            metrics.TICKETS.labels(game).inc()
            fields = {
                "game": game,
                "status": "searching",
                "created_at": repr(now),
                "expires_at": repr(now + ttl),
            }
            return lobby_pb2.EnqueueTicketResponse(ticket=self._ticket(ticket.ticket_id, fields))

        return await self._run(context, call)

    async def _profiles(
        self, members: list[str], game: str
    ) -> dict[str, tuple[str, bool, float | None]]:
        """Name, bot flag and rating mean of each known member, from SQL (then cached for
        the enqueue script)."""
        known, ratings = await self._db(self.store.players_with_ratings, game, members)
        profiles: dict[str, tuple[str, bool, float | None]] = {}
        for pid, info in known.items():
            mean = ratings[pid].mu if pid in ratings else None
            profiles[pid] = (info.display_name, info.bot, mean)
            await self.queue.cache_profile(
                pid, info.display_name, info.bot, {game: mean}, self.lobby.token_ttl_s
            )
        return profiles

    async def _member_ticket(self, ticket_id: str, player_id: str) -> dict[str, str]:
        fields = await self.queue.get(ticket_id)
        if fields is None or player_id not in json.loads(fields.get("players", "[]")):
            raise NotFound(f"unknown ticket {ticket_id}")
        return fields

    async def CancelTicket(
        self, request: lobby_pb2.CancelTicketRequest, context: Context
    ) -> lobby_pb2.CancelTicketResponse:
        async def call() -> lobby_pb2.CancelTicketResponse:
            me = self._identity(context)
            await self._member_ticket(request.ticket_id, me.player_id)
            status = await self.queue.cancel(request.ticket_id, me.player_id)
            if status == "missing":
                raise NotFound(f"unknown ticket {request.ticket_id}")
            if status == "matched":
                raise FailedPrecondition(
                    f"ticket {request.ticket_id} is already matched; resign the game instead"
                )
            fields = await self._member_ticket(request.ticket_id, me.player_id)
            return lobby_pb2.CancelTicketResponse(ticket=self._ticket(request.ticket_id, fields))

        return await self._run(context, call)

    def _watch_message(
        self, ticket_id: str, fields: dict[str, str], player_id: str, pool: int
    ) -> lobby_pb2.WatchTicketResponse:
        status = STATUS.get(fields.get("status", ""), lobby_pb2.TICKET_STATUS_UNSPECIFIED)
        message = lobby_pb2.WatchTicketResponse(ticket_id=ticket_id, status=status)
        if fields.get("status") in ACTIVE:
            waited = max(0.0, time.time() - float(fields.get("created_at", "0")))
            message.waited_s = waited
            message.pool_size = pool
            message.rating_window = self.match_config.window(waited)
        elif fields.get("status") == "matched":
            assignment = assignment_message(fields, player_id, self.settings.game_endpoint)
            if assignment is not None:
                message.assignment.CopyFrom(assignment)
        return message

    async def WatchTicket(
        self, request: lobby_pb2.WatchTicketRequest, context: Context
    ) -> AsyncIterator[lobby_pb2.WatchTicketResponse]:
        try:
            me = self._identity(context)
            fields = await self._member_ticket(request.ticket_id, me.player_id)
        except LobbyError as error:
            await context.abort(error.code, error.message)
            return
        pubsub: Any = self.queue.watch_redis.pubsub()
        await pubsub.subscribe(self.queue.channel(request.ticket_id))
        metrics.WATCHERS.inc()
        try:
            while True:
                current = await self.queue.get(request.ticket_id)
                if current is None:
                    await context.abort(
                        grpc.StatusCode.NOT_FOUND,
                        f"ticket {request.ticket_id} was lost (queue reset); enqueue again",
                    )
                    return
                fields = current
                pool = await self.queue.pool_size(fields.get("game", ""), fields.get("queue", ""))
                yield self._watch_message(request.ticket_id, fields, me.player_id, pool)
                if fields.get("status") not in ACTIVE:
                    return
                await _next_message(pubsub, self.lobby.watch_interval_s)
        finally:
            metrics.WATCHERS.dec()
            await pubsub.unsubscribe()
            await pubsub.aclose()


async def _next_message(pubsub: Any, timeout_s: float) -> None:
    """Wait until a status message arrives on the channel or `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        with contextlib.suppress(TimeoutError):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
            if message is not None:
                return


def register(servicer: LobbyServicer) -> Callable[[grpc.aio.Server], None]:
    """A registration callback for `services.common.server.start_server`."""

    def add(server: grpc.aio.Server) -> None:
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(servicer, server)

    return add
