"""Conformance harness over 52 seeded games across 3-6 players (random legal play),
plus one game that checks every offered option at every step."""

from __future__ import annotations

import pytest

from warroom.engine.harness import HarnessConfig, playout
from warroom.games.qmg_cw.rules import ColdWarRules

RULES = ColdWarRules()
CONFIG = HarnessConfig(full_check_every=60, options_per_check=2, undo_probability=0.05)
VARIANTS = ("3p", "4p", "5p", "6p")


@pytest.mark.parametrize("seed", range(52))
def test_seeded_playout(seed: int) -> None:
    """A seeded random game ends with a result, every check passing (views, encoding, undo, replay)."""
    report = playout(RULES, seed, VARIANTS[seed % 4], config=CONFIG)
    assert report.failures == []
    assert report.finished


def test_every_option_checked_in_one_game() -> None:
    """One 6-player game applies every offered option at every step (no input mutation, no failure)."""
    config = HarnessConfig(full_check_every=1, options_per_check=None, undo_probability=0.0)
    report = playout(RULES, 4242, "6p", config=config)
    assert report.failures == []
    assert report.finished
