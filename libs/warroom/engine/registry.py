"""The registry of games: game id to rules object, loaded lazily."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from warroom.engine.errors import RulesError
from warroom.engine.rules import Rules

_GAMES: dict[str, str] = {
    "ncw": "warroom.games.ncw.rules:NewColdWarRules",
    "qmg_cw": "warroom.games.qmg_cw.rules:ColdWarRules",
    "qmg_sf": "warroom.games.qmg_sf.rules:SouthFrontRules",
}


def register(game_id: str, target: str) -> None:
    """Register a game under an id, as "module:attribute" naming a Rules class."""
    _GAMES[game_id] = target
    get_rules.cache_clear()


def game_ids() -> list[str]:
    """Every registered game id whose module imports."""
    return sorted(_GAMES)


@cache
def get_rules(game_id: str) -> Rules[Any]:
    """The rules object for a game id; raises RulesError naming the known ids."""
    target = _GAMES.get(game_id)
    if target is None:
        known = ", ".join(sorted(_GAMES))
        raise RulesError(f"unknown game {game_id!r} (known: {known})")
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    rules: Rules[Any] = getattr(module, attribute)()
    return rules
