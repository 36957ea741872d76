"""Option labels say what the option does, in every game (issue 17 §6).

Seeded random games collect every label offered. A label must never be the option id, a
bare identifier ("eliminate", "discard_enemy_wmd"), a bare name of one word ("Pass", "NATO"),
or a placeholder such as "option A" / "Deployment option B": each names an action.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from warroom.engine.match import Match
from warroom.engine.registry import game_ids, get_rules

MAX_STEPS = 1_500
OPAQUE = re.compile(r"^[a-z_]+$|\boption [A-Z0-9]\b", re.IGNORECASE)


def _opaque_labels(game_id: str, variant: str, seed: int) -> set[tuple[str, str, str]]:
    rules = get_rules(game_id)
    match: Match[Any] = Match(rules)
    rng = random.Random(seed)
    state = match.start(seed, variant, {})
    found: set[tuple[str, str, str]] = set()
    while (pending := state.pending) is not None and state.version < MAX_STEPS:
        for options in pending.options.values():
            for option in options:
                label = option.label.strip()
                if label == option.id or OPAQUE.search(label) or " " not in label:
                    found.add((pending.kind, option.id, label))
        seat = rng.choice(pending.seats)
        ids = [o.id for o in pending.options_for(seat) if not o.is_undo]
        state = match.apply(state, seat, rng.choice(ids)).state
    return found


def _shipped(game_id: str) -> bool:
    """A game of the platform's own packages (not a test game another test registered)."""
    return type(get_rules(game_id)).__module__.startswith("warroom.games.")


@pytest.mark.parametrize(
    ("game_id", "variant"),
    [(g, v.id) for g in game_ids() if _shipped(g) for v in get_rules(g).variants()],
)
def test_every_label_names_an_action(game_id: str, variant: str) -> None:
    assert _opaque_labels(game_id, variant, 4) == set()


def test_the_check_catches_an_opaque_label() -> None:
    assert OPAQUE.search("Deployment option A")
    assert OPAQUE.search("discard_enemy_wmd")
    assert not OPAQUE.search("Deployment A: control Turkey, Israel, Philippines")
