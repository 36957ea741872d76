"""Information-Set Monte Carlo Tree Search, generic over every game in the registry.

Each iteration samples one determinization of the hidden information from the
seat's view (`Rules.determinize(view, seat, seed)`: unseen cards, opponents'
hands, secret objectives, the game's RNG), then walks one shared tree with
UCT, restricted to the options legal in that determinization, and keeps an
availability count per edge (the ISMCTS form of UCB). Below the tree it plays
uniformly random options; a playout cut at `rollout_steps` is scored by the
game's evaluation hook when it has one (`rollout_steps` defaults to
`CUTOFF_WITH_EVALUATOR` steps for a game with an evaluation, else `FULL_PLAYOUT`). Each edge keeps the value of the seat
that chose it, so the search serves any number of seats.

Simultaneous decisions: the match layer lets the seats of a simultaneous
decision answer in any order; the search orders them (the searching seat
first at the root, then by seat) but a seat's tree node never includes what
the other seats chose earlier in the same simultaneous decision, so no seat
"sees" another's secret choice. Other seats' earlier options are part of the
node key (opponent moves are treated as observed once played).

The budget is in iterations, milliseconds, or both (whichever ends first).
With an iteration budget and a seed, a search is reproducible.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from warroom.bots.evaluation import evaluator_for, rollout, state_values
from warroom.bots.position import Bot, Choice, OptionStats, SeatPosition, only_option
from warroom.engine.model import Decision
from warroom.engine.rng import Rng

HIDDEN = "?"
CUTOFF_WITH_EVALUATOR = 24
FULL_PLAYOUT = 5000

Token = tuple[int, str]
Key = tuple[int, tuple[Token, ...]]


@dataclass(slots=True)
class Edge:
    """Statistics of one option at one node, for the seat that chooses it."""

    visits: int = 0
    total: float = 0.0
    available: int = 0


@dataclass(frozen=True, slots=True)
class Budget:
    """A search budget: iterations and/or wall-clock milliseconds (None = unbounded)."""

    iterations: int | None = None
    milliseconds: float | None = None

    def __post_init__(self) -> None:
        if not self.iterations and not self.milliseconds:
            raise ValueError("an ISMCTS budget needs iterations or milliseconds")


class IsmctsBot(Bot):
    """ISMCTS over determinizations of the seat's view."""

    kind = "ismcts"

    def __init__(
        self,
        budget: Budget,
        seed: int = 0,
        exploration: float = 0.7,
        rollout_steps: int | None = None,
    ) -> None:
        self.budget = budget
        self._rng = Rng(seed)
        self.exploration = exploration
        self.rollout_steps = rollout_steps

    def choose(self, position: SeatPosition) -> Choice:
        """The most visited root option, with visits and mean value per option."""
        start = time.perf_counter()
        single = only_option(position)
        if single is not None:
            return Choice(single, (OptionStats(single, 0, 0.0),))
        tree = _Search(position, self._rng, self.exploration, self.rollout_steps)
        deadline = start + self.budget.milliseconds / 1000 if self.budget.milliseconds else math.inf
        limit = self.budget.iterations or math.inf
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
        best = max(analysis, key=lambda s: (s.visits, s.value))
        elapsed = (time.perf_counter() - start) * 1000
        return Choice(best.option_id, analysis, iterations, elapsed)


class _Search:
    """One search tree: nodes keyed by (seat to move, observed history)."""

    def __init__(
        self, position: SeatPosition, rng: Rng, exploration: float, rollout_steps: int | None
    ) -> None:
        self.position = position
        self.rng = rng
        self.exploration = exploration
        self.evaluator = evaluator_for(position.rules)
        if rollout_steps is None:
            rollout_steps = CUTOFF_WITH_EVALUATOR if self.evaluator else FULL_PLAYOUT
        self.rollout_steps = rollout_steps
        self.root_ids = position.option_ids()
        self.nodes: dict[Key, dict[str, Edge]] = {}
        self.root_key: Key = (position.seat, ())
        self.nodes[self.root_key] = {i: Edge() for i in self.root_ids}

    def root_edges(self) -> dict[str, Edge]:
        """The statistics of the searching seat's options."""
        return self.nodes[self.root_key]

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
            if sim_decision is None or not _continues(sim_decision, decision):
                sim_start = len(history)
            sim_decision = decision
            mover = seat if first and seat in decision.options else decision.seats[0]
            legal = [o.id for o in decision.options_for(mover)]
            if first:
                legal = [i for i in self.root_ids if i in set(legal)] or legal
            key = (mover, _observed(history, sim_start, mover))
            node = self.nodes.get(key)
            if node is None:
                node = self.nodes[key] = {}
                expand = True
            else:
                expand = False
            for option_id in legal:
                edge = node.get(option_id)
                if edge is None:
                    edge = node[option_id] = Edge()
                edge.available += 1
            option_id = self._select(node, legal)
            path.append((node[option_id], mover))
            state = rules.apply(state, mover, option_id).state
            history.append((mover, option_id))
            first = False
            if expand or node[option_id].visits == 0:
                break
        if rules.decision(state) is None:
            values = state_values(rules, state, seats, self.evaluator)
        else:
            values, _ = rollout(rules, state, self.rng, self.rollout_steps, self.evaluator)
        for edge, mover in path:
            edge.visits += 1
            edge.total += values[mover]

    def _select(self, node: dict[str, Edge], legal: list[str]) -> str:
        untried = [i for i in legal if node[i].visits == 0]
        if untried:
            return self.rng.choice(untried)
        best, best_score = legal[0], -math.inf
        for option_id in legal:
            edge = node[option_id]
            score = edge.total / edge.visits + self.exploration * math.sqrt(
                math.log(edge.available) / edge.visits
            )
            if score > best_score:
                best, best_score = option_id, score
        return best


def _observed(history: list[Token], sim_start: int, mover: int) -> tuple[Token, ...]:
    """The history as `mover` knows it: others' answers to the current simultaneous decision hidden."""
    if sim_start >= len(history):
        return tuple(history)
    current = tuple((s, o if s == mover else HIDDEN) for s, o in history[sim_start:])
    return (*history[:sim_start], *current)


def _continues(before: Decision, after: Decision) -> bool:
    """Whether `after` is the same simultaneous decision with fewer seats left to answer."""
    return (
        len(before.options) >= 2
        and after.kind == before.kind
        and set(after.options) < set(before.options)
    )
