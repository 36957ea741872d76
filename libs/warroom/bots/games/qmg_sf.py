"""South Front for search bots: the rule-based policy as the rollout policy, and the
decisions the search spends its budget on.

The evaluation is the game's own `evaluate` hook (`warroom.games.qmg_sf.heuristic`: the
pending card or combat finished by the policy, then VP, Victory Stars times the scoring
rounds left, pieces, cards and Contingency sides). Playouts of search bots follow the
rule-based policy (`warroom.games.qmg_sf.policy`) for every seat. A screening playout runs
through the rest of the side's turn and the other side's whole turn (`TURNS` changes of the
side taking its turn), so both sides see the reply to what they did (the round epoch ended an
Allied playout before the Axis replied), and the evaluation scores the state reached; a
departure from the baseline is verified with playouts to the next scoring round. The root's
baseline is the option the evaluation prefers one step ahead (the heuristic bot's choice).
In playouts the other side's Action step is its one-ply choice among its cards to play and
the policy's own option (`card_reply`), and movement steps walk land pieces into Victory
Stars (`walking_choice`).

Where the search gains (`EFFORT`, the spec's budget multiplied per decision kind): the
search is spent on the Action step's choice, where a card is chosen, on the mulligan, and
on a Desperate Attack's target among attacks on a minor country's Victory Star; every other
decision (movement, payments, placements, other attacks, combat) answers its baseline
without playouts: in tuning games, departures there on short playouts lost games. In the
Action step card and action choices challenge the baseline, and war on Yugoslavia, Greece
or Iraq, not removing one's own pieces nor war on Bulgaria (`challenger`). A declaration of
war hands the country to the other side, so a playout follows it with a Desperate Attack on
the country's star from the largest adjacent force and walks in at the Second Movement
(`war_follow_up`): as the Axis, Yugoslavia's 2 Minor Country Forces next to the pieces it
builds in Rome (tuned as the Axis on seeds 90251-90310: 29 of 60 against 26 of 60 without,
22 to 17 on the first 40 seeds and 7 to 9 on the next 20; not significant).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from warroom.bots.policies import Replier, RolloutPolicy, register_policy

TURNS = 2
EFFORT: Mapping[str, float] = {"action": 1.0, "mulligan": 0.125, "da_attack": 0.25, "*": 0.0}
"""The budget's multiplier per decision kind. A Desperate Attack's target is searched only
among attacks on a minor country's Victory Star (`challenger`): the attack that follows a
declaration of war, which the one-ply choice rarely picks (the star is taken only when a piece
walks in at the Second Movement)."""
NEVER_CHALLENGE = ("rm", "war")
WAR_CHALLENGE = ("war0", "war2", "war3")
"""Declarations of war that challenge the baseline in the Action step while `WAR_ATTACK` is
on: on Yugoslavia, Greece and Iraq (each has a Victory Star; Bulgaria has none)."""
WAR_ATTACK = True
"""Playouts follow a declaration of war in the Action step with a Desperate Attack on the
country's Victory Star from the largest adjacent force (`war_follow_up`)."""
CARDS = ("play", "ct")
MOVEMENT = ("move1", "move2")
WALK = True
"""Playouts walk land pieces into Victory Stars in movement steps (`walking_choice`)."""
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
    (`warroom.games.qmg_sf.policy.movement`), and a declaration of war in the Action step is
    followed by an attack on the country (`war_follow_up`)."""
    from warroom.games.qmg_sf.policy import choose, movement

    if state.top() is None and state.phase in MOVEMENT:
        return movement(state, seat, options)
    if WAR_ATTACK:
        follow = war_follow_up(state, seat, options)
        if follow is not None:
            return follow
    return choose(state, seat, options)


def declared_stars(state: Any, side: int) -> list[int]:
    """The Victory Stars that were neutral at the start of this step and are now the other
    side's: a country `side` declared war on during its Action step."""
    from warroom.games.qmg_sf.content import tables
    from warroom.games.qmg_sf.state import NEUTRAL

    return [
        sp
        for sp, star in enumerate(tables().star)
        if star and state.step_control[sp] == NEUTRAL and state.control[sp] == 1 - side
    ]


def _force(state: Any, attack: str) -> int:
    from warroom.games.qmg_sf.board import faction

    fac, src, _ = (int(x) for x in attack[1:].split("-"))
    return sum(1 for p, at in enumerate(state.loc) if at == src and faction(p) == fac)


def war_follow_up(state: Any, seat: int, options: Sequence[str]) -> str | None:
    """After `seat` declared war in its Action step (`declared_stars`): a Desperate Attack
    when it can attack such a star, and in the attack's choice of target the attack on it
    from the largest force; else None (the policy decides)."""
    top = state.top()
    kind = top.kind if top is not None else state.phase
    if kind not in ("action", "da_attack") or state.active != seat:
        return None
    targets = declared_stars(state, seat)
    if not targets:
        return None
    if kind == "action":
        from warroom.games.qmg_sf.combat import all_attacks

        if "da" in options and any(tgt in targets for _, _, tgt in all_attacks(state, seat)):
            return "da"
        return None
    attacks = [o for o in options if o.startswith("a") and int(o.split("-")[-1]) in targets]
    return max(attacks, key=lambda o: _force(state, o)) if attacks else None


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


def minor_stars() -> frozenset[int]:
    """The Victory Stars of minor countries (Yugoslavia, Athens, Iraq)."""
    from warroom.games.qmg_sf.content import tables

    t = tables()
    return frozenset(sp for sp, star in enumerate(t.star) if star and t.country[sp] >= 0)


def challenger(option_id: str, kind: str) -> bool:
    """Whether an option may challenge the baseline: in the Action step, not a removal of
    one's own piece nor a declaration of war, but (`WAR_ATTACK`) war on a country with a
    Victory Star, which the playout follows with an attack on it (`war_follow_up`); in a
    Desperate Attack's choice of target only an attack on a minor country's Victory Star."""
    if kind == "da_attack":
        return option_id.startswith("a") and int(option_id.split("-")[-1]) in minor_stars()
    if kind != "action" or not option_id.startswith(NEVER_CHALLENGE):
        return True
    return WAR_ATTACK and option_id in WAR_CHALLENGE


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
        return one_ply(state, seat, [o for o in options if not o.startswith(NEVER_CHALLENGE)])
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
) -> RolloutPolicy:
    """South Front's rollout policy: playouts through `turns` turn changes (0: to the end of
    the round), the budget's multiplier per decision kind (key "*": every other kind; empty:
    1 for all), whether challengers are screened, and the searching sides whose playouts
    model the other side's Action step (`card_reply`; `reply_every`: over every option),
    and whether playouts walk into Victory Stars in movement steps (`walking_choice`)."""
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
    )


register_policy("qmg_sf", search_policy())
