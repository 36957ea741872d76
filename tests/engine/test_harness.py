"""The conformance harness passes a sound game and catches planted faults."""

from __future__ import annotations

from tests.engine.toy_game import ToyRules
from warroom.engine.harness import HarnessConfig, playout


def test_sound_game_passes_many_seeds() -> None:
    rules = ToyRules()
    reports = [playout(rules, seed, "duel") for seed in range(60)]
    failures = [f for r in reports for f in r.failures]
    assert failures == []
    assert all(r.finished for r in reports)
    assert sum(r.steps for r in reports) > 60 * 6


def test_planted_view_leak_is_caught() -> None:
    rules = ToyRules()
    checks = {
        f.check for seed in range(5) for f in playout(rules, seed, "duel", {"leak": "1"}).failures
    }
    assert "views" in checks


def test_planted_nondeterminism_is_caught() -> None:
    rules = ToyRules()
    config = HarnessConfig(undo_probability=0.0)
    failures = [
        f
        for seed in range(40)
        for f in playout(rules, seed, "duel", {"nondet": "1"}, config).failures
    ]
    assert {f.check for f in failures} == {"replay"}
    assert failures[0].actions, "a failure carries the option log that reproduces it"


def test_unknown_variant_is_reported_as_setup_failure() -> None:
    report = playout(ToyRules(), 1, "no-such-variant")
    assert [f.check for f in report.failures] == ["setup"]
    assert "no-such-variant" in report.failures[0].message
