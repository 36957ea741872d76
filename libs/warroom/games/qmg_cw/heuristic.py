"""The Cold War position value used by the heuristic bot and by search cut-offs.

`evaluate(state, seat)` first finishes whatever card, battle or reaction is pending by letting
every seat play the rule-based policy (`policy.py`, at most `HORIZON` decisions, stopping at
the next step of a turn), so that playing or using a card is judged by what it does, not by
the card leaving the hand. The settled position is then scored for the seat's Bloc as a
logistic of its lead over the best other Bloc, `1 / (1 + exp(-lead / SCALE))`: an estimate
of its chance to win, since only the Bloc with the most VPs wins (second place is worth
nothing). A Bloc's standing is

    VP + points * (1 + LATER * (scorings left - 1))
       - OUT_OF_SUPPLY * (points of its unsupplied Armies)
       + NAVY * supplied Navies + AIR_FORCE * supplied Air Forces
       + HAND * worth of its hands (and opening draws) + ESPIONAGE * face-down cards
       + STATUS * Status cards
       + WMD * prepared WMD cards + DECK * draw-deck cards,

where `points` is what it would score at a Scoring Phase now (`scoring.phase_points`: 1 per
Army, +1 per Army alone on a usable Supply symbol, Status bonuses); the next phase counts in
full and each later one `LATER`; an Army that cannot trace supply (and has no Organic Supply)
is at risk of removal; card worth is `policy.card_worth`. A finished game is 1 for the
winning Bloc's seats and 0 for the others (search bots score finished playouts the same way).
"""

from __future__ import annotations

import math

from warroom.games.qmg_cw import board, flow, policy
from warroom.games.qmg_cw.effects import card
from warroom.games.qmg_cw.scoring import phase_points
from warroom.games.qmg_cw.state import (
    AIR,
    ARMY,
    LAST_ROUND,
    NATIONALIST,
    NAVY,
    CwState,
    piece_bloc,
    piece_kind,
    piece_nat,
    piece_space,
)

HORIZON = 40
SCALE = 8.0
LATER = 0.5
OUT_OF_SUPPLY = 0.7
NAVY_WORTH, AIR_WORTH = 0.4, 0.5
HAND, ESPIONAGE, STATUS, WMD, DECK = 0.2, 1.0, 1.5, 0.6, 0.04
STEP_KINDS = frozenset({"begin", "air", "action", "supply", "discard_step", "esp_step", "open"})


def settle(state: CwState) -> CwState:
    """The position once the pending card or reaction is finished by the policy (a copy when
    anything was played; the state itself when a turn step is already on top)."""
    s = state
    for _ in range(HORIZON):
        frame = s.top()
        if s.over or frame is None or frame.kind in STEP_KINDS:
            break
        options = flow.options_of(s, frame)
        if not options:
            break
        seat = min(options)
        choice = policy.choose(s, seat, [o for o, _ in options[seat]])
        s = s.clone() if s is state else s
        flow.choose(s, seat, choice, flow.Ctx())
    return s


def scorings_left(s: CwState) -> int:
    """Scoring Phases still to come: after every even round and after round 19."""
    return sum(1 for r in range(s.round, LAST_ROUND + 1) if r % 2 == 0 or r == LAST_ROUND)


def _board_terms(s: CwState, standing: list[float]) -> None:
    supply = board.Supply(s)
    occ = supply.occ
    ok = {p: supply.supplied(p) for p in s.pieces if piece_kind(p) != AIR}
    hosts = {(piece_space(p), piece_nat(p)) for p, good in ok.items() if good}
    for p in s.pieces:
        bloc, kind, nat, space = piece_bloc(p), piece_kind(p), piece_nat(p), piece_space(p)
        if kind == AIR:
            if (space, nat) in hosts:
                standing[bloc] += AIR_WORTH
        elif ok[p]:
            if kind == NAVY:
                standing[bloc] += NAVY_WORTH
        elif kind == ARMY and nat != NATIONALIST:
            symbol = not board.contested(occ[space]) and board.has_symbol(s, space, nat)
            standing[bloc] -= OUT_OF_SUPPLY * (2.0 if symbol else 1.0)


def _card_terms(s: CwState, standing: list[float]) -> None:
    for player in s.seats:
        value = HAND * sum(policy.card_worth(c) for c in (*player.hand, *player.opening))
        value += ESPIONAGE * len(player.espionage) + DECK * len(player.deck)
        for c in player.prepared:
            value += WMD if card(c).type == "wmd" else STATUS
        standing[player.bloc] += value


def standings(s: CwState) -> list[float]:
    """Every Bloc's standing (see the module docstring)."""
    points = phase_points(s)
    weight = 1.0 + LATER * max(0, scorings_left(s) - 1)
    standing = [float(s.vp[b]) + weight * points[b] for b in range(3)]
    _board_terms(s, standing)
    _card_terms(s, standing)
    return standing


def static_value(s: CwState, seat: int) -> float:
    """The score of a settled position for the seat's Bloc (see the module docstring)."""
    bloc = s.seats[seat].bloc
    if s.over:
        return 1.0 if bloc in s.winners else 0.0
    standing = standings(s)
    lead = standing[bloc] - max(standing[b] for b in range(3) if b != bloc)
    return 1.0 / (1.0 + math.exp(-lead / SCALE))


def evaluate(state: CwState, seat: int) -> float:
    """A heuristic value in [0, 1] of the position for `seat`'s Bloc (1 = won)."""
    return static_value(settle(state), seat)
