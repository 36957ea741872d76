"""Bot service logic without transport: API messages in, a bot's choice out.

Shared by the gRPC servicer and the Celery worker. Everything CPU-bound runs
through `choose`, which builds the position the bot is allowed to see (the
seat's view and its own options) and never a game state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2
from google.protobuf.message import Message

from warroom.api import kinds
from warroom.api.convert import engine_option
from warroom.bots.position import Choice, make_position
from warroom.bots.registry import KINDS, BotSpec, UnknownBotError, make_bot, resolve_budget
from warroom.engine.errors import RulesError
from warroom.engine.model import Decision, Option
from warroom.engine.registry import game_ids, get_rules
from warroom.engine.rules import Rules
from warroom.v1 import bots_pb2, common_pb2


class BotRequestError(ValueError):
    """A request the bot service cannot answer; the message names the problem."""


def resolve_game(kind: int, rules_id: str) -> str:
    """The rules-registry id of a request: `rules_id` when set, else the GameKind's id."""
    if rules_id:
        if rules_id not in game_ids():
            raise BotRequestError(f"unknown game {rules_id!r} (known: {', '.join(game_ids())})")
        return rules_id
    try:
        return kinds.game_id(kind)
    except RulesError as exc:
        raise BotRequestError(f"{exc}: set `game` or `rules_id`") from None


def load_rules(game_id: str) -> Rules[Any]:
    """The rules of a game; raises BotRequestError when they cannot be loaded."""
    try:
        return get_rules(game_id)
    except (RulesError, ImportError, AttributeError) as exc:
        raise BotRequestError(f"game {game_id!r} is not available: {exc}") from None


def unpack_view(rules: Rules[Any], packed: any_pb2.Any) -> Message:
    """The game's typed view out of an Any; raises BotRequestError on a missing view or one
    of another type than the game's view message (`Rules.view_message_type`)."""
    if not packed.type_url:
        raise BotRequestError("the position has no view")
    name = packed.type_url.rpartition("/")[2]
    expected = rules.view_message_type()
    if name != expected.DESCRIPTOR.full_name:
        raise BotRequestError(
            f"view type {name!r} is not the view of game {rules.game_id!r}"
            f" ({expected.DESCRIPTOR.full_name})"
        )
    message = expected()
    if not packed.Unpack(message):
        raise BotRequestError(f"view of type {name!r} could not be unpacked")
    return message


def engine_decision(message: common_pb2.Decision, seat: int) -> Decision:
    """An engine decision from a seat's Decision message (only that seat's options are known)."""
    options = tuple(engine_option(o) for o in message.options)
    if not options:
        raise BotRequestError(f"the decision offers seat {seat} no option")
    acting: dict[int, tuple[Option, ...]] = {s: () for s in message.seats if s != seat}
    acting[seat] = options
    return Decision(message.kind, message.prompt, acting, message.decision_id)


def spec_from_message(message: common_pb2.BotSpec, default_kind: str = "") -> BotSpec:
    """A library BotSpec from its message."""
    return BotSpec(
        message.kind or default_kind,
        message.difficulty,
        message.budget_iterations,
        message.budget_ms,
        message.seed,
    )


def derived_seed(game_id: str, seat: int, version: int) -> int:
    """The seed of a bot spec that gives none: from game id, seat and version."""
    digest = hashlib.sha256(f"{game_id}:{seat}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") or 1


@dataclass(frozen=True, slots=True)
class Limits:
    """Largest budgets a caller may ask for."""

    max_ms: int = 30_000
    max_iterations: int = 1_000_000


def check_spec(spec: BotSpec, limits: Limits) -> None:
    """Refuse budgets beyond the service's limits."""
    if spec.budget_ms > limits.max_ms:
        raise BotRequestError(f"budget_ms {spec.budget_ms} exceeds the limit {limits.max_ms}")
    if spec.budget_iterations > limits.max_iterations:
        raise BotRequestError(
            f"budget_iterations {spec.budget_iterations} exceeds the limit {limits.max_iterations}"
        )


def choose(
    game_id: str,
    view: Message,
    seat: int,
    decision: Decision,
    spec: BotSpec,
    variant: str = "",
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[Choice, BotSpec]:
    """Run the bot a spec names on one seat's position; returns the choice and the spec used."""
    rules = load_rules(game_id)
    try:
        bot = make_bot(spec, game_id, overrides)
    except UnknownBotError as exc:
        raise BotRequestError(str(exc)) from None
    try:
        position = make_position(rules, view, seat, decision, variant)
    except ValueError as exc:
        raise BotRequestError(str(exc)) from None
    choice = bot.choose(position)
    info = KINDS[spec.kind]
    difficulty = spec.difficulty or (
        "expert" if spec.kind == "ncw-official" else info.difficulties[0]
    )
    return choice, BotSpec(spec.kind, difficulty, spec.budget_iterations, spec.budget_ms, spec.seed)


def response(choice: Choice, decision_id: str, spec: BotSpec) -> bots_pb2.ChooseActionResponse:
    """The ChooseAction answer for a choice."""
    return bots_pb2.ChooseActionResponse(
        option_id=choice.option_id,
        decision_id=decision_id,
        analysis=[
            bots_pb2.OptionAnalysis(option_id=s.option_id, visits=s.visits, value=s.value)
            for s in choice.analysis
        ],
        iterations=choice.iterations,
        elapsed_ms=choice.elapsed_ms,
        bot=common_pb2.BotSpec(
            kind=spec.kind,
            difficulty=spec.difficulty,
            budget_iterations=spec.budget_iterations,
            budget_ms=spec.budget_ms,
            seed=spec.seed,
        ),
    )


def list_bots(
    game_filter: str | None, overrides: Mapping[str, Mapping[str, Any]] | None = None
) -> bots_pb2.ListBotsResponse:
    """Every bot kind with its games, difficulties and default budgets."""
    answer = bots_pb2.ListBotsResponse()
    for info in KINDS.values():
        games = info.games()
        if game_filter is not None and game_filter not in games:
            continue
        budgets = [resolve_budget(info, d, overrides) for d in info.difficulties]
        answer.bots.append(
            bots_pb2.BotKind(
                kind=info.kind,
                description=info.description,
                games=[
                    common_pb2.GameKind.ValueType(kinds.GAME_KINDS[g])
                    for g in games
                    if g in kinds.GAME_KINDS
                ],
                rules_ids=games,
                difficulties=list(info.difficulties),
                default_budget_ms=[b.ms for b in budgets],
                default_budget_iterations=[b.iterations for b in budgets],
            )
        )
    return answer
