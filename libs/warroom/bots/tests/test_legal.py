"""Every bot kind returns a legal option on every decision of seeded games of every game."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from warroom.bots import ismcts
from warroom.bots.position import Choice, SeatPosition
from warroom.bots.registry import KINDS, BotSpec, make_bot
from warroom.bots.tests.conftest import playable_games
from warroom.bots.tests.helpers import play
from warroom.engine.registry import get_rules
from warroom.engine.rules import Rules

# Small budgets: this checks legality, not strength.
SPECS = {
    "random": BotSpec("random"),
    "heuristic": BotSpec("heuristic", "beginner"),
    "ismcts": BotSpec("ismcts", "beginner", budget_iterations=24),
    "ncw-official": BotSpec("ncw-official", "expert"),
}
SEEDS = {"toy": range(1, 9), "ncw": range(1, 2)}
# Games whose playouts are long get a smaller search per decision.
ITERATIONS = {"toy": 24}


def _spec(kind: str, game_id: str, seed: int) -> BotSpec:
    spec = replace(SPECS[kind], seed=seed)
    if kind == "ismcts":
        spec = replace(spec, budget_iterations=ITERATIONS.get(game_id, 2))
    return spec


def _cases() -> list[tuple[str, str]]:
    cases = []
    for game_id in playable_games():
        for kind, info in KINDS.items():
            if game_id in info.games():
                cases.append((game_id, kind))
    return cases


def test_every_kind_has_a_spec_and_toy_is_covered() -> None:
    assert set(SPECS) == set(KINDS)
    cases = _cases()
    assert {kind for game, kind in cases if game == "toy"} == {"random", "heuristic", "ismcts"}


@pytest.mark.parametrize(("game_id", "kind"), _cases())
def test_bot_kind_plays_only_legal_options(
    game_id: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if game_id != "toy":
        # Legality, not strength: short playouts keep long games affordable.
        monkeypatch.setattr(ismcts, "FULL_PLAYOUT", 40)
        monkeypatch.setattr(ismcts, "POLICY_PLAYOUT", 40)
    rules: Rules[Any] = get_rules(game_id)
    seats = rules.variants()[0].seats
    decisions = 0

    def check(position: SeatPosition, choice: Choice) -> None:
        nonlocal decisions
        decisions += 1
        assert choice.option_id in position.option_ids(), (
            f"{kind} chose {choice.option_id!r} outside {position.option_ids()}"
        )
        assert choice.option_id != "undo"

    for seed in SEEDS.get(game_id, range(1, 2)):
        bots = [make_bot(_spec(kind, game_id, seed * 10 + s), game_id) for s in range(seats)]
        result = play(rules, bots, seed, check=check)
        assert result.ranks
    assert decisions > 0
