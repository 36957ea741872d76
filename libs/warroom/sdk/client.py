"""Async clients for the lobby, game and bot services.

`Client` holds the lobby connection and the player's bearer token; `Client.game`
returns a `GameSession` for an assignment (seat token + game endpoint). Every call
has a deadline; transient failures (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED)
are retried with exponential backoff, and `GameSession.submit` reuses one idempotency
key across its retries so an action is never applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import grpc
from google.protobuf.message import Message
from grpc import aio

from warroom.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    common_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)

DEFAULT_LOBBY = "localhost:50051"
DEFAULT_GAME = "localhost:50052"
DEFAULT_BOTS = "localhost:50053"

T = TypeVar("T")

RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
# A watch stream may also be cut by a proxy or a replica going away.
STREAM_RETRYABLE = RETRYABLE | {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}

_CHANNEL_OPTIONS = (
    # Servers accept a ping every 5 minutes by default (more earns a GOAWAY too_many_pings).
    ("grpc.keepalive_time_ms", 300_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.max_receive_message_length", 32 * 1024 * 1024),
)

_KIND_ALIASES: dict[str, int] = {
    "ncw": common_pb2.GAME_KIND_NEW_COLD_WAR,
    "new-cold-war": common_pb2.GAME_KIND_NEW_COLD_WAR,
    "new_cold_war": common_pb2.GAME_KIND_NEW_COLD_WAR,
    "qmg_cw": common_pb2.GAME_KIND_QMG_COLD_WAR,
    "qmg-cw": common_pb2.GAME_KIND_QMG_COLD_WAR,
    "qmg_cold_war": common_pb2.GAME_KIND_QMG_COLD_WAR,
    "qmg_sf": common_pb2.GAME_KIND_QMG_SOUTH_FRONT,
    "qmg-sf": common_pb2.GAME_KIND_QMG_SOUTH_FRONT,
    "qmg_south_front": common_pb2.GAME_KIND_QMG_SOUTH_FRONT,
}
_KIND_NAMES: dict[int, str] = {
    common_pb2.GAME_KIND_NEW_COLD_WAR: "ncw",
    common_pb2.GAME_KIND_QMG_COLD_WAR: "qmg_cw",
    common_pb2.GAME_KIND_QMG_SOUTH_FRONT: "qmg_sf",
}


def game_kind_of(name: str | int) -> int:
    """The GameKind enum value for a short name ("ncw"), an enum name, or a number."""
    if isinstance(name, int):
        return name
    text = name.strip()
    if text.isdigit():
        return int(text)
    key = text.lower()
    if key in _KIND_ALIASES:
        return _KIND_ALIASES[key]
    upper = text.upper()
    for candidate in (upper, f"GAME_KIND_{upper}"):
        with contextlib.suppress(ValueError):
            return common_pb2.GameKind.Value(candidate)
    known = ", ".join(sorted(set(_KIND_NAMES.values())))
    raise ValueError(f"unknown game {name!r} (known: {known})")


def game_name_of(kind: int) -> str:
    """The short name of a GameKind ("ncw"), or the enum name for a kind without one."""
    if kind in _KIND_NAMES:
        return _KIND_NAMES[kind]
    try:
        return common_pb2.GameKind.Name(kind)  # type: ignore[arg-type]
    except ValueError:
        return str(kind)


class WarroomError(Exception):
    """A failed call: the gRPC status code, the server's message and its stable reason
    (google.rpc.ErrorInfo, e.g. "ALREADY_QUEUED"; listed in docs/api.md)."""

    def __init__(
        self, code: grpc.StatusCode, message: str, method: str = "", reason: str = ""
    ) -> None:
        self.code = code
        self.message = message
        self.method = method
        self.reason = reason
        where = f"{method}: " if method else ""
        why = f" [{reason}]" if reason else ""
        super().__init__(f"{where}{code.name}{why}: {message}")

    @classmethod
    def from_rpc(cls, error: aio.AioRpcError, method: str = "") -> WarroomError:
        """Wrap a grpc.aio error (with its ErrorInfo reason when it carries one)."""
        return cls(error.code(), error.details() or "", method, _reason(error))


def _reason(error: aio.AioRpcError) -> str:
    """The ErrorInfo reason in a failed call's status details ("" when none)."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except ValueError:
        return ""
    info = error_details_pb2.ErrorInfo()
    for detail in status.details if status is not None else ():
        if detail.Unpack(info):
            return str(info.reason)
    return ""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How transient failures are retried: attempts, exponential backoff with jitter."""

    attempts: int = 5
    initial_backoff: float = 0.2
    max_backoff: float = 5.0
    multiplier: float = 2.0
    retry_on: frozenset[grpc.StatusCode] = field(default=RETRYABLE)

    def delay(self, attempt: int) -> float:
        """The sleep before retry number `attempt` (1-based), jittered to 50-100%."""
        base = min(self.max_backoff, self.initial_backoff * self.multiplier ** (attempt - 1))
        return base * (0.5 + random.random() / 2)


async def _call(
    method: str,
    make: Callable[[], Awaitable[T]],
    retry: RetryPolicy,
) -> T:
    attempt = 0
    while True:
        attempt += 1
        try:
            return await make()
        except aio.AioRpcError as error:
            if error.code() not in retry.retry_on or attempt >= retry.attempts:
                raise WarroomError.from_rpc(error, method) from None
            await asyncio.sleep(retry.delay(attempt))


class _Channels:
    """One insecure grpc.aio channel per endpoint, created on first use."""

    def __init__(self) -> None:
        self._channels: dict[str, aio.Channel] = {}

    def get(self, endpoint: str) -> aio.Channel:
        channel = self._channels.get(endpoint)
        if channel is None:
            channel = aio.insecure_channel(endpoint, options=_CHANNEL_OPTIONS)
            self._channels[endpoint] = channel
        return channel

    async def close(self) -> None:
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()


class Client:
    """A player's connection to Warroom: lobby calls with the login token, and game sessions.

    Use as an async context manager (or call `close`). `deadline` is the per-call timeout
    in seconds for unary calls; streams have none and resume on their own.
    """

    def __init__(
        self,
        lobby: str = DEFAULT_LOBBY,
        *,
        game: str | None = None,
        bots: str = DEFAULT_BOTS,
        token: str = "",
        deadline: float = 10.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.lobby_endpoint = lobby
        self.game_endpoint = game
        self.bots_endpoint = bots
        self.token = token
        self.deadline = deadline
        self.retry = retry or RetryPolicy()
        self.player_id = ""
        self.display_name = ""
        self._channels = _Channels()
        self._lobby_stub: lobby_pb2_grpc.LobbyServiceAsyncStub | None = None

    @property
    def _lobby(self) -> lobby_pb2_grpc.LobbyServiceAsyncStub:
        """The lobby stub, created on first use (inside the caller's event loop)."""
        if self._lobby_stub is None:
            self._lobby_stub = lobby_pb2_grpc.LobbyServiceStub(
                self._channels.get(self.lobby_endpoint)
            )
        return self._lobby_stub

    def lobby_channel(self) -> aio.Channel:
        """The lobby's channel (CatalogService is served on the lobby's port)."""
        return self._channels.get(self.lobby_endpoint)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every channel this client opened."""
        self._lobby_stub = None
        await self._channels.close()

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()

    # ------------------------------------------------------------------ players
    async def login(
        self, name: str, password: str = "", *, register: bool = False
    ) -> lobby_pb2.LoginResponse:
        """Log in as a guest (no password) or a registered player; keeps the token."""
        request = lobby_pb2.LoginRequest(name=name, password=password, register=register)
        response = await _call(
            "Login", lambda: self._lobby.Login(request, timeout=self.deadline), self.retry
        )
        self.token = response.token
        self.player_id = response.player_id
        self.display_name = response.display_name
        if self.bots_endpoint == DEFAULT_BOTS and response.endpoints.bots_endpoint:
            self.bots_endpoint = response.endpoints.bots_endpoint  # discovered, not guessed
        return response

    async def _ask(self, method: str, request: Message) -> Any:
        """A unary lobby call with the player's token, deadline and retries."""
        rpc = getattr(self._lobby, method)
        answer: Any = await _call(
            method,
            lambda: rpc(request, timeout=self.deadline, metadata=self._metadata()),
            self.retry,
        )
        return answer

    async def endpoints(self) -> lobby_pb2.Endpoints:
        """The platform's public endpoints (game, bots, lobby, web gateway URL)."""
        answer = await self._ask("GetEndpoints", lobby_pb2.GetEndpointsRequest())
        return cast(lobby_pb2.Endpoints, answer.endpoints)

    # ------------------------------------------------------------------ my games, watching
    async def my_games(
        self, *, include_finished: bool = False, game: str | int = 0, page_size: int = 50
    ) -> list[lobby_pb2.MyGame]:
        """The caller's started (and, on request, recently finished) games: whose turn,
        the caller's clock, the last activity."""
        request = lobby_pb2.ListMyGamesRequest(
            include_finished=include_finished,
            game=game_kind_of(game) if game else 0,  # type: ignore[arg-type]
            page=common_pb2.PageRequest(page_size=page_size),
        )
        answer = await self._ask("ListMyGames", request)
        return list(answer.games)

    async def seat_access(self, game_id: str = "", table_id: str = "") -> common_pb2.Assignment:
        """The caller's seat of a started game, with its seat token (recovered by the lobby)."""
        request = lobby_pb2.GetSeatAccessRequest(game_id=game_id, table_id=table_id)
        answer = await self._ask("GetSeatAccess", request)
        return cast(common_pb2.Assignment, answer.assignment)

    async def live_games(
        self, game: str | int = 0, *, variant: str = "", page_size: int = 50
    ) -> list[lobby_pb2.LiveGame]:
        """Live games anyone may watch (public tables and matchmade games), newest first."""
        request = lobby_pb2.ListLiveGamesRequest(
            game=game_kind_of(game) if game else 0,  # type: ignore[arg-type]
            variant=variant,
            page=common_pb2.PageRequest(page_size=page_size),
        )
        answer = await self._ask("ListLiveGames", request)
        return list(answer.games)

    async def spectate(self, game_id: str) -> lobby_pb2.LiveGame:
        """Spectator access to a watchable game (its spectator token and endpoint)."""
        request = lobby_pb2.GetSpectatorAccessRequest(game_id=game_id)
        answer = await self._ask("GetSpectatorAccess", request)
        return cast(lobby_pb2.LiveGame, answer.game)

    # ------------------------------------------------------------------ parties
    async def party(self) -> lobby_pb2.GetPartyResponse:
        """The caller's party (if any) and the invitations waiting for the caller."""
        answer = await self._ask("GetParty", lobby_pb2.GetPartyRequest())
        return cast(lobby_pb2.GetPartyResponse, answer)

    async def invite(self, player_id: str) -> lobby_pb2.Party:
        """Invite a player to the caller's party (created, led by the caller, if none)."""
        answer = await self._ask(
            "InviteToParty", lobby_pb2.InviteToPartyRequest(player_id=player_id)
        )
        return cast(lobby_pb2.Party, answer.party)

    async def accept_invite(self, party_id: str) -> lobby_pb2.Party:
        """Join a party whose invitation the caller holds."""
        request = lobby_pb2.AcceptPartyInviteRequest(party_id=party_id)
        answer = await self._ask("AcceptPartyInvite", request)
        return cast(lobby_pb2.Party, answer.party)

    async def decline_invite(self, party_id: str) -> None:
        """Refuse an invitation."""
        await self._ask(
            "DeclinePartyInvite", lobby_pb2.DeclinePartyInviteRequest(party_id=party_id)
        )

    async def leave_party(self) -> None:
        """Leave the caller's party."""
        await self._ask("LeaveParty", lobby_pb2.LeavePartyRequest())

    async def my_tickets(self) -> list[lobby_pb2.Ticket]:
        """The caller's active ticket (or the last one, matched, while it is kept)."""
        answer = await self._ask("ListMyTickets", lobby_pb2.ListMyTicketsRequest())
        return list(answer.tickets)

    async def player(self, player_id: str = "") -> lobby_pb2.Player:
        """A player's profile and ratings (the caller's when `player_id` is empty)."""
        request = lobby_pb2.GetPlayerRequest(player_id=player_id)
        response = await _call(
            "GetPlayer",
            lambda: self._lobby.GetPlayer(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )
        return response.player

    async def leaderboard(
        self, game: str | int, *, page_size: int = 20, page_token: str = ""
    ) -> lobby_pb2.GetLeaderboardResponse:
        """One page of a game's leaderboard."""
        request = lobby_pb2.GetLeaderboardRequest(
            game=game_kind_of(game),  # type: ignore[arg-type]
            page=common_pb2.PageRequest(page_size=page_size, page_token=page_token),
        )
        return await _call(
            "GetLeaderboard",
            lambda: self._lobby.GetLeaderboard(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )

    # ------------------------------------------------------------------ tables
    async def create_table(
        self,
        game: str | int,
        variant: str = "",
        *,
        seats: Iterable[lobby_pb2.TableSeatSpec] = (),
        options: Mapping[str, str] | None = None,
        private: bool = False,
        allow_spectators: bool = True,
        clock: common_pb2.ClockSpec | None = None,
        host_side: str = "",
        start_now: bool = False,
        fill_bot: common_pb2.BotSpec | None = None,
    ) -> lobby_pb2.CreateTableResponse:
        """Create a table; with `start_now`, fill the other seats with bots and start it."""
        request = lobby_pb2.CreateTableRequest(
            game=game_kind_of(game),  # type: ignore[arg-type]
            variant=variant,
            options=dict(options or {}),
            seats=list(seats),
            private=private,
            allow_spectators=allow_spectators,
            clock=clock,
            host_side=host_side,
            start_now=start_now,
            fill_bot=fill_bot,
        )
        return await _call(
            "CreateTable",
            lambda: self._lobby.CreateTable(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )

    async def play_now(
        self,
        game: str | int,
        variant: str = "",
        *,
        side: str = "",
        bot: common_pb2.BotSpec | None = None,
        options: Mapping[str, str] | None = None,
        allow_spectators: bool = True,
    ) -> common_pb2.Assignment:
        """ "Play now against bots": a started table whose other seats are bots; the assignment."""
        response = await self.create_table(
            game,
            variant,
            options=options,
            host_side=side,
            start_now=True,
            fill_bot=bot,
            allow_spectators=allow_spectators,
        )
        if not response.HasField("assignment") or not response.assignment.game_id:
            raise WarroomError(
                grpc.StatusCode.INTERNAL, "CreateTable with start_now returned no assignment"
            )
        return response.assignment

    async def tables(
        self,
        game: str | int = 0,
        variant: str = "",
        *,
        open_only: bool = False,
        page_size: int = 50,
        page_token: str = "",
    ) -> lobby_pb2.ListTablesResponse:
        """One page of public tables."""
        request = lobby_pb2.ListTablesRequest(
            game=game_kind_of(game),  # type: ignore[arg-type]
            variant=variant,
            open_only=open_only,
            page=common_pb2.PageRequest(page_size=page_size, page_token=page_token),
        )
        return await _call(
            "ListTables",
            lambda: self._lobby.ListTables(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )

    async def join_table(
        self, table_id: str, *, side: str = "", invite_code: str = ""
    ) -> lobby_pb2.Table:
        """Join a table (the invite code is needed for a private one)."""
        request = lobby_pb2.JoinTableRequest(
            table_id=table_id, side_preference=side, invite_code=invite_code
        )
        response = await _call(
            "JoinTable",
            lambda: self._lobby.JoinTable(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )
        return response.table

    async def leave_table(self, table_id: str) -> lobby_pb2.Table:
        """Leave a table that has not started."""
        request = lobby_pb2.LeaveTableRequest(table_id=table_id)
        response = await _call(
            "LeaveTable",
            lambda: self._lobby.LeaveTable(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )
        return response.table

    async def start_table(self, table_id: str) -> lobby_pb2.StartTableResponse:
        """Host only: fill empty seats with bots and start; returns the table and assignment."""
        request = lobby_pb2.StartTableRequest(table_id=table_id)
        return await _call(
            "StartTable",
            lambda: self._lobby.StartTable(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )

    # ------------------------------------------------------------------ matchmaking
    async def enqueue(
        self,
        game: str | int,
        *,
        variants: Iterable[str] = (),
        party: Iterable[str] = (),
        sides: Iterable[str] = (),
        allow_bots: bool = False,
        bot_fill_after_s: int = 0,
        ttl_s: int = 0,
        fill_bot: common_pb2.BotSpec | None = None,
        with_party: bool = False,
    ) -> lobby_pb2.Ticket:
        """Queue for matchmaking; returns the ticket. `party` (player ids) or `with_party`
        (every member) queue accepted members of the caller's party with the caller."""
        request = lobby_pb2.EnqueueTicketRequest(
            game=game_kind_of(game),  # type: ignore[arg-type]
            variants=list(variants),
            party_player_ids=list(party),
            with_party=with_party,
            side_preferences=list(sides),
            allow_bots=allow_bots,
            bot_fill_after_s=bot_fill_after_s,
            ttl_s=ttl_s,
            fill_bot=fill_bot,
        )
        response = await _call(
            "EnqueueTicket",
            lambda: self._lobby.EnqueueTicket(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )
        return response.ticket

    async def cancel_ticket(self, ticket_id: str) -> lobby_pb2.Ticket:
        """Cancel a ticket; a ticket cancelled while being matched is never assigned."""
        request = lobby_pb2.CancelTicketRequest(ticket_id=ticket_id)
        response = await _call(
            "CancelTicket",
            lambda: self._lobby.CancelTicket(
                request, timeout=self.deadline, metadata=self._metadata()
            ),
            self.retry,
        )
        return response.ticket

    async def watch_ticket(self, ticket_id: str) -> AsyncIterator[lobby_pb2.WatchTicketResponse]:
        """Stream a ticket's status until it is matched, cancelled or expired.

        A dropped stream is reopened (the server reports the current status on reconnect).
        """
        terminal = {
            lobby_pb2.TICKET_STATUS_MATCHED,
            lobby_pb2.TICKET_STATUS_CANCELLED,
            lobby_pb2.TICKET_STATUS_EXPIRED,
        }
        failures = 0
        while True:
            call = self._lobby.WatchTicket(
                lobby_pb2.WatchTicketRequest(ticket_id=ticket_id), metadata=self._metadata()
            )
            try:
                async for update in call:
                    failures = 0
                    yield update
                    if update.status in terminal:
                        return
            except aio.AioRpcError as error:
                failures += 1
                if error.code() not in STREAM_RETRYABLE or failures >= self.retry.attempts * 4:
                    raise WarroomError.from_rpc(error, "WatchTicket") from None
            finally:
                call.cancel()
            await asyncio.sleep(self.retry.delay(max(1, failures)))

    async def wait_for_match(
        self,
        ticket_id: str,
        on_status: Callable[[lobby_pb2.WatchTicketResponse], None] | None = None,
    ) -> common_pb2.Assignment:
        """Follow a ticket until MATCHED; returns the assignment (raises if it ends otherwise)."""
        async for update in self.watch_ticket(ticket_id):
            if on_status is not None:
                on_status(update)
            if update.status == lobby_pb2.TICKET_STATUS_MATCHED:
                return update.assignment
            if update.status in (
                lobby_pb2.TICKET_STATUS_CANCELLED,
                lobby_pb2.TICKET_STATUS_EXPIRED,
            ):
                raise WarroomError(
                    grpc.StatusCode.CANCELLED,
                    f"ticket {ticket_id} ended {lobby_pb2.TicketStatus.Name(update.status)}",
                    "WatchTicket",
                )
        raise WarroomError(grpc.StatusCode.UNAVAILABLE, "ticket stream ended", "WatchTicket")

    # ------------------------------------------------------------------ games
    def game(
        self,
        assignment: common_pb2.Assignment | None = None,
        *,
        game_id: str = "",
        token: str = "",
        endpoint: str = "",
    ) -> GameSession:
        """A session on one game for a seat (or spectator) token.

        The endpoint is `endpoint` when given, else the client's `game` endpoint (an
        override, e.g. a published port), else the assignment's `game_endpoint`, else the
        default.
        """
        learned = ""
        if assignment is not None:
            game_id = game_id or assignment.game_id
            token = token or assignment.seat_token
            learned = assignment.game_endpoint
        endpoint = endpoint or self.game_endpoint or learned or DEFAULT_GAME
        return GameSession(
            self._channels.get(endpoint),
            game_id,
            token,
            endpoint=endpoint,
            deadline=self.deadline,
            retry=self.retry,
        )

    def bots(self) -> BotsClient:
        """A client of the bot service (hints and analysis)."""
        return BotsClient(
            self._channels.get(self.bots_endpoint), deadline=self.deadline, token=self.token or ""
        )


class GameSession:
    """One seat's (or a spectator's) connection to one game."""

    def __init__(
        self,
        channel: aio.Channel,
        game_id: str,
        token: str,
        *,
        endpoint: str = "",
        deadline: float = 10.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.game_id = game_id
        self.token = token
        self.endpoint = endpoint
        self.deadline = deadline
        self.retry = retry or RetryPolicy()
        self.last_version = 0
        self.reconnects = 0
        self._stub = game_pb2_grpc.GameServiceStub(channel)

    async def view(self) -> game_pb2.SeatView:
        """The current view of this seat."""
        request = game_pb2.GetViewRequest(game_id=self.game_id, token=self.token)
        response = await _call(
            "GetView", lambda: self._stub.GetView(request, timeout=self.deadline), self.retry
        )
        self.last_version = max(self.last_version, response.view.version)
        return response.view

    async def submit(
        self,
        decision_id: str,
        option_id: str,
        *,
        expected_version: int,
        idempotency_key: str = "",
        omit_view: bool = False,
    ) -> game_pb2.SubmitActionResponse:
        """Choose an option; retried on transient errors with one idempotency key.
        `omit_view`: answer with the version only (for a client that follows `watch`).

        Raises WarroomError for ABORTED (stale version), FAILED_PRECONDITION (not this
        seat's decision) and the other definitive errors.
        """
        request = game_pb2.SubmitActionRequest(
            game_id=self.game_id,
            token=self.token,
            expected_version=expected_version,
            decision_id=decision_id,
            option_id=option_id,
            idempotency_key=idempotency_key or uuid.uuid4().hex,
            omit_view=omit_view,
        )
        response = await _call(
            "SubmitAction",
            lambda: self._stub.SubmitAction(request, timeout=self.deadline),
            self.retry,
        )
        self.last_version = max(self.last_version, response.version)
        return response

    async def watch(
        self,
        from_version: int = 0,
        *,
        on_reconnect: Callable[[WarroomError], None] | None = None,
        max_failures: int = 20,
    ) -> AsyncIterator[game_pb2.WatchGameResponse]:
        """Stream updates from `from_version`, resuming after the last seen version on a drop.

        Ends after the update that carries the game's result.
        """
        version = from_version
        failures = 0
        while True:
            call = self._stub.WatchGame(
                game_pb2.WatchGameRequest(
                    game_id=self.game_id, token=self.token, from_version=version
                )
            )
            try:
                async for update in call:
                    failures = 0
                    version = max(version, update.version)
                    self.last_version = max(self.last_version, version)
                    yield update
                    if update.HasField("view") and update.view.HasField("result"):
                        return
            except aio.AioRpcError as error:
                failures += 1
                wrapped = WarroomError.from_rpc(error, "WatchGame")
                if error.code() not in STREAM_RETRYABLE or failures >= max_failures:
                    raise wrapped from None
                self.reconnects += 1
                if on_reconnect is not None:
                    on_reconnect(wrapped)
            finally:
                call.cancel()
            if failures == 0:
                # The server closed the stream without a result: look before resuming.
                current = await self.view()
                if current.HasField("result"):
                    yield game_pb2.WatchGameResponse(version=current.version, view=current)
                    return
            await asyncio.sleep(self.retry.delay(max(1, failures)))

    async def resign(self) -> game_pb2.ResignResponse:
        """Resign this seat."""
        request = game_pb2.ResignRequest(game_id=self.game_id, token=self.token)
        return await _call(
            "Resign", lambda: self._stub.Resign(request, timeout=self.deadline), self.retry
        )

    async def replay(self) -> game_pb2.GetReplayResponse:
        """Seed, options and the full option log (after the end, or past the spectator delay)."""
        request = game_pb2.GetReplayRequest(game_id=self.game_id, token=self.token)
        return await _call(
            "GetReplay", lambda: self._stub.GetReplay(request, timeout=self.deadline), self.retry
        )


class BotsClient:
    """The bot service: ask a bot for a move or an analysis of a position."""

    def __init__(self, channel: aio.Channel, *, deadline: float = 30.0, token: str = "") -> None:
        self.deadline = deadline
        # ChooseAction needs the player's lobby token (or the service credential).
        self.token = token
        self._stub = bots_pb2_grpc.BotServiceStub(channel)

    async def list_bots(self, game: str | int = 0) -> list[bots_pb2.BotKind]:
        """The bot kinds, difficulties and default budgets for a game (every game if unset)."""
        request = bots_pb2.ListBotsRequest(game=game_kind_of(game))  # type: ignore[arg-type]
        response = await _call(
            "ListBots",
            lambda: self._stub.ListBots(request, timeout=self.deadline),
            RetryPolicy(),
        )
        return list(response.bots)

    async def hint(
        self, game: str | int, game_id: str, seat_token: str, bot: common_pb2.BotSpec
    ) -> bots_pb2.ChooseActionResponse:
        """The option a bot would choose for a live seat."""
        request = bots_pb2.ChooseActionRequest(
            game=game_kind_of(game),  # type: ignore[arg-type]
            live=bots_pb2.LivePosition(game_id=game_id, seat_token=seat_token),
            bot=bot,
        )
        return await _call(
            "ChooseAction",
            lambda: self._stub.ChooseAction(
                request,
                timeout=self.deadline,
                metadata=(("authorization", f"Bearer {self.token}"),) if self.token else (),
            ),
            RetryPolicy(),
        )
