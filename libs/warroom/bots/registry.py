"""The registry of bot kinds: what each kind is, its difficulties and default budgets.

A `BotSpec` (kind, difficulty, budgets, seed) names a bot; `make_bot` builds it.
Budgets per difficulty are defaults that a deployment may override (the bot
service reads them from settings and passes `budget_overrides`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from warroom.bots.ismcts import Budget, IsmctsBot
from warroom.bots.position import Bot
from warroom.bots.simple import HeuristicBot, RandomBot
from warroom.engine.registry import game_ids

DIFFICULTIES: tuple[str, ...] = ("beginner", "intermediate", "expert")


@dataclass(frozen=True, slots=True)
class BotSpec:
    """Which bot to build. Zero budgets mean the kind's default for the difficulty."""

    kind: str
    difficulty: str = ""
    budget_iterations: int = 0
    budget_ms: int = 0
    seed: int = 0


@dataclass(frozen=True, slots=True)
class DifficultyBudget:
    """The default budget of one difficulty: iterations (0 = none) and milliseconds (0 = none)."""

    iterations: int
    ms: int


Factory = Callable[[BotSpec, DifficultyBudget, str], Bot]


@dataclass(frozen=True, slots=True)
class BotKindInfo:
    """One bot kind: description, difficulties with default budgets, and its games."""

    kind: str
    description: str
    budgets: Mapping[str, DifficultyBudget]
    factory: Factory
    games: Callable[[], list[str]] = field(default=game_ids)

    @property
    def difficulties(self) -> tuple[str, ...]:
        """The difficulties, easiest first (the first is the default)."""
        return tuple(self.budgets)


class UnknownBotError(ValueError):
    """A spec names an unknown kind, an unknown difficulty, or a game the kind cannot play."""


def _random(spec: BotSpec, budget: DifficultyBudget, game_id: str) -> Bot:
    return RandomBot(spec.seed)


def _heuristic(spec: BotSpec, budget: DifficultyBudget, game_id: str) -> Bot:
    samples = spec.budget_iterations or budget.iterations
    return HeuristicBot(spec.seed, samples=samples)


def _ismcts(spec: BotSpec, budget: DifficultyBudget, game_id: str) -> Bot:
    iterations = spec.budget_iterations
    ms = spec.budget_ms
    if not iterations and not ms:
        iterations, ms = budget.iterations, budget.ms
    return IsmctsBot(Budget(iterations or None, float(ms) or None), seed=spec.seed)


def _official(spec: BotSpec, budget: DifficultyBudget, game_id: str) -> Bot:
    from warroom.bots.official import NcwOfficialBot

    return NcwOfficialBot(spec.difficulty or "expert", spec.seed)


def _official_games() -> list[str]:
    from warroom.bots.official import official_available

    return ["ncw"] if "ncw" in game_ids() and official_available() else []


KINDS: dict[str, BotKindInfo] = {
    info.kind: info
    for info in (
        BotKindInfo(
            "random",
            "A uniformly random legal option (seeded).",
            {"beginner": DifficultyBudget(0, 0)},
            _random,
        ),
        BotKindInfo(
            "heuristic",
            "One-ply lookahead over determinizations of the seat's view, scored by the "
            "game's evaluation (or random playouts); iterations = determinizations per option.",
            {
                "beginner": DifficultyBudget(1, 0),
                "intermediate": DifficultyBudget(4, 0),
                "expert": DifficultyBudget(8, 0),
            },
            _heuristic,
        ),
        BotKindInfo(
            "ismcts",
            "Information-Set Monte Carlo Tree Search over determinizations of the seat's "
            "view (UCT; with the game's rollout policy, if any, as playout policy and baseline); "
            "returns visits and value per option.",
            {
                "beginner": DifficultyBudget(0, 100),
                "intermediate": DifficultyBudget(0, 400),
                "expert": DifficultyBudget(0, 1000),
            },
            _ismcts,
        ),
        BotKindInfo(
            "ncw-official",
            "New Cold War's official bots (rulebook section 6 flowchart).",
            {
                "beginner": DifficultyBudget(0, 0),
                "intermediate": DifficultyBudget(0, 0),
                "expert": DifficultyBudget(0, 0),
            },
            _official,
            _official_games,
        ),
    )
}


def resolve_budget(
    info: BotKindInfo,
    difficulty: str,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> DifficultyBudget:
    """The default budget of a kind at a difficulty, after deployment overrides.

    `overrides` maps "kind" or "kind:difficulty" to {"iterations": n, "ms": n}.
    """
    base = info.budgets[difficulty]
    for key in (info.kind, f"{info.kind}:{difficulty}"):
        change = (overrides or {}).get(key)
        if change:
            base = DifficultyBudget(
                int(change.get("iterations", base.iterations)), int(change.get("ms", base.ms))
            )
    return base


def default_difficulty(kind: str) -> str:
    """The difficulty a spec of `kind` gets without one ("" for an unknown kind).

    The easiest of the kind's difficulties, except the official bots: expert, as the rulebook
    plays them.
    """
    info = KINDS.get(kind)
    if info is None:
        return ""
    return "expert" if kind == "ncw-official" else info.difficulties[0]


def make_bot(
    spec: BotSpec,
    game_id: str,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Bot:
    """Build the bot a spec names for a game; raises UnknownBotError naming what is known."""
    info = KINDS.get(spec.kind)
    if info is None:
        raise UnknownBotError(f"unknown bot kind {spec.kind!r} (known: {', '.join(KINDS)})")
    difficulty = spec.difficulty or default_difficulty(spec.kind)
    if difficulty not in info.budgets:
        raise UnknownBotError(
            f"bot kind {spec.kind!r} has no difficulty {difficulty!r} "
            f"(known: {', '.join(info.difficulties)})"
        )
    games = info.games()
    if game_id not in games:
        raise UnknownBotError(
            f"bot kind {spec.kind!r} cannot play {game_id!r} (it plays: {', '.join(games) or 'none'})"
        )
    if spec.budget_iterations < 0 or spec.budget_ms < 0:
        raise UnknownBotError("bot budgets must not be negative")
    budget = resolve_budget(info, difficulty, overrides)
    return info.factory(
        BotSpec(spec.kind, difficulty, spec.budget_iterations, spec.budget_ms, spec.seed),
        budget,
        game_id,
    )


def seat_bots(specs: Sequence[BotSpec], game_id: str, seed: int) -> list[Bot]:
    """A bot per seat from its spec, seeded from the game's seed as the arena seats them
    (`seed * 97 + seat + 1`), so the bench scripts replay an arena game seat for seat."""
    return [
        make_bot(replace(spec, seed=seed * 97 + seat + 1), game_id)
        for seat, spec in enumerate(specs)
    ]


def parse_spec(text: str) -> BotSpec:
    """A spec from "kind[:difficulty][@budget][#seed]", budget "500ms" or "2000it" (CLI form)."""
    rest, _, seed = text.partition("#")
    rest, _, budget = rest.partition("@")
    kind, _, difficulty = rest.partition(":")
    iterations = ms = 0
    if budget.endswith("ms"):
        ms = int(budget[:-2])
    elif budget.endswith("it"):
        iterations = int(budget[:-2])
    elif budget:
        raise UnknownBotError(f"budget {budget!r}: write e.g. 500ms or 2000it")
    return BotSpec(kind, difficulty, iterations, ms, int(seed) if seed else 0)
