"""Per-game default policies for search: who plays the simulated moves, and where a playout stops.

A game may offer a *rollout policy*: a fast, strong chooser `choose(state, seat, option_ids) ->
option_id` that reads only what the seat may know in a (determinized) state, plus an optional
`epoch(state)` (a hashable phase marker, e.g. the game round) at whose change a playout stops and
the game's evaluation scores the state, an optional `long_epoch` for the longer playouts that
verify a departure from the policy (None: to the end of the game), and which root option the
search treats as its baseline (`baseline`: the policy's own, or the best by evaluation prior).
It is offered either as a `rollout_policy` attribute on the game's `Rules` or registered here with `register_policy` (modules under `warroom.bots.games`
named after the game id are imported on first use, as for evaluations).

Search bots use the policy to play out simulations and as the baseline they improve on; a game
without one falls back to uniformly random playouts (see `evaluation.rollout`).

Simultaneous decisions: when several seats owe answers to one decision, `policy_rollout` asks the
policy of every acting seat on the same state before applying any of them, so no seat's choice
depends on another's secret answer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from warroom.bots.evaluation import Evaluator, game_rewards, load_game_hooks, seat_value
from warroom.engine.rules import Rules

Chooser = Callable[[Any, int, Sequence[str]], str]
"""A policy: the option id a seat picks among `option_ids` in a state."""

Replier = Callable[[Any, int, Sequence[str], int], str | None]
"""A model of the other seats in playouts: the option a seat picks among `option_ids` in a
state, given the searching seat (the last argument), or None to leave it to the policy."""


@dataclass(frozen=True, slots=True)
class RolloutPolicy:
    """A game's default policy for playouts, and where its playouts stop (see the module)."""

    choose: Chooser
    epoch: Callable[[Any], Hashable] | None = None
    epochs: int = 1
    long_epoch: Callable[[Any], Hashable] | None = None
    baseline: str = "policy"
    """The root option search improves on: "policy" (the policy's own option) or "prior" (the
    option whose resulting state the evaluation scores best, the heuristic bot's choice)."""
    effort: Callable[[str], float] | None = None
    """The search budget's multiplier for a decision kind (None: 1 for every kind); 0 answers
    the baseline without playouts."""
    challenger: Callable[[str, str], bool] | None = None
    """Whether an option (id, decision kind) may challenge the baseline (None: every option)."""
    reply: Replier | None = None
    """The playouts' chooser for the seats other than the searching one (None: `choose`)."""
    prior_worlds: int = 1
    """Determinizations the root's evaluation priors are averaged over (the first is also the
    first screening world); with baseline "prior" the baseline is the best mean, the choice of
    a heuristic bot with as many samples."""
    evaluator: Evaluator | None = None
    """The search's value of unfinished positions, for its priors and its playouts' leaves
    (None: the game's evaluation, `evaluation.evaluator_for`)."""

    def verifier(self) -> RolloutPolicy:
        """The same policy, stopping at the long epoch (None: at the end of the game)."""
        return RolloutPolicy(
            self.choose, self.long_epoch, 1, reply=self.reply, evaluator=self.evaluator
        )


_POLICIES: dict[str, RolloutPolicy] = {}


def register_policy(game_id: str, policy: RolloutPolicy) -> None:
    """Register a game's rollout policy (used when its rules have no `rollout_policy`)."""
    _POLICIES[game_id] = policy


def policy_for(rules: Rules[Any]) -> RolloutPolicy | None:
    """The game's own `rollout_policy`, else a registered one, else None."""
    own = getattr(rules, "rollout_policy", None)
    if isinstance(own, RolloutPolicy):
        return own
    load_game_hooks(rules.game_id)
    return _POLICIES.get(rules.game_id)


def simultaneous_answers(
    rules: Rules[Any], state: Any, policy: RolloutPolicy, skip: int | None = None
) -> dict[int, str]:
    """The policy's answer of every seat acting in the pending decision (but `skip`), on one state."""
    decision = rules.decision(state)
    if decision is None:
        return {}
    return {
        seat: policy.choose(state, seat, [o.id for o in decision.options_for(seat)])
        for seat in decision.seats
        if seat != skip
    }


def apply_answers(rules: Rules[Any], state: Any, answers: dict[int, str]) -> Any:
    """Apply precomputed answers of one simultaneous decision, in seat order.

    A seat whose answer is no longer offered (or who no longer acts) is skipped; the caller's
    playout asks it again on the state reached.
    """
    for seat, option_id in sorted(answers.items()):
        decision = rules.decision(state)
        if decision is None or decision.find(seat, option_id) is None:
            continue
        state = rules.apply(state, seat, option_id).state
    return state


def policy_rollout(
    rules: Rules[Any],
    state: Any,
    policy: RolloutPolicy,
    max_steps: int,
    evaluator: Evaluator | None,
    seat: int,
) -> tuple[float, int]:
    """Play the policy for every seat until the game ends, the epoch moves on, or `max_steps`.

    Returns `seat`'s value of the state reached (its terminal reward, else the evaluation,
    else 1/2) and the number of options applied.
    """
    steps = 0
    start = policy.epoch(state) if policy.epoch is not None else None
    changes = 0
    while steps < max_steps:
        if policy.epoch is not None:
            now = policy.epoch(state)
            if now != start:
                changes += 1
                start = now
                if changes >= policy.epochs:
                    break
        decision = rules.decision(state)
        if decision is None:
            result = rules.result(state)
            assert result is not None, "a finished game must have a result"
            return game_rewards(rules, result, len(rules.seats(state)))[seat], steps
        if len(decision.seats) > 1:
            answers = simultaneous_answers(rules, state, policy)
            before = state
            state = apply_answers(rules, state, answers)
            if state is before:
                mover = decision.seats[0]
                ids = [o.id for o in decision.options_for(mover)]
                state = rules.apply(state, mover, policy.choose(state, mover, ids)).state
            steps += len(answers)
            continue
        mover = decision.seats[0]
        options = decision.options_for(mover)
        if len(options) == 1:
            option_id = options[0].id
        else:
            ids = [o.id for o in options]
            reply = (
                policy.reply(state, mover, ids, seat) if policy.reply and mover != seat else None
            )
            option_id = reply or policy.choose(state, mover, ids)
        state = rules.apply(state, mover, option_id).state
        steps += 1
    return seat_value(rules, state, seat, evaluator), steps
