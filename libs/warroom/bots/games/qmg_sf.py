"""South Front for search bots: the rule-based policy as the rollout policy, and the
decisions the search spends its budget on.

The evaluation is the game's own `evaluate` hook, with threatened stars counted when the
Axis searches (`threat_value`, `warroom.games.qmg_sf.heuristic.evaluate_with_threats`: the
pending card or combat finished by the policy, then VP, Victory Stars held, and then a
quarter of each side's threatened stars, times the scoring rounds left, pieces, cards and
Contingency sides); the other side's replies in playouts are still judged by the heuristic
bot's own `evaluate` (`one_ply`). Playouts of search bots follow the rule-based policy
(`warroom.games.qmg_sf.policy`) for every seat. A screening playout runs
through the rest of the side's turn and the other side's whole turn (`TURNS` changes of the
side taking its turn), so both sides see the reply to what they did (the round epoch ended an
Allied playout before the Axis replied), and the evaluation scores the state reached; a
departure from the baseline is verified with playouts to the next scoring round. The root's
baseline is the option the evaluation prefers one step ahead on average over `PRIOR_WORLDS`
determinizations (the choice of the heuristic bot with as many samples: in movement steps
with its second ply over the moves an option made possible, `heuristic.follow_ups`).
In playouts the other side's Action step is its one-ply choice among its cards to play and
the policy's own option (`card_reply`), and movement steps walk land pieces into Victory
Stars (`walking_choice`).

Where the search gains (`EFFORT`, the spec's budget multiplied per decision kind): the
search is spent on the Action step's choice, where a card is chosen, and on the mulligan;
every other decision (movement, payments, placements, attacks, combat) answers its baseline
without playouts: in tuning games, departures there on short playouts lost games. In the
Action step only card and action choices challenge the baseline, not removing one's own
pieces or declaring war (`challenger`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from warroom.bots.evaluation import Evaluator
from warroom.bots.policies import Replier, RolloutPolicy, register_policy

TURNS = 2
EFFORT: Mapping[str, float] = {"action": 1.0, "mulligan": 0.125, "*": 0.0}
NEVER_CHALLENGE = ("rm", "war")
CARDS = ("play", "ct")
MOVEMENT = ("move1", "move2")
WALK = True
"""Playouts walk land pieces into Victory Stars in movement steps (`walking_choice`)."""
PRIOR_WORLDS = 4
"""Determinizations the one-step-ahead priors, and so the baseline, are averaged over: the
heuristic bot with 4 samples beat the 1-sample one 53 of 100, +14/-5 on paired seeds."""
THREAT_SIDES: tuple[int, ...] = (0,)
"""The searching sides whose evaluation counts threatened stars (`threat_value`): the Axis.
Tuning seeds 94187-94226 with both sides counting them: as the Axis 17 of 20, as the Allies
11 of 20; the Allies without them then won 32 of 50 on fresh seeds 8901-9000 (38 of 50 on
8601-8700), so whether threats help the Allies is not measured."""
REPLY_FOR: tuple[int, ...] = (0, 1)
"""The searching sides whose playouts model the other side's Action step by `card_reply`
(both: tuned as the Axis on seeds 90201-90250, 26 of 50 against 21 without; as the Allies
39 of 50)."""


def policy_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy's option (see `warroom.games.qmg_sf.policy`)."""
    from warroom.games.qmg_sf.policy import choose

    return choose(state, seat, options)


def walking_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy, but movement steps take and garrison Victory Stars
    (`warroom.games.qmg_sf.policy.movement`)."""
    from warroom.games.qmg_sf.policy import choose, movement

    if state.top() is None and state.phase in MOVEMENT:
        return movement(state, seat, options)
    return choose(state, seat, options)


def threat_value(state: Any, seat: int) -> float:
    """The search's evaluation for the searching `seat`: the heuristic's, with threatened
    stars counted when the seat is one of `THREAT_SIDES`
    (`warroom.games.qmg_sf.heuristic.evaluate_with_threats`)."""
    from warroom.games.qmg_sf.heuristic import THREAT, evaluate_with_threats

    return evaluate_with_threats(state, seat, THREAT if seat in THREAT_SIDES else 0.0)


def epoch(state: Any) -> Hashable:
    """The game round: a playout stops when it changes."""
    return int(state.round)


def turn(state: Any) -> Hashable:
    """The game round and the side taking its turn."""
    return (int(state.round), int(state.active))


def scoring_period(state: Any) -> Hashable:
    """The scoring period: the number of scoring rounds already played."""
    from warroom.games.qmg_sf.content import tables

    return sum(1 for r in tables().scoring if r < state.round)


def challenger(option_id: str, kind: str) -> bool:
    """Whether an option may challenge the baseline: in the Action step, not a removal of
    one's own piece nor a declaration of war."""
    return kind != "action" or not option_id.startswith(NEVER_CHALLENGE)


def one_ply(state: Any, seat: int, options: Sequence[str]) -> str:
    """The option whose resulting state the evaluation scores best for `seat` (the heuristic
    bot's rule on this state; ties to the earlier option). A finished game scores its result
    (the evaluation gives 1 to the winner and 0 to the loser, as the search's terminal
    reward does)."""
    from warroom.games.qmg_sf import heuristic, turn
    from warroom.games.qmg_sf.state import Ctx

    best, value = options[0], -1.0
    for option in options:
        after = state.clone()
        turn.apply(after, seat, option, Ctx())
        after.touch()
        v = heuristic.evaluate(after, seat)
        if v > value:
            best, value = option, v
    return best


def card_reply(state: Any, seat: int, options: Sequence[str], every: bool = False) -> str | None:
    """In an Action step, the best by `one_ply` of the cards to play (Contingency cards too)
    and the policy's own option, or (`every`) of every option but removals and declarations
    of war; elsewhere None."""
    top = state.top()
    if (top.kind if top is not None else state.phase) != "action":
        return None
    if every:
        return one_ply(state, seat, [o for o in options if challenger(o, "action")])
    own = policy_choice(state, seat, options)
    cards = [o for o in options if o.startswith(CARDS)]
    if not cards or cards == [own]:
        return own
    return one_ply(state, seat, [*cards, own] if own not in cards else cards)


def replier(sides: Sequence[int], every: bool = False) -> Replier:
    """`card_reply` for the other side in the playouts of searches of `sides`."""

    def reply(state: Any, seat: int, options: Sequence[str], searcher: int) -> str | None:
        return card_reply(state, seat, options, every) if searcher in sides else None

    return reply


def search_policy(
    turns: int = TURNS,
    effort: Mapping[str, float] = EFFORT,
    screen: bool = True,
    reply_for: Sequence[int] = REPLY_FOR,
    reply_every: bool = False,
    walk: bool = WALK,
    prior_worlds: int = PRIOR_WORLDS,
    evaluator: Evaluator | None = threat_value,
) -> RolloutPolicy:
    """South Front's rollout policy: playouts through `turns` turn changes (0: to the end of
    the round), the budget's multiplier per decision kind (key "*": every other kind; empty:
    1 for all), whether challengers are screened, and the searching sides whose playouts
    model the other side's Action step (`card_reply`; `reply_every`: over every option),
    whether playouts walk into Victory Stars in movement steps (`walking_choice`), and the
    determinizations the root's priors are averaged over."""
    stop, changes = (turn, turns) if turns else (epoch, 1)
    return RolloutPolicy(
        walking_choice if walk else policy_choice,
        stop,
        changes,
        scoring_period,
        "prior",
        effort=(lambda kind: effort.get(kind, effort.get("*", 1.0))) if effort else None,
        challenger=challenger if screen else None,
        reply=replier(reply_for, reply_every) if reply_for else None,
        prior_worlds=prior_worlds,
        evaluator=evaluator,
    )


register_policy("qmg_sf", search_policy())
