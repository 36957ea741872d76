"""What every LobbyService handler shares: wiring, the call wrapper that turns refusals into
rich statuses, the caller's identity, game and variant checks, and message builders."""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import grpc
import redis.exceptions
import sqlalchemy.exc
from google.protobuf import json_format
from google.protobuf.timestamp_pb2 import Timestamp

from services.common import validation
from services.common.auth import bearer, token_digest
from services.common.errors import RpcError, abort
from services.common.logging import get_logger
from services.common.settings import Settings
from services.lobby import metrics
from services.lobby.auth import Identity, TokenError, read_token
from services.lobby.config import LobbySettings, token_key, token_keys
from services.lobby.director import game_kind
from services.lobby.errors import (
    DOMAIN,
    FailedPrecondition,
    InvalidArgument,
    LobbyError,
    Unauthenticated,
)
from services.lobby.games import GameCreator
from services.lobby.listings import Listings
from services.lobby.models import TableRow
from services.lobby.parties import PartyStore
from services.lobby.queue import TicketQueue
from services.lobby.store import LobbyStore
from warroom.bots.registry import default_difficulty
from warroom.engine.errors import RulesError
from warroom.engine.registry import get_rules
from warroom.matchmaking import BotChoice, VariantLayout, layouts_for
from warroom.matchmaking.model import MatchConfig
from warroom.v1 import common_pb2, game_pb2, lobby_pb2

log = get_logger("lobby.service")
T = TypeVar("T")
Context = grpc.aio.ServicerContext[Any, Any]
TOKEN_CACHE = 50_000
TABLE_STATUS = {
    "open": lobby_pb2.Table.STATUS_OPEN,
    "started": lobby_pb2.Table.STATUS_STARTED,
    "finished": lobby_pb2.Table.STATUS_FINISHED,
    "closed": lobby_pb2.Table.STATUS_CLOSED,
}


def ts(value: datetime | float | None) -> Timestamp | None:
    """A Timestamp of a datetime (naive = UTC) or epoch seconds; None stays None."""
    if value is None:
        return None
    stamp = Timestamp()
    if isinstance(value, datetime):
        stamp.FromDatetime(value if value.tzinfo else value.replace(tzinfo=UTC))
    else:
        stamp.FromNanoseconds(int(value * 1e9))
    return stamp


def page(request: common_pb2.PageRequest, limit: int) -> tuple[int, int]:
    """(offset, size) of a page request; BAD_PAGE when out of range or malformed."""
    size = request.page_size or 20
    if size < 0 or size > limit:
        raise InvalidArgument("BAD_PAGE", f"page_size must be between 1 and {limit}", "page")
    token = request.page_token or "0"
    if not token.isdigit() or len(token) > 9:
        raise InvalidArgument(
            "BAD_PAGE", f"bad page_token {token[:20]!r}: use next_page_token", "page.page_token"
        )
    return int(token), size


def seat_messages(table: TableRow) -> list[common_pb2.Seat]:
    """The seats of a table as API messages."""
    return [
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


class LobbyBase:
    """Wiring and helpers of the LobbyService handlers (see `services.lobby.service`)."""

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
        self.parties = PartyStore(store.engine, lobby.max_party, lobby.party_invite_ttl_s)
        self.listings = Listings(store.engine, lobby.recent_games_days)
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
        """Run a handler; every refusal becomes a rich status (ErrorInfo + details)."""
        try:
            return await call()
        except RpcError as error:
            await self._refuse(context, error)
        except RulesError as error:
            await self._refuse(context, InvalidArgument("BAD_SETUP", str(error)))
        except grpc.aio.AioRpcError as error:
            await self._refuse(context, upstream(error))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
            log.warning("redis unavailable", error=str(error))
            await self._refuse(context, unavailable("REDIS_UNAVAILABLE", "matchmaking store"))
        except sqlalchemy.exc.OperationalError as error:
            log.warning("database unavailable", error=str(error).splitlines()[0])
            await self._refuse(context, unavailable("DATABASE_UNAVAILABLE", "database"))
        raise AssertionError("unreachable")

    async def _refuse(self, context: Context, error: RpcError) -> None:
        metrics.REJECTS.labels(error.code.name).inc()
        await abort(context, error, DOMAIN)

    def _identity(self, context: Context) -> Identity:
        token = bearer(context.invocation_metadata())
        if token is None:
            raise Unauthenticated(
                "MISSING_TOKEN", "missing token: send authorization: Bearer <token from Login>"
            )
        known = self._tokens.get(token)
        if known is not None and known.expires_at > time.time():
            return known
        try:
            identity = read_token(self.keys, token)
        except TokenError as error:
            reason = "TOKEN_EXPIRED" if "expired" in str(error) else "BAD_TOKEN"
            raise Unauthenticated(reason, str(error)) from None
        self._remember(token, identity)
        return identity

    def _remember(self, token: str, identity: Identity) -> None:
        """Cache a token known to be valid (checked or just issued by this replica)."""
        if len(self._tokens) >= TOKEN_CACHE:
            self._tokens.clear()
        self._tokens[token] = identity

    def _game(self, kind: int, rules_id: str) -> str:
        """The registry id a request names; UNKNOWN_GAME / MISSING_FIELD otherwise."""
        if not kind and not rules_id:
            raise InvalidArgument("MISSING_FIELD", "game is required: set game or rules_id", "game")
        game = validation.check_game(kind, rules_id)
        try:
            get_rules(game)
        except (RulesError, ImportError) as exc:
            raise InvalidArgument(
                "UNKNOWN_GAME", f"game {game!r} is not available: {exc}"
            ) from None
        return game

    def _layout(self, game: str, variant: str) -> VariantLayout:
        layouts = layouts_for(game)
        if not variant:
            return next(iter(layouts.values()))
        validation.check_choice(variant, layouts, "variant", "UNKNOWN_VARIANT", f"{game} variant")
        return layouts[variant]

    def _bot(self, spec: common_pb2.BotSpec, game: str, field: str) -> BotChoice | None:
        """The bot a spec names for `game` (None when it names none), validated."""
        kind, difficulty = validation.check_bot(spec.kind, spec.difficulty, game, field)
        if not kind:
            return None
        if not spec.difficulty and kind == self.default_bot.kind:
            difficulty = self.default_bot.difficulty
        return BotChoice(kind, difficulty or default_difficulty(kind))

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def _table(self, table: TableRow, viewer: str) -> lobby_pb2.Table:
        message = lobby_pb2.Table(
            table_id=table.id,
            game=game_kind(table.game),
            rules_id=table.game,
            variant=table.variant,
            options={k: str(v) for k, v in table.options.items()},
            host_player_id=table.host_player_id or "",
            seats=seat_messages(table),
            open_seats=sum(
                1 for s in table.seats if not s.player_id and not s.bot_kind and not s.automated
            ),
            private=table.private,
            invite_code=(table.invite_code or "") if viewer == table.host_player_id else "",
            allow_spectators=table.allow_spectators,
            status=TABLE_STATUS[table.status],
            game_id=table.game_id or "",
            created_at=ts(table.created_at),
            spectator_token=(table.spectator_token or "")
            if table.allow_spectators and table.game_id
            else "",
        )
        if table.clock:
            json_format.ParseDict(table.clock, message.clock)
        return message

    async def _assignment(
        self, table: TableRow, player_id: str, tokens: Sequence[str] = ()
    ) -> common_pb2.Assignment | None:
        """The player's seat of a started table with its token: from `tokens` (the game was
        just created) or recovered from the authority (`recover_tokens`); None when the
        player does not sit there or the table has not started."""
        seat = next((s for s in table.seats if s.player_id == player_id), None)
        if seat is None or not table.game_id or not seat.seat_token_digest:
            return None
        if not tokens:
            tokens = await self._recover_tokens(table)
        token = tokens[seat.index] if seat.index < len(tokens) else ""
        if not token or not hmac.compare_digest(token_digest(token), seat.seat_token_digest):
            raise FailedPrecondition(
                "SEAT_NOT_RECOVERABLE",
                f"the seat token of game {table.game_id} cannot be recovered (the authority "
                "answered another token)",
            )
        return common_pb2.Assignment(
            game_id=table.game_id,
            game=game_kind(table.game),
            variant=table.variant,
            seat=seat.index,
            side=seat.side,
            seat_token=token,
            game_endpoint=self.settings.game_endpoint,
        )

    async def _recover_tokens(self, table: TableRow) -> list[str]:
        """A started game's seat tokens, asked again of the authority with the table's
        CreateGame request id (idempotent: the same game answers with its tokens)."""
        if not table.game_request_id:
            raise FailedPrecondition(
                "SEAT_NOT_RECOVERABLE",
                f"game {table.game_id} was created without a request id: its seat tokens "
                "cannot be recovered",
            )
        created = await self.games.create_game(game_request(table, table.game_request_id))
        if created.game_id != table.game_id:
            raise FailedPrecondition(
                "SEAT_NOT_RECOVERABLE", f"the authority does not know game {table.game_id}"
            )
        return list(created.seat_tokens)

    def endpoints(self) -> lobby_pb2.Endpoints:
        """The platform's public endpoints (GetEndpoints, Login)."""
        return lobby_pb2.Endpoints(
            game_endpoint=self.settings.game_endpoint,
            bots_endpoint=self.lobby.bots_endpoint
            or f"{self.settings.host}:{self.settings.bots_port}",
            lobby_endpoint=self.lobby.lobby_endpoint
            or f"{self.settings.host}:{self.settings.lobby_port}",
            web_url=self.lobby.web_url,
        )


def game_request(
    table: TableRow, request_id: str, fill: BotChoice | None = None
) -> game_pb2.CreateGameRequest:
    """The CreateGame request of a table: its players, its bots, `fill` in empty seats."""
    clock = common_pb2.ClockSpec()
    if table.clock:
        json_format.ParseDict(table.clock, clock)
    seats = []
    for s in table.seats:
        bot = None
        if s.bot_kind:
            bot = common_pb2.BotSpec(kind=s.bot_kind, difficulty=s.bot_difficulty or "")
        elif not s.player_id and fill is not None:
            bot = common_pb2.BotSpec(kind=fill.kind, difficulty=fill.difficulty)
        seats.append(
            game_pb2.SeatSpec(
                player_id=s.player_id or "",
                display_name=s.display_name or "",
                bot=bot,
                clock=clock if table.clock and s.player_id else None,
            )
        )
    return game_pb2.CreateGameRequest(
        game=game_kind(table.game),
        rules_id=table.game,
        variant=table.variant,
        options={k: str(v) for k, v in table.options.items()},
        seats=seats,
        # always: the lobby reads results with the spectator token (side-effect free)
        # and hands it out only when the table allows spectators
        allow_spectators=True,
        request_id=request_id,
    )


def unavailable(reason: str, what: str) -> LobbyError:
    """UNAVAILABLE: a store the lobby needs did not answer; retry with backoff."""
    from services.lobby.errors import Unavailable

    return Unavailable(reason, f"the lobby's {what} is unavailable; retry shortly")


def upstream(error: grpc.aio.AioRpcError) -> RpcError:
    """A refusal of the authority the lobby called, reported with the lobby's reason."""
    from services.lobby.errors import Unavailable

    if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return Unavailable(
            "GAME_SERVICE_UNAVAILABLE", f"the game service did not answer: {error.details()}"
        )
    return RpcError(
        error.code(), "GAME_SERVICE_REFUSED", f"the game service refused: {error.details()}"
    )
