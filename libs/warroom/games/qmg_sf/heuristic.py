"""The South Front position value used by the heuristic bot and by search cut-offs.

`evaluate(state, seat)` first finishes whatever card or combat is pending by letting
both sides play the rule-based policy (`policy.py`, at most `HORIZON` decisions, never
past the end of the current action), so that playing a card is judged by what it does,
not by the card leaving the hand. In the seat's own Second Movement step the policy also
ends the step, so that every option there, ending the step included, is judged after the
Supply step that follows it (the Supply step removes unsupplied pieces). The finished
position is then scored for the seat as `0.5 + 0.5 * tanh(x / 10)` with

    x = VP lead + held-stars lead * scoring rounds left + pieces lead + 0.3 * cards lead
        + 0.5 * Contingency sides lead,

where a held star counts one half when it is exposed (no own piece there, an enemy
infantry or tank next to it, and, while the side is still taking its turn, no garrison of its
own in reach: a tank of its own next to it, or an infantry or tank of its own aboard a fleet
next to it, which can still enter it in the side's Second Movement step),

and pieces count by kind (infantry 1, tank 1.3, airplane 1.2, fleet 1.1, carrier 0.8;
an unsupplied piece a quarter), cards are those in hand and Contingency sides are the
unused sides left (2 per card unplayed, 1 when flipped). A finished game is 1 or 0.

The search bot's value as the Axis (`evaluate_with_threats`) adds to each side's held stars
`THREAT` times its threatened stars: stars it does not control (the other side's, or a neutral
country's, which a declaration of war opens) next to one of its infantry or tanks, on land or
aboard a fleet in the water space next to it (`threatened_stars`). Without it, a move that
brings a piece up to a star scores the same as staying put until the star is taken, and the
search's Axis sat in Rome after losing Africa. The heuristic bot keeps `evaluate`.

`follow_ups` names, for the heuristic bot's second ply (`warroom.bots.evaluation.
planned_value`), the moves an option of the seat's own movement step made possible: an option
there is judged by the best of its own position and of each such follow-up's, so a plan of
two moves is found when the first scores little alone (the Example of Play's opening: a fleet
moves into Gulf of Sidra, then the Tripoli infantry boards it, to garrison Tobruk in the
Second Movement step).
"""

from __future__ import annotations

import math

from warroom.games.qmg_sf import board, policy, scoring, turn
from warroom.games.qmg_sf.board import pieces
from warroom.games.qmg_sf.content import tables
from warroom.games.qmg_sf.state import FLEET, GONE, INF, OFF, TANK, Ctx, SfState
from warroom.games.qmg_sf.supply import unsupplied

HORIZON = 40
CARD, CONTINGENCY, EXPOSED = 0.3, 0.5, 0.5
TURN_PHASES = ("move1", "action", "acting", "move2")
"""The phases of a side's turn before its Second Movement step ends."""
THREAT = 0.25
"""What a threatened star (`threatened_stars`) is worth to the search bot, as a share of a held
one (`evaluate_with_threats`)."""
FOLLOW_UPS = 8
"""At most this many follow-up moves are looked at after one option (`follow_ups`)."""


def _open_move2(s: SfState, seat: int | None) -> bool:
    """Whether `seat`'s side is taking its Second Movement step with nothing else pending."""
    return seat == s.active and s.phase == "move2" and s.top() is None


def settle(state: SfState, seat: int | None = None) -> SfState:
    """The position once the pending card or combat is finished by the policy (a copy when
    anything was played; the state itself when nothing is pending), and, when `seat`'s side
    is in its Second Movement step, once the policy has ended that step (so the Supply step
    has removed the unsupplied pieces)."""
    s = state
    for _ in range(HORIZON):
        if s.over or (s.top() is None and not _open_move2(s, seat)):
            break
        seat = turn.seat_to_act(s)
        options = [o for o, _ in turn.options(s)]
        if not options:
            break
        choice = policy.choose(s, seat, options)
        s = s.clone() if s is state else s
        turn.apply(s, seat, choice, Ctx())
        s.touch()
    return s


def _stars_left(s: SfState) -> int:
    return max(1, sum(1 for r in tables().scoring if r >= s.round))


def exposed_stars(s: SfState, side: int) -> int:
    """Victory Stars the side holds with no piece of its own there, next to an enemy
    infantry or tank that could walk in on its next movement step, and out of the side's
    own reach this turn (`garrisons_in_reach`)."""
    t = tables()
    sides, _, kinds = pieces()
    on = s.on
    walkers = {
        at
        for p, at in enumerate(s.loc)
        if at != OFF and sides[p] != side and kinds[p] in (INF, TANK) and on[p] < 0
    }
    reach = garrisons_in_reach(s, side)
    out = 0
    for sp, star in enumerate(t.star):
        if not star or s.control[sp] != side or board.occupied_by(s, sp, side):
            continue
        if sp in reach:
            continue
        if any(nb in walkers for nb in board.adjacent(s, sp, 1 - side)):
            out += 1
    return out


def garrisons_in_reach(s: SfState, side: int) -> set[int]:
    """Land spaces the side can still enter in its own Second Movement step this turn: those
    next to a tank of its own (that has not moved in that step yet), or next to a water space
    where an infantry or tank of its own is aboard a fleet (to unload). Empty unless the side
    is taking its turn and its Second Movement step has not ended."""
    if s.over or s.active != side or s.phase not in TURN_PHASES:
        return set()
    out: set[int] = set()
    sides, _, kinds = pieces()
    for p, at in enumerate(s.loc):
        if at == OFF or sides[p] != side or kinds[p] not in (INF, TANK):
            continue
        carrier = s.on[p]
        aboard = carrier >= 0 and kinds[carrier] == FLEET
        walking = carrier < 0 and kinds[p] == TANK
        if s.phase == "move2" and s.moved >> p & 1:
            continue
        if aboard or walking:
            out.update(board.adjacent(s, at, side))
    return out


def _same_step(before: SfState, after: SfState, seat: int) -> bool:
    """Whether `after` is still `seat`'s own movement step of `before`, with nothing pending."""
    return (
        not after.over
        and before.top() is None
        and after.top() is None
        and before.phase in turn.MOVE_PHASES
        and after.phase == before.phase
        and before.active == after.active == seat
        and after.round == before.round
    )


def follow_ups(before: SfState, after: SfState, seat: int) -> list[str]:
    """The moves worth a second look after an option of `seat`'s own movement step: when the
    step goes on, the moves the option made possible (offered after it and not before: a
    piece boarding the fleet that just arrived, an airplane landing where supply now reaches),
    at most `FOLLOW_UPS`, in the order offered; none elsewhere."""
    if not _same_step(before, after, seat):
        return []
    offered = {o for o, _ in turn.options(before)}
    new = [o for o, _ in turn.options(after) if o.startswith("m") and o not in offered]
    return new[:FOLLOW_UPS]


def threatened_stars(s: SfState, side: int) -> int:
    """Victory Stars the side does not control (the other side's, or a neutral country's)
    next to one of its infantry or tanks (on land, or aboard a fleet in the water space next
    to it): stars it can walk or sail into, or attack, on its next turn (a neutral country's
    once war is declared on it). USA pieces count before the USA at War round too, though they
    cannot move until it."""
    t = tables()
    sides, _, kinds = pieces()
    reachers = {
        at
        for p, at in enumerate(s.loc)
        if at != OFF and sides[p] == side and kinds[p] in (INF, TANK)
    }
    if not reachers:
        return 0
    return sum(
        1
        for sp, star in enumerate(t.star)
        if star
        and s.control[sp] != side
        and any(nb in reachers for nb in board.adjacent(s, sp, side))
    )


def static_value(s: SfState, seat: int, threat: float = 0.0) -> float:
    """The score of a settled position (see the module docstring); `threat` is the weight of
    a threatened star per scoring round left (`threatened_stars`; 0 for the heuristic bot)."""
    if s.over:
        return 1.0 if s.winner == seat else 0.0
    lead = [0.0, 0.0]
    for side in (0, 1):
        held = scoring.stars(s, side) - EXPOSED * exposed_stars(s, side)
        if threat:
            held += threat * threatened_stars(s, side)
        lead[side] += s.vp[side] + held * _stars_left(s)
        lead[side] += CARD * len(s.hands[side])
    sides, _, kinds = pieces()
    value = policy.PIECE_VALUE
    for p, at in enumerate(s.loc):
        if at != OFF:
            lead[sides[p]] += value[kinds[p]]
    for side in (0, 1):
        for p in unsupplied(s, side):
            lead[side] -= 0.75 * value[kinds[p]]
    for c, face in s.contingency.items():
        if face != GONE:
            lead[side_of_card(c)] += CONTINGENCY * (2 - face)
    x = lead[seat] - lead[1 - seat]
    return 0.5 + 0.5 * math.tanh(x / 10.0)


def side_of_card(card: int) -> int:
    """The side owning a Contingency card."""
    return 0 if card in tables().contingency_cards[0] else 1


def evaluate(state: SfState, seat: int) -> float:
    """A heuristic value in [0, 1] of the position for `seat` (1 = won)."""
    return static_value(settle(state, seat), seat)


def evaluate_with_threats(state: SfState, seat: int, threat: float = THREAT) -> float:
    """`evaluate` with each side's threatened stars counted at `threat` of a held one: the
    search bot's value (see the module docstring)."""
    return static_value(settle(state, seat), seat, threat)
