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

Search bots may score positions with `evaluate_with_draws` (which Blocs' searches do is the
search's choice, `warroom.bots.games.qmg_cw`): the same value, but each hand valued as its
Draw step will leave it (`hand_after_draw`: the cards held, plus a card of the draw deck's
mean worth for each card the hand lacks of 7, as far as the deck lasts), and a Build Army or
Build Navy card worth `SPENT_BUILD` while every piece it could build is on the board. So a
card spent (played, paid for Organic Supply, discarded in the Discard or Espionage step)
costs its worth less the card drawn in its place, not its whole worth: a Bloc with a deck to
draw from neither holds back a card that would do a little good, nor keeps a card it cannot
play (a hand of Build Army cards with every Army built skipped Action step after Action step).
The heuristic bot keeps `evaluate` (its measured figures in docs/benchmarks.md are of it).
"""

from __future__ import annotations

import math
from functools import cache

from warroom.games.qmg_cw import board, flow, policy
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.effects import card
from warroom.games.qmg_cw.scoring import phase_points
from warroom.games.qmg_cw.state import (
    AIR,
    ARMY,
    HAND_SIZE,
    LAST_ROUND,
    NATIONALIST,
    NAVY,
    CwState,
    SeatState,
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
SPENT_BUILD = 1.0
"""A Build Army or Build Navy card's worth while every piece it builds is on the board (a Sea
Battle's: it builds again only once a piece of its kind leaves the board)."""
BUILD_KINDS = {"build_army": ARMY, "build_navy": NAVY}
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


def phase_weight(s: CwState) -> float:
    """How much the points of a Scoring Phase now count: the next phase in full, each later
    one `LATER`."""
    return 1.0 + LATER * max(0, scorings_left(s) - 1)


def _board_terms(s: CwState, standing: list[float]) -> None:
    supply = board.supply_of(s)
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


@cache
def card_builds() -> tuple[tuple[int, int] | None, ...]:
    """By card id: the (nationality, kind) of the piece a Build Army or Build Navy card
    builds, else None."""
    out: list[tuple[int, int] | None] = []
    for c in tables().cards:
        kind = BUILD_KINDS.get(c.type)
        out.append(None if kind is None else (c.nat, kind))
    return tuple(out)


@cache
def card_worths() -> tuple[float, ...]:
    """`policy.card_worth` by card id."""
    return tuple(policy.card_worth(cid) for cid in range(len(tables().cards)))


def spent_builds(s: CwState) -> frozenset[tuple[int, int]]:
    """The (nationality, kind) of the Armies and Navies with every piece on the board."""
    pool = tables().piece_pool
    count: dict[tuple[int, int], int] = {}
    for p in s.pieces:
        key = (piece_nat(p), piece_kind(p))
        count[key] = count.get(key, 0) + 1
    return frozenset(k for k, n in count.items() if k[1] != AIR and n >= pool[k[0]][k[1]])


def cards_worth(cards: list[int], spent: frozenset[tuple[int, int]]) -> float:
    """The cards' total worth (`policy.card_worth`), a build card in `spent` `SPENT_BUILD`."""
    worths, builds = card_worths(), card_builds()
    total = sum(map(worths.__getitem__, cards))
    if spent:
        total -= sum(worths[c] - SPENT_BUILD for c in cards if builds[c] in spent)
    return total


def hand_after_draw(player: SeatState, spent: frozenset[tuple[int, int]]) -> float:
    """The worth of a player's hand as its Draw step leaves it: the cards held (and opening
    draws), plus a card of the draw deck's mean worth for each card the hand lacks of
    `HAND_SIZE`, as far as the deck lasts; a build card in `spent` is worth `SPENT_BUILD`."""
    held = cards_worth([*player.hand, *player.opening], spent)
    draws = 0 if player.opening else min(max(0, HAND_SIZE - len(player.hand)), len(player.deck))
    if not draws:
        return held
    return held + draws * cards_worth(player.deck, spent) / len(player.deck)


def _card_terms(s: CwState, standing: list[float], draws: bool = False) -> None:
    spent = spent_builds(s) if draws else frozenset()
    for player in s.seats:
        if draws:
            value = HAND * hand_after_draw(player, spent)
        else:
            value = HAND * sum(policy.card_worth(c) for c in (*player.hand, *player.opening))
        value += ESPIONAGE * len(player.espionage) + DECK * len(player.deck)
        for c in player.prepared:
            value += WMD if card(c).type == "wmd" else STATUS
        standing[player.bloc] += value


def standings(s: CwState, draws: bool = False) -> list[float]:
    """Every Bloc's standing (see the module docstring); `draws`: hands as their Draw step
    leaves them (`hand_after_draw`)."""
    points = phase_points(s)
    weight = phase_weight(s)
    standing = [float(s.vp[b]) + weight * points[b] for b in range(3)]
    _board_terms(s, standing)
    _card_terms(s, standing, draws)
    return standing


def static_value(s: CwState, seat: int, draws: bool = False) -> float:
    """The score of a settled position for the seat's Bloc (see the module docstring)."""
    bloc = s.seats[seat].bloc
    if s.over:
        return 1.0 if bloc in s.winners else 0.0
    standing = standings(s, draws)
    lead = standing[bloc] - max(standing[b] for b in range(3) if b != bloc)
    return 1.0 / (1.0 + math.exp(-lead / SCALE))


def evaluate(state: CwState, seat: int) -> float:
    """A heuristic value in [0, 1] of the position for `seat`'s Bloc (1 = won)."""
    return static_value(settle(state), seat)


def evaluate_with_draws(state: CwState, seat: int) -> float:
    """`evaluate` with every hand valued as its Draw step leaves it (the search bots' value;
    see the module docstring)."""
    return static_value(settle(state), seat, draws=True)
