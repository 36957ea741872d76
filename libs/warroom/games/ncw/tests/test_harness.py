"""Conformance harness over seeded New Cold War games (4 players, random legal play)."""

from __future__ import annotations

import pytest

from warroom.engine.harness import HarnessConfig, playout
from warroom.games.ncw.rules import NewColdWarRules

RULES = NewColdWarRules()
CONFIG = HarnessConfig(full_check_every=40, options_per_check=3, undo_probability=0.05)


@pytest.mark.parametrize("seed", range(8))
def test_seeded_playout(seed: int) -> None:
    """A seeded random game ends, with every check passing (views, encoding, undo, replay)."""
    report = playout(RULES, seed, "4p", config=CONFIG)
    assert report.failures == []
    assert report.finished


def test_every_option_checked_in_one_game() -> None:
    """One game checks every offered option at every third step for input mutation (bounded for
    the suite's time budget; the seeded playouts sample the steps in between)."""
    report = playout(
        RULES,
        1234,
        "4p",
        config=HarnessConfig(full_check_every=3, options_per_check=None, undo_probability=0.0),
    )
    assert report.failures == []
    assert report.finished
