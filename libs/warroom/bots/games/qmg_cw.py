"""QMG: The Cold War for search bots: winner-only rewards, and the rule-based policy as the
rollout policy.

The evaluation is the game's own `evaluate` hook (`warroom.games.qmg_cw.heuristic`: the
pending card finished by the rule-based policy, then a logistic of the Bloc's lead over the
best other Bloc, its estimated chance to win). A finished game is scored on the same scale
(`rewards`: 1 for each seat of the winning Bloc, 0 for the others): only the Bloc with the
most VPs wins, so second place is worth nothing; the generic rank-based reward would value it
at 1/2 and make a trailing Bloc content to let another win.

Playouts of search bots follow the rule-based policy (`warroom.games.qmg_cw.policy`) for every
seat and stop when the Bloc taking its turn changes (`TURNS` changes), where the evaluation
scores them: one Bloc turn shows what a card did, and the others' replies are left to the
evaluation's projection. Playouts through both other Blocs' turns (3 changes) were measured
and lost strength (59.8% against the heuristic on seeds 5403-5504, against 66.7% with one
change; alone on one Bloc 20 of 51 against 29 of 51: the policy's replies are not the
heuristic's, see docs/benchmarks.md). The root's baseline is the option the evaluation
prefers one step ahead (the heuristic bot's choice), so the search starts from the
heuristic's play and departs from it only on paired evidence; a departure is verified with
playouts to the next Scoring Phase.

`search_policy` builds variants for measurement: longer playouts whose other Blocs choose
their Air and Action step cards as the heuristic bot does (`heuristic_replies`, one ply of
the evaluation instead of the policy's first card), and priors averaged over several
determinizations.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from warroom.bots.evaluation import register_rewards
from warroom.bots.policies import Replier, RolloutPolicy, register_policy
from warroom.engine.model import Result

TURNS = 1
"""Changes of the Bloc taking its turn a screening playout runs through (1: to the end of the
searching Bloc's turn; 3: back to its next turn)."""
PRIOR_WORLDS = 1
"""Determinizations the root's one-step priors, and so the search's baseline, are averaged
over."""
CARD_STEPS = frozenset({"air", "action"})
"""The turn steps in which `card_reply` models another Bloc's card choice."""
CARDS = ("play:", "prep:")


def policy_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy's option (see `warroom.games.qmg_cw.policy`)."""
    from warroom.games.qmg_cw.policy import choose

    return choose(state, seat, options)


def one_ply(state: Any, seat: int, options: Sequence[str]) -> str:
    """The option whose resulting position the heuristic evaluation scores best for `seat`
    (the heuristic bot's rule in this state; ties to the earlier option)."""
    from warroom.games.qmg_cw import flow, heuristic

    best, value = options[0], -1.0
    for option in options:
        after = state.clone()
        flow.choose(after, seat, option, flow.Ctx())
        v = heuristic.evaluate(after, seat)
        if v > value:
            best, value = option, v
    return best


def card_reply(state: Any, seat: int, options: Sequence[str]) -> str | None:
    """In an Air or Action step, the best by `one_ply` of the cards to play or prepare and the
    policy's own option, as the heuristic bot would choose; elsewhere None (the policy)."""
    top = state.top()
    if top is None or top.kind not in CARD_STEPS:
        return None
    own = policy_choice(state, seat, options)
    cards = [o for o in options if o.startswith(CARDS)]
    if not cards or cards == [own]:
        return own
    return one_ply(state, seat, cards if own in cards else [*cards, own])


def heuristic_replies(state: Any, seat: int, options: Sequence[str], searcher: int) -> str | None:
    """The other Blocs' card choices in playouts (`card_reply`); a teammate of the searching
    seat plays the policy."""
    if state.seats[seat].bloc == state.seats[searcher].bloc:
        return None
    return card_reply(state, seat, options)


def search_policy(
    turns: int = TURNS, reply: Replier | None = None, prior_worlds: int = PRIOR_WORLDS
) -> RolloutPolicy:
    """The Cold War's rollout policy: playouts through `turns` changes of the Bloc taking its
    turn, the other Blocs played by `reply` where it answers (None: the policy), and the
    determinizations the root's priors (so its baseline) are averaged over."""
    return RolloutPolicy(
        policy_choice,
        epoch,
        turns,
        scoring_period,
        "prior",
        reply=reply,
        prior_worlds=prior_worlds,
    )


def epoch(state: Any) -> Hashable:
    """The round and the Bloc taking its turn: a playout stops after `TURNS` changes."""
    return (int(state.round), int(state.active))


def scoring_period(state: Any) -> Hashable:
    """Which Scoring Phase comes next (after rounds 2, 4, ..., 18, and 19)."""
    return min((int(state.round) - 1) // 2, 9)


def rewards(result: Result, seats: int) -> list[float]:
    """1 for every seat of a winning Bloc, 0 for every other seat."""
    return [1.0 if seat in result.winners else 0.0 for seat in range(seats)]


register_rewards("qmg_cw", rewards)
register_policy("qmg_cw", search_policy())
