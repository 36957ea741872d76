"""Bot tests run on every game in the registry; the toy game is registered for them."""

from __future__ import annotations

from typing import Any

from warroom.engine.errors import RulesError
from warroom.engine.registry import game_ids, get_rules, register
from warroom.engine.rules import Rules

register("toy", "tests.engine.toy_game:ToyRules")


def playable_games() -> list[str]:
    """Every registered game whose rules load and set up (New Cold War once it is playable)."""
    playable = []
    for game_id in game_ids():
        try:
            rules: Rules[Any] = get_rules(game_id)
            rules.setup(1, rules.variants()[0].id, {})
        except (ImportError, AttributeError, RulesError, NotImplementedError):
            continue
        playable.append(game_id)
    return playable
