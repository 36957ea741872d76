"""LobbyService custom tables: create, list, join, leave, start.

Every name is checked where it enters (sides, variants, options, bot kinds and
difficulties, ids), so a table never holds a seat nothing can play.
"""

from __future__ import annotations

from google.protobuf import json_format

from services.common import validation
from services.lobby.base import Context, LobbyBase, game_request, page
from services.lobby.errors import InvalidArgument
from services.lobby.models import TableRow
from services.lobby.store import SeatPlan, check_startable, plan_seats
from warroom.matchmaking import BotChoice, VariantLayout
from warroom.v1 import lobby_pb2


class TablesMixin(LobbyBase):
    """CreateTable, ListTables, JoinTable, LeaveTable, StartTable."""

    def _official(self, layout: VariantLayout, difficulty: str, field: str) -> BotChoice:
        """The bot of the seats the rules automate, at `difficulty` when given."""
        official = layout.official_bot
        if not difficulty:
            return official
        validation.check_difficulty(difficulty, official.kind, field)
        return BotChoice(official.kind, difficulty)

    def _plans(
        self, request: lobby_pb2.CreateTableRequest, game: str, layout: VariantLayout
    ) -> list[SeatPlan]:
        """The seats of a new table as configured (validated)."""
        # fill_bot.difficulty also sets the level of the rules' own bots
        official = self._official(layout, request.fill_bot.difficulty, "fill_bot.difficulty")
        plans = plan_seats(layout, official)
        if not request.seats:
            return plans
        if len(request.seats) != len(plans):
            raise InvalidArgument(
                "SEAT_COUNT",
                f"{game}/{layout.variant} has {len(plans)} seats, "
                f"the request configures {len(request.seats)}",
                "seats",
            )
        for i, spec in enumerate(request.seats):
            plan = plans[i]
            field = f"seats[{i}]"
            if spec.side and spec.side != plan.side:
                raise InvalidArgument(
                    "UNKNOWN_SIDE", f"seat {i} plays {plan.side!r}, not {spec.side!r}", field
                )
            if plan.automated:
                if spec.bot.kind and spec.bot.kind != official.kind:
                    raise InvalidArgument(
                        "AUTOMATED_SEAT",
                        f"seat {i} ({plan.side}) is played by the rules' own bot "
                        f"{official.kind!r}: set only bot.difficulty",
                        f"{field}.bot.kind",
                    )
                bot = self._official(layout, spec.bot.difficulty, f"{field}.bot.difficulty")
                plans[i] = SeatPlan(i, plan.side, plan.team, bot=bot, automated=True)
            elif spec.bot.kind or spec.bot.difficulty:
                if not spec.bot.kind:
                    raise InvalidArgument(
                        "MISSING_FIELD", f"seat {i}: a bot seat needs bot.kind", f"{field}.bot"
                    )
                chosen = self._bot(spec.bot, game, f"{field}.bot")
                plans[i] = SeatPlan(i, plan.side, plan.team, bot=chosen)
        return plans

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        async def call() -> lobby_pb2.CreateTableResponse:
            me = self._identity(context)
            game = self._game(request.game, request.rules_id)
            layout = self._layout(game, request.variant)
            options = validation.check_options(request.options)
            validation.check_text(request.host_side, "host_side", validation.OPTION_MAX)
            self._check_setup(game, layout.variant, options)
            if request.HasField("clock"):
                validation.check_clock(request.clock, game, "clock")
            fill = self._bot(request.fill_bot, game, "fill_bot")
            plans = self._plans(request, game, layout)
            free = [p for p in plans if p.bot is None and not p.automated]
            if not free:
                raise InvalidArgument(
                    "NO_HUMAN_SEAT", "every seat is a bot: leave one for the host", "seats"
                )
            host = next((p for p in free if p.side == request.host_side), None)
            if request.host_side and host is None:
                sides = ", ".join(p.side for p in free)
                raise InvalidArgument(
                    "UNKNOWN_SIDE",
                    f"no open seat plays {request.host_side!r} (open: {sides})",
                    "host_side",
                )
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
            table = await self._db(
                self.store.create_table,
                game=game,
                variant=layout.variant,
                options=options,
                host=player,
                seats=plans,
                private=request.private,
                allow_spectators=request.allow_spectators,
                clock=clock,
                fill_bot={"kind": fill.kind, "difficulty": fill.difficulty} if fill else {},
            )
            response = lobby_pb2.CreateTableResponse()
            if request.start_now:
                table, tokens = await self._start(table, me.player_id)
                assignment = await self._assignment(table, me.player_id, tokens)
                if assignment is not None:
                    response.assignment.CopyFrom(assignment)
            response.table.CopyFrom(self._table(table, me.player_id))
            return response

        return await self._run(context, call)

    def _check_setup(self, game: str, variant: str, options: dict[str, str]) -> None:
        from warroom.engine.errors import RulesError
        from warroom.engine.registry import get_rules

        try:
            get_rules(game).setup(0, variant, options)
        except RulesError as exc:
            raise InvalidArgument(
                "BAD_OPTIONS", f"bad options for {game}/{variant}: {exc}", "options"
            ) from None

    def _fill(self, table: TableRow) -> BotChoice:
        """The bot that fills a table's empty seats at start (validated: tables stored
        before edge validation may name a bot that cannot play)."""
        kind = str(table.fill_bot.get("kind") or "")
        difficulty = str(table.fill_bot.get("difficulty") or "")
        if not kind:
            kind, difficulty = self.default_bot.kind, self.default_bot.difficulty
        kind, difficulty = validation.check_bot(kind, difficulty, table.game, "fill_bot")
        for seat in table.seats:
            if seat.bot_kind and not seat.automated:
                validation.check_bot(
                    seat.bot_kind, seat.bot_difficulty or "", table.game, f"seats[{seat.index}]"
                )
        return BotChoice(kind, difficulty)

    async def _start(self, table: TableRow, player_id: str) -> tuple[TableRow, list[str]]:
        """Start a table: create its game, record it; the table and the seat tokens."""
        check_startable(table, player_id)
        fill = self._fill(table)
        request_id = f"table:{table.id}:{table.version}"
        created = await self.games.create_game(game_request(table, request_id, fill))
        tokens = list(created.seat_tokens)
        started = await self._db(
            self.store.mark_started,
            table.id,
            table.version,
            created.game_id,
            fill,
            tokens,
            created.spectator_token,
            request_id,
        )
        return started, tokens

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
                raise InvalidArgument(
                    "VARIANT_NEEDS_GAME", "filtering by variant needs the game", "variant"
                )
            if request.variant and game is not None:
                self._layout(game, request.variant)
            offset, size = page(request.page, self.lobby.page_size_max)
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
            validation.check_id(request.table_id, "table_id")
            validation.check_text(request.side_preference, "side_preference", 64)
            validation.check_text(request.invite_code, "invite_code", 64)
            player, _ = await self._db(self.store.player, me.player_id)
            table, _seated = await self._db(
                self.store.join_table,
                request.table_id,
                player,
                request.side_preference,
                request.invite_code,
            )
            response = lobby_pb2.JoinTableResponse(table=self._table(table, me.player_id))
            assignment = await self._assignment(table, me.player_id)
            if assignment is not None:
                response.assignment.CopyFrom(assignment)
            return response

        return await self._run(context, call)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        async def call() -> lobby_pb2.LeaveTableResponse:
            me = self._identity(context)
            validation.check_id(request.table_id, "table_id")
            table = await self._db(self.store.leave_table, request.table_id, me.player_id)
            return lobby_pb2.LeaveTableResponse(table=self._table(table, me.player_id))

        return await self._run(context, call)

    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Context
    ) -> lobby_pb2.StartTableResponse:
        async def call() -> lobby_pb2.StartTableResponse:
            me = self._identity(context)
            validation.check_id(request.table_id, "table_id")
            table = await self._db(self.store.check_start, request.table_id, me.player_id)
            table, tokens = await self._start(table, me.player_id)
            response = lobby_pb2.StartTableResponse(table=self._table(table, me.player_id))
            assignment = await self._assignment(table, me.player_id, tokens)
            if assignment is not None:
                response.assignment.CopyFrom(assignment)
            return response

        return await self._run(context, call)
