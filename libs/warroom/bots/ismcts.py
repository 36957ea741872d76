"""Information-Set Monte Carlo Tree Search, generic over every game in the registry.

Each iteration samples one determinization of the hidden information from the
seat's view (`Rules.determinize(view, seat, seed)`: unseen cards, opponents'
hands, secret objectives, the game's RNG), then walks one shared tree with
UCT, restricted to the options legal in that determinization, and keeps an
availability count per edge (the ISMCTS form of UCB). Each edge keeps the
value of the seat that chose it, so the search serves any number of seats.

Leaves. For a game with an evaluation hook (`Rules.evaluate(state, seat)` or
a registered evaluator, see `evaluation`), a playout is truncated: it plays
`rollout_steps` uniformly random options (`CUTOFF_WITH_EVALUATOR`, by default
none) and the evaluation scores the state reached. A game without one is
played out at random to the end (`FULL_PLAYOUT`).

Priors and progressive widening (games with an evaluation only). A node
entered for the second time (the root at once) scores each legal option by
the evaluation of the state it leads to, for the seat choosing it, in the
current determinization (options first met later are scored when met). Its
selection then considers only the best `WIDEN_BASE + WIDEN_SCALE * sqrt(n)`
options by prior (n = the node's visits), tries them in prior order, and adds
a progressive bias `PRIOR_WEIGHT * prior / (visits + 1)` to the UCB score.

Simultaneous decisions: the match layer lets the seats of a simultaneous
decision answer in any order; the search orders them (the searching seat
first at the root, then by seat) but a seat's tree node never includes what
the other seats chose earlier in the same simultaneous decision, so no seat
"sees" another's secret choice. Other seats' earlier options are part of the
node key (opponent moves are treated as observed once played).

Games with a rollout policy (see `policies`; New Cold War: the official flowchart). The search
is then rollout policy improvement at the root (`_PolicySearch`): every iteration is one playout
in which every seat plays the policy after the searching seat's root option, cut at the policy's
epoch (or the end) and scored by the evaluation (the policy's own `evaluator` when it names
one, for the priors too). Root options share determinizations round by round, so they are
compared on paired samples; the policy's own option is the baseline (its
prior; or, for a policy whose `baseline` is "prior", e.g. QMG: The Cold War, the option the
evaluation scores best one step ahead, the heuristic bot's choice; the priors are averaged
over the policy's `prior_worlds` determinizations), the others enter by
evaluation prior and leave once clearly worse, and the search stops early when no option is
left to challenge the baseline. Screening takes `POLICY_SCREEN_SHARE` of
the budget; a departure from the baseline needs significant screening evidence and must
then also win `POLICY_VERIFY_PAIRS` paired long playouts (to the policy's `long_epoch`, else the
end). A decision with one option is answered without search.

The budget is in iterations, milliseconds, or both (whichever ends first).
With an iteration budget and a seed, a search is reproducible.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from warroom.bots.evaluation import (
    Evaluator,
    evaluator_for,
    game_rewards,
    planned_value,
    rollout,
    state_values,
)
from warroom.bots.policies import (
    RolloutPolicy,
    apply_answers,
    policy_for,
    policy_rollout,
    simultaneous_answers,
)
from warroom.bots.position import Bot, Choice, OptionStats, SeatPosition, only_option
from warroom.engine.model import Decision
from warroom.engine.rng import Rng
from warroom.engine.rules import Rules

HIDDEN = "?"
CUTOFF_WITH_EVALUATOR = 0
FULL_PLAYOUT = 5000
EXPLORATION_WITH_EVALUATOR = 0.35
WIDEN_BASE = 2
WIDEN_SCALE = 1.0
PRIOR_WEIGHT = 1.0
POLICY_PLAYOUT = 400
POLICY_ACTIVE = 4
POLICY_MIN_SAMPLES = 3
POLICY_DROP_Z = 1.5
POLICY_CHOOSE_Z = 2.0
POLICY_SCREEN_SHARE = 0.6
POLICY_VERIFY_PAIRS = 3

Token = tuple[int, str]
Key = tuple[int, tuple[Token, ...]]


@dataclass(slots=True)
class Edge:
    """Statistics of one option at one node, for the seat that chooses it."""

    visits: int = 0
    total: float = 0.0
    available: int = 0
    prior: float | None = None


@dataclass(slots=True)
class Node:
    """One information-set node: its edges, how often it was entered, whether it has priors."""

    edges: dict[str, Edge] = field(default_factory=dict)
    visits: int = 0
    scored: bool = False


@dataclass(frozen=True, slots=True)
class Budget:
    """A search budget: iterations and/or wall-clock milliseconds (None = unbounded)."""

    iterations: int | None = None
    milliseconds: float | None = None

    def __post_init__(self) -> None:
        if not self.iterations and not self.milliseconds:
            raise ValueError("an ISMCTS budget needs iterations or milliseconds")


class IsmctsBot(Bot):
    """ISMCTS over determinizations of the seat's view.

    `exploration` and `rollout_steps` default (None) by whether the game has
    an evaluation; `priors` turns the evaluation priors and progressive widening off.
    """

    kind = "ismcts"

    def __init__(
        self,
        budget: Budget,
        seed: int = 0,
        exploration: float | None = None,
        rollout_steps: int | None = None,
        priors: bool = True,
        use_policy: bool = True,
    ) -> None:
        self.budget = budget
        self._rng = Rng(seed)
        self.exploration = exploration
        self.rollout_steps = rollout_steps
        self.priors = priors
        self.use_policy = use_policy

    def choose(self, position: SeatPosition) -> Choice:
        """The most visited root option, with visits and mean value per option."""
        start = time.perf_counter()
        single = only_option(position)
        if single is not None:
            return Choice(single, (OptionStats(single, 0, 0.0),))
        deadline = start + self.budget.milliseconds / 1000 if self.budget.milliseconds else math.inf
        limit = self.budget.iterations or math.inf
        policy = policy_for(position.rules) if self.use_policy else None
        if policy is not None:
            scale = policy.effort(position.decision.kind) if policy.effort else 1.0
            if scale != 1.0:
                limit = round(limit * scale) if limit < math.inf else limit
                if deadline < math.inf:
                    deadline = start + scale * (deadline - start)
            search = _PolicySearch(
                position, self._rng, policy, self.rollout_steps or POLICY_PLAYOUT
            )
            option_id, stats, done = search.run(limit, deadline, start)
            elapsed = (time.perf_counter() - start) * 1000
            return Choice(option_id, stats, done, elapsed, notes={"policy": search.baseline})
        tree = _Search(position, self._rng, self.exploration, self.rollout_steps, self.priors)
        iterations = 0
        while iterations < limit and (iterations == 0 or time.perf_counter() < deadline):
            tree.iterate()
            iterations += 1
        root = tree.root_edges()
        ids = position.option_ids()
        analysis = tuple(
            OptionStats(
                i, root[i].visits, root[i].total / root[i].visits if root[i].visits else 0.0
            )
            for i in ids
        )
        prior = {i: root[i].prior or 0.0 for i in ids}
        best = max(analysis, key=lambda s: (s.visits, s.value, prior[s.option_id]))
        elapsed = (time.perf_counter() - start) * 1000
        return Choice(best.option_id, analysis, iterations, elapsed)


@dataclass(slots=True)
class _Arm:
    """One root option of a policy search: its playouts, and its differences from the baseline."""

    option_id: str
    prior: float
    visits: int = 0
    total: float = 0.0
    paired: int = 0
    diff: float = 0.0
    diff2: float = 0.0

    def gain(self) -> float:
        """The mean paired difference from the baseline option."""
        return self.diff / self.paired if self.paired else 0.0

    def error(self) -> float:
        """The standard error of `gain` (infinite below two pairs)."""
        if self.paired < 2:
            return math.inf
        mean = self.diff / self.paired
        variance = max(0.0, (self.diff2 - self.paired * mean * mean) / (self.paired - 1))
        return math.sqrt(variance / self.paired)


class _PolicySearch:
    """Rollout policy improvement over the game's default policy, at the root of the search.

    Each round samples one determinization of the seat's view and plays every active root
    option in it, each followed by the policy for every seat until its playout stops (common
    random numbers: the options of one round share the hidden facts and the game's RNG, so
    their differences are paired). The baseline is the policy's own option; the others enter
    in order of the evaluation of the state they lead to, `POLICY_ACTIVE` at a time, and leave
    once clearly worse than the baseline. The answer departs from the baseline only for an
    option whose paired gain is `POLICY_CHOOSE_Z` standard errors above zero.

    Simultaneous decisions: the other acting seats' answers are the policy's on the sampled
    state before the searching seat's option is applied, so they never depend on it.
    """

    def __init__(
        self, position: SeatPosition, rng: Rng, policy: RolloutPolicy, max_steps: int
    ) -> None:
        self.position = position
        self.rng = rng
        self.policy = policy
        self.max_steps = max_steps
        self.evaluator = policy.evaluator or evaluator_for(position.rules)
        self.baseline = ""
        self.arms: dict[str, _Arm] = {}

    def _sample(self) -> tuple[Any, Decision | None]:
        rules, seat = self.position.rules, self.position.seat
        world = rules.determinize(self.position.view, seat, self.rng.below(1 << 62))
        return world, rules.decision(world)

    def _play(
        self,
        world: Any,
        decision: Decision | None,
        option_id: str,
        answers: dict[int, str],
        policy: RolloutPolicy | None = None,
    ) -> float | None:
        rules, seat = self.position.rules, self.position.seat
        if decision is None or decision.find(seat, option_id) is None:
            return None
        state = rules.apply(world, seat, option_id).state
        if answers:
            state = apply_answers(rules, state, answers)
        value, _ = policy_rollout(
            rules, state, policy or self.policy, self.max_steps, self.evaluator, seat
        )
        return value

    def _answers(self, world: Any, decision: Decision | None) -> dict[int, str]:
        if decision is None or len(decision.seats) < 2:
            return {}
        return simultaneous_answers(self.position.rules, world, self.policy, self.position.seat)

    def verify(self, option_id: str, pairs: int, deadline: float) -> tuple[bool, int]:
        """Whether `option_id` beats the baseline over `pairs` paired long playouts; playouts run."""
        verifier = self.policy.verifier()
        total, count, played = 0.0, 0, 0
        for _ in range(pairs):
            if count and time.perf_counter() >= deadline:
                break
            world, decision = self._sample()
            answers = self._answers(world, decision)
            mine = self._play(world, decision, option_id, answers, verifier)
            base = self._play(world, decision, self.baseline, answers, verifier)
            played += 2
            if mine is not None and base is not None:
                total += mine - base
                count += 1
        return count > 0 and total > 0.0, played

    def _priors(self, world: Any, decision: Decision | None, ids: list[str]) -> dict[str, float]:
        """Each option's evaluation one step ahead (or, where the rules name follow-ups, the
        best of it and of the moves it made possible: `evaluation.planned_value`), averaged
        over `prior_worlds` worlds (the given one first) in which it is legal; the baseline of
        a "policy" search scores 0."""
        rules, seat = self.position.rules, self.position.seat
        totals, counts = dict.fromkeys(ids, 0.0), dict.fromkeys(ids, 0)
        for n in range(max(1, self.policy.prior_worlds)):
            if n:
                world, decision = self._sample()
            for option_id in ids:
                if option_id == self.baseline or decision is None:
                    continue
                if decision.find(seat, option_id) is None:
                    continue
                after = rules.apply(world, seat, option_id).state
                totals[option_id] += planned_value(rules, world, after, seat, self.evaluator)
                counts[option_id] += 1
        return {i: totals[i] / counts[i] if counts[i] else 0.0 for i in ids}

    def _open(self, world: Any, decision: Decision | None, ids: list[str]) -> list[str]:
        """Set the baseline and the arms; the challengers in order of evaluation prior."""
        seat = self.position.seat
        legal = [i for i in ids if decision is not None and decision.find(seat, i) is not None]
        self.baseline = self.policy.choose(world, seat, legal or ids)
        if self.baseline not in ids:
            self.baseline = ids[0]
        if self.policy.baseline == "prior":
            policy_option, self.baseline = self.baseline, ""
            priors = self._priors(world, decision, ids)
            self.baseline = max(ids, key=lambda i: (priors[i], i == policy_option))
        else:
            priors = self._priors(world, decision, ids)
        self.arms = {i: _Arm(i, priors[i]) for i in ids}
        kind, challenger = self.position.decision.kind, self.policy.challenger
        return sorted(
            (i for i in ids if i != self.baseline and (challenger is None or challenger(i, kind))),
            key=lambda i: -priors[i],
        )

    def run(
        self, limit: float, deadline: float, start: float
    ) -> tuple[str, tuple[OptionStats, ...], int]:
        """Screen until the budget's screening share or until no option can still beat the
        baseline, then verify a departure from the baseline with long playouts (a budget of
        no iterations answers the baseline)."""
        final = deadline
        if deadline < math.inf:
            deadline = start + POLICY_SCREEN_SHARE * (deadline - start)
        ids = self.position.option_ids()
        world, decision = self._sample()
        queue = self._open(world, decision, ids)
        if limit <= 0 or deadline <= start:
            return self.baseline, self._stats(ids), 0
        if limit < math.inf:
            limit = max(1, int(POLICY_SCREEN_SHARE * limit))
        active, queue = queue[:POLICY_ACTIVE], queue[POLICY_ACTIVE:]
        iterations = 0
        while True:
            iterations = self._paired_round(world, decision, active, iterations, limit, deadline)
            self._drop_beaten(active, queue)
            if not active and not queue:
                break
            if iterations >= limit or time.perf_counter() >= deadline:
                break
            world, decision = self._sample()
        best = self._best_challenger()
        if best != self.baseline and POLICY_VERIFY_PAIRS:
            confirmed, played = self.verify(best, POLICY_VERIFY_PAIRS, final)
            iterations += played
            if not confirmed:
                best = self.baseline
        return best, self._stats(ids), iterations

    def _paired_round(
        self,
        world: Any,
        decision: Decision | None,
        active: list[str],
        iterations: int,
        limit: float,
        deadline: float,
    ) -> int:
        """One screening round on one world: the baseline's playout, then each active
        challenger's on the same world and answers (paired with the baseline's value), while
        the budget lasts. Returns the iterations spent so far."""
        arms = self.arms
        answers = self._answers(world, decision)
        base = self._play(world, decision, self.baseline, answers)
        iterations += 1
        if base is not None:
            arm = arms[self.baseline]
            arm.visits += 1
            arm.total += base
        for option_id in active:
            if iterations >= limit or time.perf_counter() >= deadline:
                break
            value = self._play(world, decision, option_id, answers)
            iterations += 1
            if value is None:
                continue
            arm = arms[option_id]
            arm.visits += 1
            arm.total += value
            if base is not None:
                arm.paired += 1
                arm.diff += value - base
                arm.diff2 += (value - base) ** 2
        return iterations

    def _drop_beaten(self, active: list[str], queue: list[str]) -> None:
        """Drop the challengers that can no longer beat the baseline (each replaced by the
        next queued option)."""
        for option_id in list(active):
            arm = self.arms[option_id]
            if arm.paired >= POLICY_MIN_SAMPLES and (
                arm.gain() + POLICY_DROP_Z * arm.error() < 0
                or (arm.error() == 0.0 and arm.gain() <= 0.0)
            ):
                active.remove(option_id)
                if queue:
                    active.append(queue.pop(0))

    def _best_challenger(self) -> str:
        """The challenger with the best paired gain that is significant, else the baseline."""
        best, best_gain = self.baseline, 0.0
        for arm in self.arms.values():
            if arm.paired < POLICY_MIN_SAMPLES or arm.option_id == self.baseline:
                continue
            gain = arm.gain()
            if gain > best_gain and gain > POLICY_CHOOSE_Z * arm.error():
                best, best_gain = arm.option_id, gain
        return best

    def _stats(self, ids: list[str]) -> tuple[OptionStats, ...]:
        arms = self.arms
        return tuple(
            OptionStats(
                i, arms[i].visits, arms[i].total / arms[i].visits if arms[i].visits else 0.0
            )
            for i in ids
        )


class _Search:
    """One search tree: nodes keyed by (seat to move, observed history)."""

    def __init__(
        self,
        position: SeatPosition,
        rng: Rng,
        exploration: float | None,
        rollout_steps: int | None,
        priors: bool,
    ) -> None:
        self.position = position
        self.rng = rng
        self.evaluator: Evaluator | None = evaluator_for(position.rules)
        if exploration is None:
            exploration = EXPLORATION_WITH_EVALUATOR if self.evaluator else 0.7
        self.exploration = exploration
        if rollout_steps is None:
            rollout_steps = CUTOFF_WITH_EVALUATOR if self.evaluator else FULL_PLAYOUT
        self.rollout_steps = rollout_steps
        self.priors = priors and self.evaluator is not None
        self.root_ids = position.option_ids()
        self.nodes: dict[Key, Node] = {}
        self.root_key: Key = (position.seat, ())
        self.nodes[self.root_key] = Node({i: Edge() for i in self.root_ids})

    def root_edges(self) -> dict[str, Edge]:
        """The statistics of the searching seat's options."""
        return self.nodes[self.root_key].edges

    def iterate(self) -> None:
        """One determinization, one selection/expansion path, one playout, one backup."""
        rules, seat = self.position.rules, self.position.seat
        state = rules.determinize(self.position.view, seat, self.rng.below(1 << 62))
        seats = len(rules.seats(state))
        history: list[Token] = []
        sim_start = 0
        sim_decision: Decision | None = None
        path: list[tuple[Edge, int]] = []
        first = True
        while True:
            decision = rules.decision(state)
            if decision is None:
                break
            if sim_decision is None or not sim_decision.continued_by(decision, history[-1][0]):
                sim_start = len(history)
            sim_decision = decision
            mover = seat if first and seat in decision.options else decision.seats[0]
            legal = [o.id for o in decision.options_for(mover)]
            if first:
                legal = [i for i in self.root_ids if i in set(legal)] or legal
            key = (mover, _observed(history, sim_start, mover))
            node = self.nodes.get(key)
            expand = node is None
            if node is None:
                node = self.nodes[key] = Node()
            for option_id in legal:
                edge = node.edges.get(option_id)
                if edge is None:
                    edge = node.edges[option_id] = Edge()
                edge.available += 1
            if self.priors and len(legal) > 1 and (first or node.visits > 0):
                self._score(rules, state, mover, seats, node, legal)
            node.visits += 1
            option_id = self._select(node, legal)
            path.append((node.edges[option_id], mover))
            state = rules.apply(state, mover, option_id).state
            history.append((mover, option_id))
            first = False
            if expand or node.edges[option_id].visits == 0:
                break
        if rules.decision(state) is None:
            values = state_values(rules, state, seats, self.evaluator)
        else:
            values, _ = rollout(rules, state, self.rng, self.rollout_steps, self.evaluator)
        for edge, mover in path:
            edge.visits += 1
            edge.total += values[mover]

    def _score(
        self, rules: Rules[Any], state: Any, mover: int, seats: int, node: Node, legal: list[str]
    ) -> None:
        """Give each legal option without a prior the evaluation of the state it leads to."""
        for option_id in legal:
            edge = node.edges[option_id]
            if edge.prior is None:
                after = rules.apply(state, mover, option_id).state
                result = rules.result(after)
                if result is not None:
                    edge.prior = game_rewards(rules, result, seats)[mover]
                else:
                    assert self.evaluator is not None
                    edge.prior = self.evaluator(after, mover)
        node.scored = True

    def _select(self, node: Node, legal: list[str]) -> str:
        edges = node.edges
        if node.scored:
            ranked = sorted(legal, key=lambda i: -(edges[i].prior or 0.0))
            width = WIDEN_BASE + int(WIDEN_SCALE * math.sqrt(node.visits))
            allowed = ranked[:width]
            for option_id in allowed:
                if edges[option_id].visits == 0:
                    return option_id
        else:
            untried = [i for i in legal if edges[i].visits == 0]
            if untried:
                return self.rng.choice(untried)
            allowed = legal
        best, best_score = allowed[0], -math.inf
        for option_id in allowed:
            edge = edges[option_id]
            score = edge.total / edge.visits + self.exploration * math.sqrt(
                math.log(edge.available) / edge.visits
            )
            if edge.prior is not None:
                score += PRIOR_WEIGHT * edge.prior / (edge.visits + 1)
            if score > best_score:
                best, best_score = option_id, score
        return best


def _observed(history: list[Token], sim_start: int, mover: int) -> tuple[Token, ...]:
    """The history as `mover` knows it: others' answers to the current simultaneous decision hidden."""
    if sim_start >= len(history):
        return tuple(history)
    current = tuple((s, o if s == mover else HIDDEN) for s, o in history[sim_start:])
    return (*history[:sim_start], *current)
