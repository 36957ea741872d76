"""A fast rule-based South Front policy: the option a seat picks in a decision, read from
the state without trying options out.

It is the rollout policy of search bots and finishes a pending card or combat when the
heuristic evaluation scores a position (see `heuristic.py`). In short: keep the opening
hand; play a playable card (else a Contingency card, Conscription, Production
Initiative), attack where a Victory Star or a weak defender is, continue an attack while
it can pay, defend with Stand Fast / Naval Combat / Anti-Air / Exchange when it holds one
and else give up its cheapest piece, advance into an emptied space, unload what must
unload, and never declare war or remove its own pieces by itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from warroom.games.qmg_sf import board
from warroom.games.qmg_sf.board import kind
from warroom.games.qmg_sf.content import tables
from warroom.games.qmg_sf.state import AIR, CARRIER, FLEET, INF, TANK, SfState

PIECE_VALUE = {INF: 1.0, TANK: 1.3, AIR: 1.2, FLEET: 1.1, CARRIER: 0.8}
DEFENCE = ("sf", "nc", "aa", "ex", "wn", "rt")


def _ints(option: str, prefix: str) -> list[int]:
    return [int(x) for x in option[len(prefix) :].split("-") if x]


def target_score(s: SfState, side: int, space: int) -> float:
    """How much a side wants a space: Victory Stars, then enemy-held land, fewer defenders."""
    t = tables()
    score = 3.0 * t.star[space]
    if not t.water[space] and s.control[space] == 1 - side:
        score += 1.0
    score -= 0.5 * sum(1 for at in s.loc if at == space)
    return score


def placement_score(s: SfState, side: int, space: int) -> float:
    """Where a new piece helps: on a Victory Star, next to enemy pieces or enemy stars."""
    t = tables()
    score = 2.0 * t.star[space]
    for nb in board.adjacent(s, space, side):
        if board.enemy_occupied(s, nb, side):
            score += 1.0
        if t.star[nb] and s.control[nb] == 1 - side:
            score += 1.5
    return score


def _best(options: Sequence[str], score: Callable[[str], float]) -> str:
    return max(options, key=score)


def _cheapest(s: SfState, removals: Sequence[str]) -> str:
    def value(option: str) -> float:
        if option == "rm-mcf":
            return 0.5
        return PIECE_VALUE.get(kind(_ints(option, "rm")[0]), 1.0)

    return min(removals, key=value)


def _action(s: SfState, seat: int, options: Sequence[str]) -> str:
    for prefix in ("play", "ct"):
        found = [o for o in options if o.startswith(prefix)]
        if found:
            return found[0]
    hand = len(s.hands[seat])
    if hand >= 3 and "da" in options:
        return "da"
    infantry = [o for o in options if o.startswith("cons") and o.endswith(f".{INF}")]
    if hand >= 2 and infantry:
        return infantry[0]
    if "pi" in options:
        return "pi"
    return "pass"


def _move2(s: SfState, options: Sequence[str]) -> str:
    for o in options:
        if o.startswith("m"):
            p = _ints(o.split("-")[0], "m")[0]
            if s.on[p] >= 0 and kind(s.on[p]) == FLEET:
                return o
    return "done"


def _placement(s: SfState, seat: int, options: Sequence[str]) -> str:
    spots = [o for o in options if o.startswith("d")]
    if not spots:
        return options[0]
    return _best(spots, lambda o: placement_score(s, seat, _ints(o, "d")[0]))


def _attack(s: SfState, seat: int, options: Sequence[str]) -> str:
    attacks = [o for o in options if o.startswith("a")]
    if not attacks:
        return "skip" if "skip" in options else options[0]
    return _best(attacks, lambda o: target_score(s, seat, _ints(o, "a")[-1]))


def _move(s: SfState, seat: int, options: Sequence[str], prefix: str = "m") -> str:
    moves = [o for o in options if o.startswith(prefix) and "-" in o]

    def gain(o: str) -> float:
        return target_score(s, seat, _ints(o, prefix)[1])

    good = [o for o in moves if gain(o) > 0]
    if good:
        return _best(good, gain)
    for fallback in ("skip", "stay"):
        if fallback in options:
            return fallback
    return options[0]


def _follow(s: SfState, seat: int, options: Sequence[str]) -> str:
    attacks = [o for o in options if o.startswith("a")]
    if attacks:
        return _best(attacks, lambda o: target_score(s, seat, _ints(o, "a")[-1]))
    into = [o for o in options if o.startswith("m")]
    into = [o for o in into if target_score(s, seat, _ints(o, "m")[0]) > 0]
    if into:
        return _best(into, lambda o: target_score(s, seat, _ints(o, "m")[0]))
    return "stay" if "stay" in options else options[0]


def _defend(s: SfState, options: Sequence[str]) -> str:
    for prefix in DEFENCE:
        found = [o for o in options if o.startswith(prefix)]
        if found:
            return found[0]
    removals = [o for o in options if o.startswith("rm")]
    return _cheapest(s, removals) if removals else options[0]


def _continue(s: SfState, seat: int, options: Sequence[str]) -> str:
    if "free" in options:
        return "free"
    c = s.combat
    if c is None:
        return "stop"
    for prefix in ("sa", "nc"):
        found = [o for o in options if o.startswith(prefix)]
        if found:
            return found[0]
    removals = [o for o in options if o.startswith("rm")]
    remaining = sum(1 for at in s.loc if at == c.tgt) + max(0, s.mcf[c.tgt])
    worth = tables().star[c.tgt] or remaining <= 1
    if removals and worth:
        return _cheapest(s, removals)
    return "stop"


def choose(s: SfState, seat: int, options: Sequence[str]) -> str:
    """The policy's option for `seat` among `options` (see the module docstring)."""
    top = s.top()
    k = top.kind if top is not None else s.phase
    if k in ("mulligan",):
        return "keep"
    if k == "move1":
        return "done"
    if k == "move2":
        return _move2(s, options)
    if k == "action":
        return _action(s, seat, options)
    if k in ("cons_place", "fx_place"):
        return _placement(s, seat, options)
    if k in ("da_attack", "fx_attack"):
        return _attack(s, seat, options)
    if k == "fm_move":
        return _move(s, seat, options)
    if k == "fx_move":
        return _move(s, seat, options, "m")
    if k == "fx_follow":
        return _follow(s, seat, options)
    return _small(s, seat, k, options)


def _threatened(s: SfState, side: int) -> Callable[[int], bool]:
    sides, _, kinds = board.pieces()
    on = s.on
    walkers = {
        at
        for p, at in enumerate(s.loc)
        if at >= 0 and sides[p] != side and kinds[p] in (INF, TANK) and on[p] < 0
    }
    return lambda space: any(nb in walkers for nb in board.adjacent(s, space, 1 - side))


def movement(s: SfState, seat: int, options: Sequence[str]) -> str:
    """A movement step for search playouts (not used by `choose`): the policy's own move
    (a fleet with cargo), else walk an infantry or tank into an enemy or neutral Victory Star
    no enemy holds (gain 3), else into an own empty star an enemy piece could walk into (2),
    less 2.5 for leaving such a threatened star empty; the best gain above 0, else done."""
    own = choose(s, seat, options)
    if own != "done":
        return own
    t = tables()
    threatened = _threatened(s, seat)
    best, gain = "done", 0.0
    for o in options:
        if not o.startswith("m"):
            continue
        ints = _ints(o, "m")
        if len(ints) != 2:
            continue
        p, space = ints
        if kind(p) not in (INF, TANK) or s.on[p] >= 0 or t.water[space] or not t.star[space]:
            continue
        if s.control[space] != seat:
            g = 0.0 if board.enemy_occupied(s, space, seat) else 3.0
        else:
            g = 2.0 if not board.occupied_by(s, space, seat) and threatened(space) else 0.0
        src = s.loc[p]
        alone = sum(1 for q, at in enumerate(s.loc) if at == src and s.on[q] < 0) == 1
        if g > 0 and t.star[src] and alone and threatened(src):
            g -= 2.5
        if g > gain:
            best, gain = o, g
    return best


def _small(s: SfState, seat: int, k: str, options: Sequence[str]) -> str:
    hand = len(s.hands[seat])
    discards = [o for o in options if o.startswith("d")]
    if k == "fx_unless":
        return discards[0] if discards and hand >= 3 else "allow"
    if k == "fx_pay":
        return discards[0] if discards else "vp"
    if k == "fx_more":
        return discards[0] if discards and hand >= 2 else "no"
    if k == "c_fr":
        return "with"
    if k in ("c_def", "c_defrm"):
        return _defend(s, options)
    if k in ("c_aa_atk", "c_aa_def"):
        return next((o for o in options if o != "pass"), "pass")
    if k == "c_cont":
        return _continue(s, seat, options)
    if k == "c_exch":
        return _cheapest(s, options)
    if k == "c_adv":
        return next((o for o in options if o != "pass"), "pass")
    return options[0]
