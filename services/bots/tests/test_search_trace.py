"""The search trace bench (bench/search_trace.py): a traced game's records and deep searches."""

from __future__ import annotations

from types import ModuleType

import pytest

from services.bots.tests.conftest import load_bench


@pytest.fixture(scope="module")
def search_trace() -> ModuleType:
    return load_bench("search_trace")


def test_a_traced_south_front_game_records_the_axis_action_steps(search_trace: ModuleType) -> None:
    """Every record is a traced seat's Action step; the answer departs from the baseline only
    where the record says so; a deep search answers among the options and never counts more
    ties than challengers; the game ends with a result."""
    records = list(
        search_trace.trace("qmg_sf", 94188, [0], "ismcts@8it", "heuristic", 40, ["action"])
    )
    *steps, last = records
    assert last["result"]["winners"] and len(steps) >= 5
    for record in steps:
        assert record["seat"] == 0 and record["kind"] == "action" and record["options"] > 1
        assert isinstance(record["round"], int) and record["baseline"]
        deep = record["deep"]
        assert deep is not None and deep["iterations"] >= 0
        assert deep["ties"] <= record["options"] - 1
        gains = [gain for _, _, gain, _ in deep["best"]]
        assert gains == sorted(gains, reverse=True)
    assert any(r["deep"]["best"] for r in steps)


def test_games_without_a_rollout_policy_trace_without_deep_searches(
    search_trace: ModuleType,
) -> None:
    """The toy game (registered by the conftest) has no rollout policy: its records carry no
    deep search."""
    records = list(search_trace.trace("toy", 3, [0, 1], "ismcts@20it", "random", 10))
    assert records[-1]["result"]["winners"]
    assert len(records) > 1 and all(r["deep"] is None for r in records[:-1])
    assert {r["seat"] for r in records[:-1]} == {0, 1}


def test_bad_input_is_named_before_any_move(search_trace: ModuleType) -> None:
    """A seat the game lacks, an unknown game or bot fail when the trace is asked for, and
    the command line answers them as bad parameters (exit 2, the reason printed)."""
    from typer.testing import CliRunner

    from warroom.bots.registry import UnknownBotError
    from warroom.engine.errors import RulesError

    with pytest.raises(ValueError, match="seats 0-1"):
        search_trace.trace("qmg_sf", 1, [2], "ismcts@4it", "heuristic")
    with pytest.raises(RulesError, match="unknown game"):
        search_trace.trace("nope", 1, [0], "ismcts@4it", "heuristic")
    with pytest.raises(UnknownBotError):
        search_trace.trace("qmg_sf", 1, [0], "nobot", "heuristic")
    result = CliRunner().invoke(search_trace.app, ["--game", "qmg_sf", "--seat", "3"])
    assert result.exit_code == 2 and "seats 0-1" in result.output
