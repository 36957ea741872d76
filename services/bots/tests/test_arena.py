"""The arena bench (bench/arena.py): intervals, seatings, one game, and its docs section."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.engine.toy_game import ToyRules

ARENA = Path(__file__).resolve().parents[3] / "bench" / "arena.py"


@pytest.fixture(scope="module")
def arena() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_arena", ARENA)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_arena"] = module
    spec.loader.exec_module(module)
    return module


def test_wilson_interval(arena: ModuleType) -> None:
    low, high = arena.wilson(90, 100)
    assert low == pytest.approx(0.8256, abs=1e-3) and high == pytest.approx(0.9448, abs=1e-3)
    assert arena.wilson(0, 0) == (0.0, 1.0)
    low, high = arena.wilson(10, 10)
    assert high == 1.0 and 0.69 < low < 0.73


def test_seatings_and_one_game(arena: ModuleType) -> None:
    assert arena.seatings(ToyRules(), "duel") == [[0, 1], [1, 0]]
    outcome = arena.play_one("toy", "duel", ("heuristic", "random"), [1, 0], 3, (0, 1), [])
    assert outcome.score in (0.0, 0.5, 1.0)
    assert outcome.steps > 0 and outcome.decisions["A"] > 0


def test_write_section_replaces_only_its_own(arena: ModuleType, tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n<!-- bench:game -->\nkeep\n<!-- /bench:game -->\n")
    arena.write_section("first", doc)
    arena.write_section("second", doc)
    text = doc.read_text()
    assert "keep" in text and "second" in text and "first" not in text
    assert text.count("<!-- bench:bots -->") == 1
