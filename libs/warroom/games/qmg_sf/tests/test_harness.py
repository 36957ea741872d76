"""Conformance harness over 50+ seeded South Front games (random legal play)."""

from __future__ import annotations

import pytest

from warroom.engine.harness import HarnessConfig, playout
from warroom.games.qmg_sf.tests.helpers import RULES

CONFIG = HarnessConfig(full_check_every=50, options_per_check=2, undo_probability=0.05)


@pytest.mark.parametrize("seed", range(44))
def test_seeded_playout_standard(seed: int) -> None:
    """A seeded random game ends with every check passing (views, encoding, undo, replay)."""
    report = playout(RULES, seed, "standard", config=CONFIG)
    assert report.failures == []
    assert report.finished


@pytest.mark.parametrize("seed", range(100, 106))
def test_seeded_playout_first_game(seed: int) -> None:
    """First Game hands: the same checks."""
    report = playout(RULES, seed, "first_game", config=CONFIG)
    assert report.failures == []
    assert report.finished


def test_every_option_checked_in_one_game() -> None:
    """One game checks every offered option at every step for input mutation and undo."""
    config = HarnessConfig(full_check_every=1, options_per_check=None, undo_probability=0.1)
    report = playout(RULES, 4242, "standard", config=config)
    assert report.failures == []
    assert report.finished
