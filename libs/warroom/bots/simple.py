"""The random bot and the one-ply heuristic bot.

Heuristic evaluation (documented for every game): each option is applied to
`samples` determinizations of the seat's view (hidden facts sampled afresh
each time) and the resulting state is scored for the seat by

- the terminal reward when the option ends the game (see `evaluation`);
- else the game's evaluation hook (`Rules.evaluate(state, seat)` or a function
  registered with `evaluation.register_evaluator`), when the game offers one; when its
  rules also name follow-ups of an option (`Rules.follow_ups`, see
  `evaluation.planned_value`), the best of that score and of each follow-up's;
- else the generic fallback: the mean reward of `rollouts` uniformly random
  playouts from that state.

The option with the best mean score wins; ties go to the earlier option.
"""

from __future__ import annotations

import time

from warroom.bots.evaluation import Evaluator, evaluator_for, planned_value, rollout
from warroom.bots.position import Bot, Choice, OptionStats, SeatPosition, only_option
from warroom.engine.rng import Rng


class RandomBot(Bot):
    """A uniformly random legal option, from a seeded generator."""

    kind = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = Rng(seed)

    def choose(self, position: SeatPosition) -> Choice:
        """A uniformly random option of the seat."""
        return Choice(self._rng.choice(position.option_ids()))


class HeuristicBot(Bot):
    """One-ply lookahead: the option whose resulting state evaluates best for the seat
    (`evaluator`: another value than the game's own, as a search's priors use)."""

    kind = "heuristic"

    def __init__(
        self,
        seed: int = 0,
        samples: int = 4,
        rollouts: int = 4,
        rollout_steps: int = 400,
        evaluator: Evaluator | None = None,
    ) -> None:
        self._rng = Rng(seed)
        self.evaluator = evaluator
        self.samples = max(1, samples)
        self.rollouts = max(1, rollouts)
        self.rollout_steps = rollout_steps

    def choose(self, position: SeatPosition) -> Choice:
        """The best-evaluated option (see the module docstring)."""
        start = time.perf_counter()
        single = only_option(position)
        if single is not None:
            return Choice(single)
        rules, seat = position.rules, position.seat
        evaluator = self.evaluator or evaluator_for(rules)
        ids = position.option_ids()
        totals = dict.fromkeys(ids, 0.0)
        counts = dict.fromkeys(ids, 0)
        for _ in range(self.samples):
            world = rules.determinize(position.view, seat, self._rng.below(1 << 62))
            pending = rules.decision(world)
            legal = {o.id for o in pending.options_for(seat)} if pending else set()
            for option_id in ids:
                if option_id not in legal:
                    continue
                after = rules.apply(world, seat, option_id).state
                if evaluator is not None or rules.result(after) is not None:
                    value = planned_value(rules, world, after, seat, evaluator)
                else:
                    value = (
                        sum(
                            rollout(rules, after, self._rng, self.rollout_steps, None)[0][seat]
                            for _ in range(self.rollouts)
                        )
                        / self.rollouts
                    )
                totals[option_id] += value
                counts[option_id] += 1
        means = {i: totals[i] / counts[i] if counts[i] else -1.0 for i in ids}
        best = max(ids, key=lambda i: means[i])
        analysis = tuple(OptionStats(i, counts[i], max(means[i], 0.0)) for i in ids)
        elapsed = (time.perf_counter() - start) * 1000
        return Choice(best, analysis, self.samples, elapsed)
