"""A fast rule-based Cold War policy: the option a seat picks in a decision, read from the
state without trying options out.

It is the rollout policy of search bots and finishes a pending card when the heuristic
evaluation scores a position (`heuristic.py`). In short: keep the best cards (a card's worth
is `card_worth`), use prepared cards that cost no VPs, play a card in the Air and Action
steps (Build Army first, then battles with a target, Events, Status/WMD preparation, Build
Navy), prepare an Espionage card when the hand can spare one, build or recruit where a piece
scores and supplies (`place_score`), battle and eliminate the leader's best-placed Armies
(`victim_score`), save threatened Armies with protections and Air Defense, intercept, pay
Organic Supply for an Army on a Supply symbol, relocate an orphaned Air Force when it can
pay, and never remove its own pieces, Reallocate Resources or discard in the Discard step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.effects import card, wmd_cost
from warroom.games.qmg_cw.state import (
    AIR,
    ARMY,
    NAVY,
    CwState,
    nat_bloc,
    piece_bloc,
    piece_kind,
    piece_nat,
    piece_space,
)

TYPE_WORTH = {
    "build_army": 3.0,
    "land_battle": 2.5,
    "event": 2.5,
    "status": 2.5,
    "espionage": 2.0,
    "air_power": 1.5,
    "build_navy": 1.5,
    "sea_battle": 1.0,
    "wmd": 1.2,
}
ACTION_ORDER = ("build_army", "land_battle", "event", "status", "sea_battle", "build_navy", "wmd")
KIND_WORTH = {ARMY: 1.0, NAVY: 0.6, AIR: 0.5}


def card_worth(cid: int) -> float:
    """How much a card is worth keeping (by type; a WMD's printed cost lowers it)."""
    c = card(cid)
    worth = TYPE_WORTH.get(c.type, 1.0)
    if c.type == "wmd":
        worth -= 0.1 * c.wmd_cost
    return worth


def _ints(option: str) -> list[int]:
    return [int(x) for x in option.split(":")[1:] if x.lstrip("-").isdigit()]


def leader_enemy(s: CwState, bloc: int) -> int:
    """The enemy Bloc with the most VPs (ties: the lower index)."""
    others = [b for b in range(3) if b != bloc]
    return max(others, key=lambda b: (s.vp[b], -b))


def place_score(s: CwState, nat: int, kind: int, space: int) -> float:
    """Where a new piece helps: an Army on an uncontested Supply symbol scores 2 per phase,
    any Army 1; enemies next door are targets; Navies and Air Forces go where Armies are."""
    t = tables()
    occ = board.occupants(s)
    bloc = nat_bloc(nat)
    score = 0.0
    if kind == ARMY:
        score += 1.0
        others = occ[space] & ~(1 << bloc)
        if board.has_symbol(s, space, nat):
            score += 1.5 if not others else 0.3
        if others:
            score += 0.4
    else:
        own = sum(1 for p in s.pieces if piece_space(p) == space and piece_nat(p) == nat)
        score += 0.5 * own
        for n in board.neighbours(s, space, bloc):
            if any(piece_nat(p) == nat and piece_space(p) == n for p in s.pieces):
                score += 0.2
            if t.printed_supply[n] and not occ[n]:
                score += 0.3
    return score


def victim_score(s: CwState, bloc: int, piece: int) -> float:
    """How much removing an enemy piece helps: what it scores, its Bloc's standing."""
    target = piece_bloc(piece)
    score = KIND_WORTH[piece_kind(piece)]
    if piece_kind(piece) == ARMY and board.has_symbol(s, piece_space(piece), piece_nat(piece)):
        score += 1.0
    if target == leader_enemy(s, bloc):
        score += 0.5
    return score + 0.02 * s.vp[target]


def _best(options: Sequence[str], score: Callable[[str], float]) -> str:
    return max(options, key=score)


def _cheapest(options: Sequence[str]) -> str:
    return min(options, key=lambda o: card_worth(_ints(o)[0]))


def _free_use(s: CwState, seat: int, cid: int) -> bool:
    """Whether using a prepared card costs no VPs against the leading enemy."""
    c = card(cid)
    if c.type != "wmd":
        return True
    bloc = s.seats[seat].bloc
    return wmd_cost(s, c, bloc, leader_enemy(s, bloc)) == 0


def _use(s: CwState, seat: int, options: Sequence[str]) -> str | None:
    for o in options:
        if o.startswith("use:") and _free_use(s, seat, _ints(o)[0]):
            return o
    return None


def _step(s: CwState, seat: int, options: Sequence[str]) -> str:
    """Begin and Air steps: a free prepared card, an Air Power card, else end the step."""
    used = _use(s, seat, options)
    if used is not None:
        return used
    air = [o for o in options if o.startswith("air:")]
    if air:
        return air[0]
    return "done" if "done" in options else "pass"


def _action(s: CwState, seat: int, options: Sequence[str]) -> str:
    by_type: dict[str, list[str]] = {}
    for o in options:
        if o.startswith(("play:", "prep:")):
            by_type.setdefault(card(_ints(o)[0]).type, []).append(o)
    for kind in ACTION_ORDER:
        if kind in by_type:
            return by_type[kind][0]
    return _step(s, seat, options)


def _esp_step(s: CwState, seat: int, options: Sequence[str]) -> str:
    discards = [o for o in options if o.startswith("espdisc:")]
    if not discards or len(s.seats[seat].hand) < 3:
        return "pass"
    return _cheapest(discards)


def _place(s: CwState, frame_card: int, options: Sequence[str]) -> str:
    spots = [o for o in options if o.startswith("p:")]
    if not spots:
        return "skip" if "skip" in options else options[-1]
    nat = card(frame_card).nat
    return _best(spots, lambda o: place_score(s, nat, _ints(o)[0], _ints(o)[1]))


def _strike(s: CwState, bloc: int, options: Sequence[str], prefix: str = "x:") -> str:
    victims = [o for o in options if o.startswith(prefix)]
    if not victims:
        return "skip" if "skip" in options else options[-1]
    return _best(victims, lambda o: victim_score(s, bloc, _ints(o)[0]))


def _air_power(s: CwState, bloc: int, nat: int, options: Sequence[str]) -> str:
    strikes = [o for o in options if o.startswith("st:")]
    if strikes:
        best = _strike(s, bloc, strikes, "st:")
        if victim_score(s, bloc, _ints(best)[0]) >= 1.5:
            return best
    builds = [o for o in options if o.startswith("af:")]
    if builds:
        return _best(builds, lambda o: place_score(s, nat, AIR, _ints(o)[0]))
    return strikes[0] if strikes else "skip"


def _defend(s: CwState, frame_piece: int, options: Sequence[str]) -> str:
    for o in options:
        if o.startswith("use:"):
            return o
    valuable = piece_kind(frame_piece) == ARMY
    air = [o for o in options if o.startswith("ad:")]
    return air[0] if air and valuable else "pass"


def _supply(s: CwState, seat: int, options: Sequence[str]) -> str:
    hand = len(s.seats[seat].hand)
    for o in options:
        if not o.startswith("organic:") or hand < 3:
            continue
        p = _ints(o)[0]
        if piece_kind(p) == ARMY and board.has_symbol(s, piece_space(p), piece_nat(p)):
            return o
    return "done" if "done" in options else "cancel"


def _small(s: CwState, seat: int, k: str, options: Sequence[str]) -> str:
    """Decisions with a fixed preference: the first option, else a named one."""
    bloc = s.seats[seat].bloc
    if k == "pick_target":
        targets = [o for o in options if o.startswith("t:")]
        leader = f"t:{leader_enemy(s, bloc)}"
        return leader if leader in targets else targets[0]
    if k == "fx_own_wmd":
        return _best(options, lambda o: -card(_ints(o)[0]).wmd_cost)
    if k == "fx_own_elim":
        supply = board.supply_of(s)
        weak = [o for o in options if o.startswith("x:") and not supply.supplied(_ints(o)[0])]
        return weak[0] if weak else "done"
    if k == "own_army":
        return _best(options, lambda o: -place_score(s, piece_nat(_ints(o)[0]), ARMY, o_space(o)))
    if k == "orphan":
        moves = [o for o in options if o.startswith("reloc:")]
        return moves[0] if moves and len(s.seats[seat].hand) >= 2 else "elim"
    if k == "realloc_pick":
        return _best(options, lambda o: card_worth(_ints(o)[0]) if o != "none" else 0.0)
    if k in ("esp_pick", "open") and any(o.startswith("esp:") for o in options):
        return _best(options, lambda o: card_worth(_ints(o)[0]))
    if k == "open":
        return _cheapest(options)
    if k in ("react", "fx_play", "fx_prepare", "fx_wmd"):
        used = _use(s, seat, options) if k == "react" else None
        if k == "react":
            return used or "pass"
        return next((o for o in options if o not in ("skip", "done")), options[0])
    if k == "organic_pick":
        return _supply(s, seat, options)
    if k == "remove_pick":
        return "cancel"
    return options[0]


def o_space(option: str) -> int:
    """The space of the piece an `x:<piece>` option names."""
    return piece_space(_ints(option)[0])


def choose(s: CwState, seat: int, options: Sequence[str]) -> str:
    """The policy's option for `seat` among `options` (see the module docstring)."""
    top = s.top()
    if top is None:
        return options[0]
    k = top.kind
    bloc = s.seats[seat].bloc
    if k in ("begin", "air"):
        return _step(s, seat, options)
    if k == "action":
        return _action(s, seat, options)
    if k == "esp_step":
        return _esp_step(s, seat, options)
    if k == "discard_step":
        return "pass"
    if k == "supply":
        return _supply(s, seat, options)
    if k in ("pay",):
        return _cheapest(options)
    if k in ("fx_build", "fx_recruit"):
        return _place(s, top.card, options)
    if k in ("fx_battle", "fx_eliminate"):
        return _strike(s, bloc, options)
    if k == "fx_air_power":
        return _air_power(s, bloc, card(top.card).nat, options)
    if k == "defend":
        return _defend(s, top.piece, options)
    if k == "intercept":
        ic = [o for o in options if o.startswith("ic:")]
        return ic[0] if ic and piece_kind(top.piece) == ARMY else "pass"
    return _small(s, seat, k, options)
