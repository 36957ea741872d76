"""LobbyService matchmaking tickets: enqueue (alone or with one's party), cancel, watch,
and the caller's own tickets.

A party is queued only by its leader and only with members who accepted the leader's
invitation (services.lobby.parties): nobody is ever queued without their own call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from services.common import validation
from services.common.errors import RpcError
from services.lobby import metrics
from services.lobby.base import Context, LobbyBase, ts
from services.lobby.director import assignment_message, game_kind
from services.lobby.errors import FailedPrecondition, InvalidArgument, NotFound
from services.lobby.queue import ACTIVE, AlreadyQueuedError
from warroom.matchmaking import Ticket, VariantLayout, layouts_for, validate
from warroom.ratings import SkillRating
from warroom.v1 import lobby_pb2

STATUS = {
    "searching": lobby_pb2.TICKET_STATUS_SEARCHING,
    "claimed": lobby_pb2.TICKET_STATUS_SEARCHING,
    "matched": lobby_pb2.TICKET_STATUS_MATCHED,
    "cancelled": lobby_pb2.TICKET_STATUS_CANCELLED,
    "expired": lobby_pb2.TICKET_STATUS_EXPIRED,
}


class TicketsMixin(LobbyBase):
    """EnqueueTicket, CancelTicket, WatchTicket, ListMyTickets."""

    def _ticket(self, ticket_id: str, fields: dict[str, str], viewer: str = "") -> lobby_pb2.Ticket:
        message = lobby_pb2.Ticket(
            ticket_id=ticket_id,
            game=game_kind(fields.get("game", "")),
            rules_id=fields.get("game", ""),
            status=STATUS.get(fields.get("status", ""), lobby_pb2.TICKET_STATUS_UNSPECIFIED),
            created_at=ts(float(fields.get("created_at", "0"))),
            expires_at=ts(float(fields.get("expires_at", "0"))),
            player_ids=json.loads(fields.get("players", "[]")),
        )
        if viewer and fields.get("status") == "matched":
            assignment = assignment_message(fields, viewer, self.settings.game_endpoint)
            if assignment is not None:
                message.assignment.CopyFrom(assignment)
        return message

    async def _party(self, request: lobby_pb2.EnqueueTicketRequest, me: str) -> list[str]:
        """The other players of the ticket: accepted members of the caller's party."""
        party = validation.check_ids(request.party_player_ids, "party_player_ids")
        if me in party:
            raise InvalidArgument(
                "BAD_PARTY", "bad party: list the other members, not yourself", "party_player_ids"
            )
        if len(set(party)) != len(party):
            raise InvalidArgument(
                "BAD_PARTY", "bad party: a member is listed twice", "party_player_ids"
            )
        if len(party) + 1 > self.lobby.max_party:
            raise InvalidArgument(
                "PARTY_TOO_LARGE",
                f"bad party: at most {self.lobby.max_party} players",
                "party_player_ids",
            )
        if not party and not request.with_party:
            return []
        known = await self._db(self.store.players, party)
        missing = [p for p in party if p not in known]
        if missing:
            raise InvalidArgument(
                "UNKNOWN_PLAYER", f"bad party: unknown players {missing}", "party_player_ids"
            )
        members = await self._db(self.parties.queue_members, me)
        outsiders = [p for p in party if p not in members]
        if outsiders:
            raise FailedPrecondition(
                "NOT_IN_PARTY",
                f"players {outsiders} have not accepted your party invitation "
                "(InviteToParty, then they call AcceptPartyInvite)",
            )
        return [p for p in members if p != me] if request.with_party else party

    def _check_ticket(
        self, request: lobby_pb2.EnqueueTicketRequest, game: str
    ) -> dict[str, VariantLayout]:
        layouts = layouts_for(game)
        for i, variant in enumerate(request.variants):
            validation.check_text(variant, f"variants[{i}]", validation.OPTION_MAX)
        unknown = [v for v in request.variants if v not in layouts]
        if unknown:
            raise InvalidArgument(
                "UNKNOWN_VARIANT",
                f"{game}: unknown variants {unknown} (known: {', '.join(layouts)})",
                "variants",
            )
        sides = sorted({s.side for layout in layouts.values() for s in layout.seats})
        for i, side in enumerate(request.side_preferences):
            validation.check_choice(side, sides, f"side_preferences[{i}]", "UNKNOWN_SIDE", "side")
        if request.bot_fill_after_s < 0:
            raise InvalidArgument(
                "BAD_DURATION", "bot_fill_after_s must not be negative", "bot_fill_after_s"
            )
        if request.ttl_s < 0 or request.ttl_s > self.lobby.ticket_ttl_max_s:
            raise InvalidArgument(
                "BAD_DURATION",
                f"ttl_s must be between 0 and {self.lobby.ticket_ttl_max_s} seconds",
                "ttl_s",
            )
        return layouts

    async def EnqueueTicket(
        self, request: lobby_pb2.EnqueueTicketRequest, context: Context
    ) -> lobby_pb2.EnqueueTicketResponse:
        async def call() -> lobby_pb2.EnqueueTicketResponse:
            me = self._identity(context)
            game = self._game(request.game, request.rules_id)
            layouts = self._check_ticket(request, game)
            fill = self._bot(request.fill_bot, game, "fill_bot") or self.default_bot
            validation.check_bot(fill.kind, fill.difficulty, game, "fill_bot")
            members = [me.player_id, *await self._party(request, me.player_id)]
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
                fill_bot=fill,
            )
            reason = validate(ticket, layouts)
            if reason is not None:
                raise InvalidArgument("NO_VARIANT_FITS", f"{game}: {reason}", "variants")
            ttl = request.ttl_s or self.lobby.ticket_ttl_s
            try:
                await self._add(ticket, game, now + ttl)
            except AlreadyQueuedError as error:
                raise FailedPrecondition(
                    "ALREADY_QUEUED",
                    f"already queued: player {error.player_id} has active ticket "
                    f"{error.ticket_id} (ListMyTickets shows it; CancelTicket cancels it)",
                    player_id=error.player_id,
                    ticket_id=error.ticket_id,
                ) from None
            metrics.TICKETS.labels(game).inc()
            fields = {
                "game": game,
                "status": "searching",
                "created_at": repr(now),
                "expires_at": repr(now + ttl),
                "players": json.dumps(members),
            }
            return lobby_pb2.EnqueueTicketResponse(ticket=self._ticket(ticket.ticket_id, fields))

        return await self._run(context, call)

    async def _add(self, ticket: Ticket, game: str, expires_at: float) -> None:
        """Queue a ticket: names and means from the profile cache, read by the enqueue script
        itself; a cache miss reads SQL. AlreadyQueuedError when a player has one."""
        members = list(ticket.player_ids)
        player_ttl = self.lobby.ticket_ttl_max_s + 60
        verdict = await self.queue.enqueue_cached(
            ticket, game, self.lobby.queue, expires_at, player_ttl, SkillRating().mu
        )
        if verdict[0] == "miss":
            profiles = await self._profiles(members, game)
            missing = [p for p in members if p not in profiles]
            if missing:
                raise InvalidArgument(
                    "UNKNOWN_PLAYER", f"bad party: unknown players {missing}", "party_player_ids"
                )
            if any(profiles[p][1] for p in members):
                raise InvalidArgument("BOTS_CANNOT_QUEUE", "bad party: bots cannot queue")
            ticket = dataclasses.replace(
                ticket,
                ratings=tuple(
                    mu if (mu := profiles[p][2]) is not None else SkillRating().mu for p in members
                ),
                names=tuple(profiles[p][0] for p in members),
            )
            await self.queue.enqueue(ticket, game, self.lobby.queue, expires_at, player_ttl)
        elif verdict[0] == "bot":
            raise InvalidArgument("BOTS_CANNOT_QUEUE", "bad party: bots cannot queue")

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
        validation.check_id(ticket_id, "ticket_id")
        fields = await self.queue.get(ticket_id)
        if fields is None or player_id not in json.loads(fields.get("players", "[]")):
            raise NotFound("TICKET_NOT_FOUND", f"unknown ticket {ticket_id}")
        return fields

    async def CancelTicket(
        self, request: lobby_pb2.CancelTicketRequest, context: Context
    ) -> lobby_pb2.CancelTicketResponse:
        async def call() -> lobby_pb2.CancelTicketResponse:
            me = self._identity(context)
            await self._member_ticket(request.ticket_id, me.player_id)
            status = await self.queue.cancel(request.ticket_id, me.player_id)
            if status == "missing":
                raise NotFound("TICKET_NOT_FOUND", f"unknown ticket {request.ticket_id}")
            if status == "matched":
                raise FailedPrecondition(
                    "TICKET_MATCHED",
                    f"ticket {request.ticket_id} is already matched; resign the game instead",
                )
            fields = await self._member_ticket(request.ticket_id, me.player_id)
            return lobby_pb2.CancelTicketResponse(ticket=self._ticket(request.ticket_id, fields))

        return await self._run(context, call)

    async def ListMyTickets(
        self, request: lobby_pb2.ListMyTicketsRequest, context: Context
    ) -> lobby_pb2.ListMyTicketsResponse:
        async def call() -> lobby_pb2.ListMyTicketsResponse:
            me = self._identity(context)
            response = lobby_pb2.ListMyTicketsResponse()
            ticket_id = await self.queue.player_ticket(me.player_id)
            fields = await self.queue.get(ticket_id) if ticket_id else None
            if ticket_id and fields and fields.get("status") in (*ACTIVE, "matched"):
                response.tickets.append(self._ticket(ticket_id, fields, me.player_id))
            return response

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
        except RpcError as error:
            await self._refuse(context, error)
            return
        pubsub: Any = self.queue.watch_redis.pubsub()
        await pubsub.subscribe(self.queue.channel(request.ticket_id))
        metrics.WATCHERS.inc()
        try:
            while True:
                current = await self.queue.get(request.ticket_id)
                if current is None:
                    await self._refuse(
                        context,
                        NotFound(
                            "TICKET_LOST",
                            f"ticket {request.ticket_id} was lost (queue reset); enqueue again",
                        ),
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
