"""Frames from the log: a game rebuilt from its seed (or snapshot) plus its log rows.

Pure functions over the rules (no I/O): how one log row (`option`, `resign`, `forfeit`)
moves a frame, the result of a resignation, and the rows a result is stored as.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.game.live import Frame, Logged
from services.game.models import ActionRow
from services.game.store import Loaded
from warroom.api import convert
from warroom.engine.match import Match, MatchState
from warroom.engine.model import Event, Result
from warroom.engine.registry import get_rules
from warroom.engine.rules import Rules

TERMINAL = {"resign": ("resignation", "resigned"), "forfeit": ("forfeit", "forfeited on time")}


@dataclass(frozen=True, slots=True)
class Terminal:
    """A resign/forfeit row about to be written (the fields `step_row` reads)."""

    seq: int
    seat: int
    kind: str
    decision_id: str = ""
    option_id: str = ""


def resign_result(rules: Rules[Any], state: MatchState[Any], seat: int, reason: str) -> Result:
    """The result when a seat resigns or forfeits.

    A game may define `resign(state, seat) -> Result` (its ranking; the reason is
    this call's); otherwise the seat (and its team) rank last and the other seats
    rank by `scores(state)` when the rules define it (else they tie for first).
    """
    hook = getattr(rules, "resign", None)
    if callable(hook):
        result = hook(state.game, seat)
        if isinstance(result, Result):
            return Result(result.scores, result.winners, result.ranks, reason)
    seats = list(rules.seats(state.game))
    team = next((s.team for s in seats if s.index == seat), "")
    losers = {s.index for s in seats if s.index == seat or (team and s.team == team)}
    scorer = getattr(rules, "scores", None)
    scores: dict[int, float] = {s.index: 0.0 for s in seats}
    if callable(scorer):
        scores.update({int(k): float(v) for k, v in dict(scorer(state.game)).items()})
    remaining = [s.index for s in seats if s.index not in losers]
    levels = sorted({scores[i] for i in remaining}, reverse=True)
    ranks = {i: levels.index(scores[i]) for i in remaining}
    for i in losers:
        ranks[i] = len(levels)
    winners = frozenset(i for i in remaining if ranks[i] == 0)
    return Result(scores, winners, ranks, reason)


def step_row(rules: Rules[Any], match: Match[Any], frame: Frame, row: Any) -> Frame:
    """The frame after one log row (an option applied, or a resign/forfeit ending the game)."""
    if row.kind == "option":
        step = match.apply(frame.state, row.seat, row.option_id)
        result = rules.result(step.state.game) if step.state.over else None
        return Frame(row.seq, step.state, step.events, result)
    reason, verb = TERMINAL.get(row.kind, TERMINAL["forfeit"])
    result = resign_result(rules, frame.state, row.seat, reason)
    return Frame(row.seq, frame.state, (Event(f"seat {row.seat} {verb}", kind=row.kind),), result)


def build(loaded: Loaded) -> tuple[Frame, list[Frame], list[ActionRow]]:
    """Rebuild a game from its snapshot (or seed) and the log after it: head, frames, rows."""
    row = loaded.game
    rules = get_rules(row.rules_id)
    match: Match[Any] = Match(rules)
    if loaded.snapshot is not None:
        state = convert.restore(rules, loaded.snapshot.data)
        frame = Frame(loaded.snapshot.version, state, (), None)
    else:
        state = match.start(int(row.seed), row.variant, dict(row.options))
        frame = Frame(0, state, (), None)
    if frame.state.over:
        frame = Frame(frame.version, frame.state, (), rules.result(frame.state.game))
    frames = [frame]
    for action in loaded.actions:
        frame = step_row(rules, match, frame, action)
        frames.append(frame)
    return frame, frames, loaded.actions


def update_message(row: Logged | Terminal) -> dict[str, Any]:
    """The pub/sub message announcing a new version."""
    return {"v": row.seq, "seat": row.seat, "kind": row.kind}


def result_row(result: Result) -> dict[str, Any]:
    """The `results` row of a result."""
    return {
        "reason": result.reason,
        "scores": {str(k): float(v) for k, v in result.scores.items()},
        "ranks": {str(k): int(v) for k, v in result.ranks.items()},
        "winners": sorted(result.winners),
    }
