"""The conformance harness: seeded random playouts that check a game at every step.

At each step it checks that every offered option applies without touching the
input state, that invariants hold, that the state round-trips through protobuf,
that no view leaks another seat's secrets (a determinization from a seat's view
must reproduce that view, and the public view), and that undo restores. At the
end it checks that the game ended and that a replay reproduces it bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from warroom.engine.errors import RulesError
from warroom.engine.match import Action, Match, MatchState
from warroom.engine.model import UNDO_OPTION_ID
from warroom.engine.rng import Rng
from warroom.engine.rules import Rules


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed check, with what is needed to reproduce it."""

    check: str
    message: str
    seed: int
    variant: str
    step: int
    actions: tuple[Action, ...]


@dataclass(slots=True)
class PlayoutReport:
    """The outcome of one playout."""

    seed: int
    variant: str
    steps: int = 0
    finished: bool = False
    failures: list[Failure] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class HarnessConfig:
    """How hard to check. `full_check_every` = 1 checks every option at every step."""

    max_steps: int = 20_000
    full_check_every: int = 1
    options_per_check: int | None = None
    undo_probability: float = 0.05
    stop_at_first_failure: bool = True


def playout(
    rules: Rules[Any],
    seed: int,
    variant: str,
    options: Mapping[str, str] | None = None,
    config: HarnessConfig | None = None,
) -> PlayoutReport:
    """Play one seeded random game, checking everything at every step."""
    config = config or HarnessConfig()
    options = dict(options or {})
    match = Match(rules)
    rng = Rng(seed ^ 0x5EED)
    report = PlayoutReport(seed, variant)
    actions: list[Action] = []

    def fail(check: str, message: str) -> None:
        report.failures.append(Failure(check, message, seed, variant, report.steps, tuple(actions)))

    try:
        state = match.start(seed, variant, options)
    except RulesError as exc:
        fail("setup", str(exc))
        return report
    while state.pending is not None:
        if report.steps >= config.max_steps:
            fail("termination", f"no end after {config.max_steps} steps")
            return report
        deep = report.steps % config.full_check_every == 0
        for check in _checks(deep):
            problem = check(rules, match, state, rng, config)
            if problem:
                fail(check.__name__.removeprefix("_check_"), problem)
                if config.stop_at_first_failure:
                    return report
        seat, option_id = _pick(state, rng, config)
        actions.append(Action(seat, option_id))
        try:
            state = match.apply(state, seat, option_id).state
        except RulesError as exc:
            fail("apply", f"offered option {option_id!r} of seat {seat} failed: {exc}")
            return report
        report.steps += 1
    report.finished = True
    if rules.result(state.game) is None:
        fail("result", "the game has no pending decision but no result")
    replayed = match.replay(seed, variant, options, actions)
    if rules.encode_bytes(replayed.game) != rules.encode_bytes(state.game):
        fail("replay", "replaying seed and option log gave a different final state")
    return report


Check = Callable[[Rules[Any], Match[Any], MatchState[Any], Rng, HarnessConfig], str | None]


def _checks(deep: bool) -> list[Check]:
    checks: list[Check] = [_check_decision, _check_invariants, _check_encoding, _check_views]
    if deep:
        checks.append(_check_options)
    return checks


def _pick(state: MatchState[Any], rng: Rng, config: HarnessConfig) -> tuple[int, str]:
    assert state.pending is not None
    seat = rng.choice(state.pending.seats)
    ids = [o.id for o in state.pending.options_for(seat)]
    plain = [i for i in ids if i != UNDO_OPTION_ID]
    if UNDO_OPTION_ID in ids and (not plain or rng.random() < config.undo_probability):
        return seat, UNDO_OPTION_ID
    return seat, rng.choice(plain)


def _check_decision(
    rules: Rules[Any], match: Match[Any], state: MatchState[Any], rng: Rng, config: HarnessConfig
) -> str | None:
    pending = state.pending
    assert pending is not None
    if not pending.options:
        return f"decision {pending.kind!r} names no seat"
    seat_count = len(rules.seats(state.game))
    for seat, options in pending.options.items():
        if not 0 <= seat < seat_count:
            return f"decision {pending.kind!r} names seat {seat} of {seat_count}"
        if not options:
            return f"dead end: seat {seat} has no option in {pending.kind!r}"
        ids = [o.id for o in options]
        if len(set(ids)) != len(ids):
            return f"duplicate option ids for seat {seat} in {pending.kind!r}: {ids}"
    return None


def _check_invariants(
    rules: Rules[Any], match: Match[Any], state: MatchState[Any], rng: Rng, config: HarnessConfig
) -> str | None:
    broken = rules.invariants(state.game)
    return "; ".join(broken) if broken else None


def _check_encoding(
    rules: Rules[Any], match: Match[Any], state: MatchState[Any], rng: Rng, config: HarnessConfig
) -> str | None:
    data = rules.encode_bytes(state.game)
    decoded = rules.decode_bytes(data)
    if rules.encode_bytes(decoded) != data:
        return "state changed through protobuf encode/decode"
    if rules.decision(decoded) != rules.decision(state.game):
        return "decoded state offers a different decision"
    return None


def _check_views(
    rules: Rules[Any], match: Match[Any], state: MatchState[Any], rng: Rng, config: HarnessConfig
) -> str | None:
    public = rules.view(state.game, None)
    for seat in range(len(rules.seats(state.game))):
        view = rules.view(state.game, seat)
        sampled = rules.determinize(view, seat, rng.below(1 << 62))
        if rules.view(sampled, seat) != view:
            return (
                f"seat {seat}'s view is not reproduced by a determinization from it: "
                "the view shows something the seat may not know, or determinize copies a secret"
            )
        if rules.view(sampled, None) != public:
            return f"the public view depends on information hidden from seat {seat}"
    return None


def _check_options(
    rules: Rules[Any], match: Match[Any], state: MatchState[Any], rng: Rng, config: HarnessConfig
) -> str | None:
    pending = state.pending
    assert pending is not None
    before = rules.encode_bytes(state.game)
    for seat in pending.seats:
        options = list(pending.options_for(seat))
        if config.options_per_check is not None and len(options) > config.options_per_check:
            rng.shuffle(options)
            options = options[: config.options_per_check]
        for option in options:
            try:
                step = match.apply(state, seat, option.id)
            except RulesError as exc:
                return f"offered option {option.id!r} of seat {seat} failed: {exc}"
            if rules.encode_bytes(state.game) != before:
                return f"applying {option.id!r} mutated the input state"
            previous = state.previous
            if option.id != UNDO_OPTION_ID or previous is None:
                continue
            if rules.encode_bytes(step.state.game) != rules.encode_bytes(previous.game):
                return "undo did not restore the previous state"
    return None
