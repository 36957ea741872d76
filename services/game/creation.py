"""CreateGame: validate the request, build the game and seat rows, commit, cache, dispatch.

Creations are group-committed (`Core.creator`): a used `request_id` answers with the game
it created (the grouped insert meets the unique request_id and the store returns the
stored game; no read before the write).
"""

from __future__ import annotations

import secrets
from typing import Any

from google.protobuf import json_format

from services.common.auth import token_digest
from services.common.logging import get_logger
from services.game import errors
from services.game.cache import GameCache
from services.game.callers import mint_tokens
from services.game.core import Core
from services.game.live import BOT, HUMAN, Frame, LiveGame
from services.game.models import ACTIVE, GameRow, GameSeatRow
from services.game.owed import Owed, Plan, apply_updates, open_turns
from services.game.store import now
from services.game.views import seat_messages
from warroom.api import kinds
from warroom.engine.errors import RulesError
from warroom.engine.match import Match, MatchState
from warroom.engine.registry import get_rules
from warroom.engine.rules import Rules
from warroom.v1 import game_pb2

log = get_logger("game.creation")


def _rules(request: game_pb2.CreateGameRequest) -> tuple[str, Rules[Any]]:
    try:
        rules_id = request.rules_id or kinds.game_id(request.game)
        return rules_id, get_rules(rules_id)
    except (RulesError, ImportError) as exc:
        raise errors.invalid("UNKNOWN_GAME", f"cannot host this game: {exc}", field="game") from exc


def _start(
    rules: Rules[Any], request: game_pb2.CreateGameRequest, variant: str, seed: int
) -> MatchState[Any]:
    """The first match state; the request must name one seat per seat of the variant."""
    try:
        state: MatchState[Any] = Match(rules).start(seed, variant, dict(request.options))
    except RulesError as exc:
        raise errors.invalid("BAD_SETUP", str(exc), field="variant") from exc
    count = len(list(rules.seats(state.game)))
    if len(request.seats) != count:
        raise errors.invalid(
            "SEAT_COUNT",
            f"variant {variant!r} has {count} seats, the request names {len(request.seats)}",
            field="seats",
        )
    return state


def _seat_row(game_id: str, index: int, spec: game_pb2.SeatSpec, token: str) -> GameSeatRow:
    """The row of one requested seat (a player or a bot)."""
    is_bot = bool(spec.bot.kind)
    if not is_bot and not spec.player_id:
        raise errors.invalid(
            "BAD_SEAT", f"seat {index} needs a player_id or a bot spec", field=f"seats[{index}]"
        )
    clock = (
        json_format.MessageToDict(
            spec.clock, preserving_proto_field_name=True, use_integers_for_enums=True
        )
        if spec.HasField("clock")
        else None
    )
    return GameSeatRow(
        game_id=game_id,
        seat=index,
        player_id=spec.player_id,
        display_name=spec.display_name or (spec.bot.kind if is_bot else spec.player_id),
        token_digest=token_digest(token),
        bot=json_format.MessageToDict(spec.bot, preserving_proto_field_name=True)
        if is_bot
        else None,
        clock=clock,
        controller=BOT if is_bot else HUMAN,
        reclaim=False,
        clock_remaining_ms=int(spec.clock.initial_seconds) * 1000 if clock else None,
    )


class Creation:
    """CreateGame."""

    def __init__(self, core: Core, cache: GameCache, owed: Owed) -> None:
        self.core = core
        self.cache = cache
        self.owed = owed

    async def create(self, request: game_pb2.CreateGameRequest) -> game_pb2.CreateGameResponse:
        """Create a game (the caller's service credential is checked by the servicer)."""
        rules_id, rules = _rules(request)
        variant = request.variant or rules.variants()[0].id
        seed = request.seed or secrets.randbits(63)
        state = _start(rules, request, variant, seed)
        game_id, salt = secrets.token_hex(16), secrets.token_hex(16)
        tokens, spectator = mint_tokens(
            self.core.settings.secret(), game_id, salt, len(request.seats)
        )
        stamp = now()
        row = GameRow(
            id=game_id,
            rules_id=rules_id,
            variant=variant,
            options=dict(request.options),
            seed=str(seed),
            salt=salt,
            status=ACTIVE,
            version=0,
            allow_spectators=request.allow_spectators,
            spectator_delay_versions=max(0, request.spectator_delay_versions),
            spectator_token_digest=token_digest(spectator) if request.allow_spectators else None,
            request_id=request.request_id or None,
            created_at=stamp,
            updated_at=stamp,
        )
        seats = [_seat_row(game_id, i, spec, tokens[i]) for i, spec in enumerate(request.seats)]
        plan = Plan()
        open_turns(seats, None, state.pending, None, 0, stamp, plan)
        apply_updates(seats, plan.updates)
        stored = await self.core.creator((row, seats))
        if stored.id != game_id:
            return self._created(await self.cache.get(stored.id))
        frame = Frame(0, state, (), rules.result(state.game) if state.over else None)
        live = self.cache.hold(row, rules, seats, [frame])
        await self.core.hot.init(game_id, 0, 0)
        self.cache.add(live)
        if live.result is None:
            await self.owed.reconcile(live)
        log.debug("game created", game_id=game_id, rules=rules_id, variant=variant)
        return self._created(live, (tokens, spectator))

    def _created(
        self, live: LiveGame, minted: tuple[list[str], str] | None = None
    ) -> game_pb2.CreateGameResponse:
        secret = self.core.settings.secret()
        tokens, spectator = minted or mint_tokens(secret, live.id, live.row.salt, len(live.seats))
        return game_pb2.CreateGameResponse(
            game_id=live.id,
            seat_tokens=["" if s.bot is not None else tokens[s.seat] for s in live.seats],
            spectator_token=spectator if live.row.allow_spectators else "",
            seats=seat_messages(live, live.state),
            seed=int(live.row.seed),
        )
