"""The New Cold War procedure: setup, turns, rounds, resolution and turn end (sections 3-5).

The game advances in `advance` until a step needs a decision; that step is a `Frame`
on top of `state.stack`. `frame_options` lists the legal options of the top frame and
`apply_option` applies one to a working copy and advances again.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from types import MappingProxyType, ModuleType
from typing import Any, TypeVar

from warroom.engine import rng
from warroom.engine.content import read_yaml
from warroom.engine.model import Event, Option
from warroom.games.ncw import ops as O
from warroom.games.ncw import seam
from warroom.games.ncw.content import CONTENT_DIR, CardStats, power_index, tables
from warroom.games.ncw.state import (
    ALLY_OF,
    BLOC_OF,
    EVENT,
    NOBODY,
    OPF_CONTROL_ONLY,
    OPF_NO_COUP,
    OPF_ONE_PER_REGION,
    OPF_RESERVE_DONE,
    OPS,
    POWERS,
    VETO_1,
    VETO_2,
    VETO_3,
    VETO_EXTRA,
    VETO_UNSC,
    Frame,
    NcwState,
    Play,
    replaced,
)

_T = TypeVar("_T")

ALL_POWERS = 0b1111
VETO_NAMES: tuple[tuple[str, int], ...] = (
    ("1", VETO_1),
    ("2", VETO_2),
    ("3", VETO_3),
    ("extra", VETO_EXTRA),
    ("unsc", VETO_UNSC),
)
MB_POS_ONLY = 8


_NO_FIELDS: Mapping[str, str] = MappingProxyType({})


@dataclass(slots=True)
class Ctx:
    """What one apply produced besides the state: log events and irreversibility."""

    events: list[Event] = field(default_factory=list)
    irreversible: bool = False

    def log(self, text: str, kind: str = "log", visible_to: frozenset[int] | None = None) -> None:
        """Append a log event (the same text, kind and audience share one immutable Event)."""
        key = (text, kind, visible_to)
        event = _EVENTS.get(key)
        if event is None:
            event = Event(text, kind, visible_to, _NO_FIELDS)
            if len(_EVENTS) < 100_000:
                _EVENTS[key] = event
        self.events.append(event)


_EVENTS: dict[tuple[str, str, frozenset[int] | None], Event] = {}
"""Every distinct log event built so far (a game repeats most of its texts)."""


# ---------------------------------------------------------------- plug-ins


@cache
def _module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@cache
def effects() -> ModuleType | None:
    """The cards engineer's effect interpreter, once it exists."""
    mod = _module("warroom.games.ncw.effects")
    return mod if mod is not None and hasattr(mod, "resolve_event") else None


@cache
def objectives_module() -> ModuleType | None:
    """The cards engineer's objective checker, once it exists."""
    mod = _module("warroom.games.ncw.objectives")
    return mod if mod is not None and hasattr(mod, "fulfilled") else None


@cache
def variant_config(variant: str) -> dict[str, Any]:
    """The raw record of a variant in content/variants.yaml (a 4p default when absent)."""
    default: dict[str, Any] = {"id": "4p", "description": "Four players, the base game", "bots": []}
    path = CONTENT_DIR / "variants.yaml"
    if not path.exists():
        return default if variant == "4p" else {}
    data = read_yaml(path)
    records = data.get("variants", data.get("records", [])) if isinstance(data, dict) else data
    for rec in records or []:
        if isinstance(rec, dict) and rec.get("id") == variant:
            return rec
    return default if variant == "4p" else {}


@cache
def variant_ids() -> list[str]:
    """Every variant id in content/variants.yaml (4p first)."""
    path = CONTENT_DIR / "variants.yaml"
    if not path.exists():
        return ["4p"]
    data = read_yaml(path)
    records = data.get("variants", data.get("records", [])) if isinstance(data, dict) else data
    ids = [str(r["id"]) for r in records or [] if isinstance(r, dict) and "id" in r]
    return ids or ["4p"]


def card(n: int) -> CardStats:
    """The core facts of card n."""
    return tables().cards[n]


def card_owner(n: int, player: int) -> int:
    """Who executes card n's event: its flag, or the player for a neutral card."""
    power = card(n).power
    return player if power < 0 else power


@cache
def war_targets(n: int) -> tuple[int, ...]:
    """The countries card n's war is about (`war`, then `war_also`); empty for other cards."""
    c = card(n)
    if c.war < 0:
        return ()
    index = tables().country_index
    try:
        from warroom.games.ncw.cards import cards_by_number

        spec = cards_by_number().get(n)
    except ImportError:  # pragma: no cover - the placeholder deck has no card specs
        spec = None
    if spec is None or not spec.war_targets:
        return (c.war,)
    return tuple(index[name] for name in spec.war_targets)


def war_held(s: NcwState, n: int, owner: int) -> bool:
    """Whether `owner` already controls every country card n's war is about (2.2.1: no war).

    A war with several targets (41) still takes place while any of them is not the owner's
    (tutorial 7.2: "if these two countries had previously been under US control").
    """
    targets = war_targets(n)
    return bool(targets) and all(s.control[c] == owner for c in targets)


def event_playable(s: NcwState, n: int, p: int) -> bool:
    """Whether p may choose to play card n for its event (war targets, card conditions)."""
    c = card(n)
    if c.war >= 0 and war_held(s, n, card_owner(n, p)):
        return False
    fx = effects()
    if fx is not None and hasattr(fx, "event_playable"):
        return bool(fx.event_playable(s, n, p))
    return True


def consume_fake_news(s: NcwState, kind: str) -> int | None:
    """The power whose 80-Fake News applies to this "prestige" check or "scoring" (cleared)."""
    fx = effects()
    if fx is None or not hasattr(fx, "consume_fake_news") or not s.flags:
        return None
    by = fx.consume_fake_news(s, kind)
    return None if by is None else int(by)


def run_event(s: NcwState, n: int, player: int, ctx: Ctx) -> None:
    """Execute card n's event (the effect interpreter may push sub-decisions)."""
    owner = card_owner(n, player)
    ctx.log(f"{POWERS[player]} resolves the event of {card(n).name} for {POWERS[owner]}", "event")
    fx = effects()
    if fx is not None:
        fx.resolve_event(s, n, owner, player)


# ---------------------------------------------------------------- setup


@dataclass(frozen=True)
class _Start:
    """The seed-independent part of a new game of one variant (built once per process)."""

    bots: int
    vetoes: tuple[int, ...]
    access: tuple[int, ...]
    withdrawn: tuple[int, ...]
    pools: tuple[tuple[int, ...], ...]


@cache
def _start(variant: str) -> _Start:
    t = tables()
    setup = t.setup
    config = variant_config(variant)
    bots = 0
    for name in config.get("bots", []) or []:
        bots |= 1 << power_index(str(name))
    access = []
    for p in range(4):
        mask = 0
        locks = setup.access_locks.get(POWERS[p], {})
        perm = setup.permanent_locks.get(POWERS[p], [])
        for r, region in enumerate(t.regions):
            if region.id not in locks and region.id not in perm:
                mask |= 1 << r
        access.append(mask)
    withdrawn = {int(n) for n in config.get("withdrawn_objectives", []) or []}
    return _Start(
        bots=bots,
        vetoes=tuple(
            VETO_1 | VETO_2 | VETO_3 | (VETO_EXTRA if POWERS[p] in setup.extra_veto_powers else 0)
            for p in range(4)
        ),
        access=tuple(access),
        withdrawn=tuple(sorted(withdrawn)),
        pools=tuple(
            tuple(n for n in t.power_objectives[p] if n not in withdrawn) for p in range(4)
        ),
    )


def new_state(seed: int, variant: str) -> NcwState:
    """A new game before any decision (objectives dealt, awaiting the keep choice)."""
    t = tables()
    setup = t.setup
    start = _start(variant)
    bots = start.bots
    n_c, n_r = len(t.countries), len(t.regions)
    s = NcwState(variant=variant, bots=bots, rng=rng.seed_state(seed))
    s.control = [NOBODY] * n_c
    s.token = [0] * n_c
    s.country_vp_mod = [0] * n_c
    s.region_vp_mod = [0] * (n_r * 4)
    s.region_vp_mod_perm = [0] * (n_r * 4)
    s.subregion_claimed = [NOBODY] * len(t.subregions)
    s.vp = [setup.starting_vp] * 4
    s.prestige = list(t.starting_prestige)
    s.media = setup.starting_media
    s.media_box = [0] * 4
    s.op_reserve = [0] * 4
    s.coups_left = [setup.coups_per_turn] * 4
    s.vetoes = list(start.vetoes)
    s.vetoed_this_turn = [False] * 4
    s.vetoes_spent = [0] * 4
    s.access = list(start.access)
    s.hands = [[] for _ in range(4)]
    s.plays = [None] * 4
    s.exchange = [-1] * 4
    deck = list(t.decade_cards[0])
    s.rng = rng.shuffle(s.rng, deck)
    s.deck = deck
    for n in start.withdrawn:
        s.flags[f"withdrawn:{n}"] = 1
    s.objectives = [[] for _ in range(4)]
    s.objective_offer = [[] for _ in range(4)]
    s.objective_decks = []
    s.declared = [[] for _ in range(4)]
    for p in range(4):
        pool = list(start.pools[p])
        s.rng = rng.shuffle(s.rng, pool)
        if bots >> p & 1:
            s.objective_decks.append(pool)
            continue
        s.objective_offer[p] = sorted(pool[-setup.objectives_dealt :])
        s.objective_decks.append(pool[: -setup.objectives_dealt])
    s.phase = "objectives"
    return s


# ---------------------------------------------------------------- cards


def draw(s: NcwState) -> int:
    """Draw the top card (reshuffling the discard pile into an empty deck); -1 if none left."""
    if not s.deck and s.discard:
        s.deck = s.discard.copy()
        s.discard = []
        s.rng = rng.shuffle(s.rng, s.deck)
    return s.deck.pop() if s.deck else -1


def dispose(s: NcwState, n: int) -> None:
    """Put a played card away: unique or 3rd-decade cards leave the game, others are discarded."""
    if card(n).unique or s.decade >= 3:
        s.removed = [*s.removed, n]
    else:
        s.discard = [*s.discard, n]


def rebuild_deck(s: NcwState) -> None:
    """3.2: add the next decade's cards, the undealt deck, the discard pile and the older leftovers."""
    t = tables()
    pool = s.deck + s.discard + s.leftover[: s.leftover_split] + list(t.decade_cards[s.decade - 1])
    s.rng = rng.shuffle(s.rng, pool)
    s.deck = pool
    s.discard = []
    s.leftover = s.leftover[s.leftover_split :]
    s.leftover_split = 0
    s.op_reserve = [0 if r == 1 else r for r in s.op_reserve]
    if s.decade > t.setup.extra_veto_last_decade:
        s.vetoes = [v & ~VETO_EXTRA for v in s.vetoes]


def is_crisis(n: int) -> bool:
    """Whether card n is a crisis card."""
    return card(n).crisis


# ---------------------------------------------------------------- advancing


def advance(s: NcwState, ctx: Ctx) -> None:
    """Run the procedure until a decision is pending or the game is over."""
    while not s.stack and not s.over:
        handler = _PHASES[s.phase]
        handler(s, ctx)


DEALT = 1
"""`step` of the deploy and turn-start phases once turn 1's cards are dealt (core ruling 21)."""


def _phase_objectives(s: NcwState, ctx: Ctx) -> None:
    if s.step == 0:
        mask = sum(1 << p for p in range(4) if s.objective_offer[p])
        s.step = 1
        if mask:
            s.push(Frame("keep", mask=mask))
        return
    deal_cards(s, ctx)
    ctx.log(f"Turn {s.turn} begins")
    s.phase, s.step, s.idx = "deploy", DEALT, 0


def _phase_deploy(s: NcwState, ctx: Ctx) -> None:
    """3.5: US, EU, China, Russia deploy, holding turn 1's dealt cards (7.1, core ruling 21).

    The deployment keeps `step` (DEALT after `_phase_objectives`' deal) so that turn 1's
    start does not deal again; a position stated at step 0 is dealt after it, as before.
    """
    order = tables().setup.deployment_order
    if s.idx >= len(order):
        s.phase, s.idx = "turn_start", 0
        return
    p = power_index(order[s.idx])
    if seam.is_bot(s, p):
        s.idx += 1
        return
    custom = seam.hooks.deploy_options(s, p)
    options = custom if custom is not None else tables().setup.deployments[POWERS[p]]
    if len(options) == 1:
        deploy(s, p, next(iter(options)), ctx)
        s.idx += 1
        return
    s.push(Frame("deploy", seat=p))


def deploy(s: NcwState, p: int, option: str, ctx: Ctx) -> None:
    """Place p's initial control markers for deployment option A or B (3.5)."""
    index = tables().country_index
    custom = seam.hooks.deploy_options(s, p)
    if custom:
        for c in custom[option]:
            s.control[c] = p
        ctx.log(f"{POWERS[p]} deploys option {option}")
        return
    for name in tables().setup.deployments[POWERS[p]][option]:
        s.control[index[name]] = p
    ctx.log(f"{POWERS[p]} deploys option {option}")


def deal_cards(s: NcwState, ctx: Ctx) -> None:
    """4.1 step 1, Deal Cards (after 3.2's deck rebuild and the turn-5 access): deal each hand.

    Turn 1 deals here before the initial deployment (7.1: "After the cards are dealt, it's
    time for the initial deployment"; core ruling 21); the deal reveals cards, so no undo
    crosses it.
    """
    setup = tables().setup
    if s.turn in setup.deck_rebuild_turns:
        rebuild_deck(s)
        ctx.log(f"Decade {s.decade}: the deck is rebuilt")
    if s.turn == setup.automatic_access.turn:
        for name, regions in setup.automatic_access.unlock.items():
            for rid in regions:
                O.grant_access(s, power_index(name), tables().region_index[rid])
    for p in range(4):
        hand = s.hands[p].copy()
        for _ in range(seam.hooks.hand_size(s, p)):
            n = draw(s)
            if n >= 0:
                hand.append(n)
        hand.sort()
        s.hands[p] = hand
    ctx.irreversible = True


def _phase_turn_start(s: NcwState, ctx: Ctx) -> None:
    """A turn's start (4.1): deal (unless turn 1 dealt before deploying), then the Initial Phase."""
    setup = tables().setup
    dealt = s.step == DEALT
    if not dealt:
        deal_cards(s, ctx)
    if s.turn == setup.objective_draw_turn:
        for p in range(4):
            if s.objective_decks[p] and not s.bots >> p & 1:
                deck = s.objective_decks[p]
                s.objective_decks[p] = deck[:-1]
                s.objectives[p] = sorted([*s.objectives[p], deck[-1]])
    s.coups_left = [setup.coups_per_turn] * 4
    for line in seam.hooks.on_turn_start(s):
        ctx.log(line)
    if not dealt:
        ctx.log(f"Turn {s.turn} begins")
    s.phase, s.step, s.round = "ally_exchange", 0, 0


def _exchangeable(s: NcwState, p: int) -> list[int]:
    return [n for n in s.hands[p] if not is_crisis(n)]


def _push_gift(s: NcwState, stage: str) -> bool:
    key = f"gift_{stage}"
    if s.flags.get(key, 0) == s.turn or not seam.hooks.gift_due(s, stage):
        return False
    s.flags = {**s.flags, key: s.turn}
    mask = sum(1 << p for p in seam.hooks.gift_givers(s) if seam.hooks.gift_options(s, p))
    if mask:
        s.push(Frame("gift", mask=mask))
    return bool(mask)


def _phase_ally_exchange(s: NcwState, ctx: Ctx) -> None:
    if s.step == 0 and _push_gift(s, "before_exchange"):
        return
    config = variant_config(s.variant)
    mode = config.get("ally_exchange", "normal")
    if s.step == 0 and s.turn in tables().setup.ally_exchange_turns and mode != "none":
        mask = 0
        for p in range(4):
            q = ALLY_OF[p]
            if s.bots >> p & 1 or s.bots >> q & 1:
                continue
            if _exchangeable(s, p) and _exchangeable(s, q):
                mask |= 1 << p
        s.step = 1
        if mask:
            s.exchange = [-1] * 4
            s.push(Frame("exchange", mask=mask))
            return
    if s.step == 1:
        for p in range(4):
            q = ALLY_OF[p]
            if p < q and s.exchange[p] >= 0 and s.exchange[q] >= 0:
                a, b = s.exchange[p], s.exchange[q]
                s.hands[p] = sorted([*(n for n in s.hands[p] if n != a), b])
                s.hands[q] = sorted([*(n for n in s.hands[q] if n != b), a])
                ctx.log(f"{POWERS[p]} and {POWERS[q]} exchange a card")
        s.exchange = [-1] * 4
    s.phase, s.step = "leftover_exchange", 0


def leftover_order(s: NcwState) -> list[int]:
    """Powers eligible for the leftover exchange, in order (fewest VPs, lower prestige, lower media)."""
    top = max(s.vp)
    eligible = [p for p in range(4) if s.vp[p] < top and not s.bots >> p & 1]
    return sorted(eligible, key=lambda p: O.behind_key(s, p))


def _phase_leftover_exchange(s: NcwState, ctx: Ctx) -> None:
    if (
        s.step == 0
        and s.turn in tables().setup.leftover_exchange_turns
        and seam.hooks.leftover_exchange_allowed(s)
        and s.leftover
    ):
        s.step = 1
        order = leftover_order(s)
        if order:
            s.push(Frame("leftover", seat=order[0], items=tuple(order[1:])))
            return
    s.phase, s.step, s.round = "place", 0, 0


def _phase_place(s: NcwState, ctx: Ctx) -> None:
    if s.round >= tables().setup.rounds_per_turn:
        s.phase, s.step = "turn_end", 0
        return
    if s.step == 0 and s.round == 0 and _push_gift(s, "after_leftover"):
        return
    if s.step == 0:
        s.plays = [None] * 4
        s.order = []
        s.revealed = False
        mask = sum(1 << p for p in range(4) if s.hands[p] and not s.bots >> p & 1)
        s.step = 1
        if mask:
            s.push(Frame("place", mask=mask))
            return
    for p in range(4):
        if seam.is_bot(s, p) and s.plays[p] is None:
            s.plays[p] = seam.hooks.bot_place(s, p)
    s.revealed = True
    ctx.irreversible = True
    for p in range(4):
        play = s.plays[p]
        if play is not None:
            mode = "event" if play.mode == EVENT else "OPs"
            extra = " with an OP reserve" if play.reserve else ""
            ctx.log(f"{POWERS[p]} reveals {card(play.card).name} for its {mode}{extra}", "reveal")
    s.phase, s.step, s.idx = "resolve", 0, NOBODY


def order_key(s: NcwState, play: Play) -> tuple[int, int, tuple[int, int, int, int]]:
    """Resolution order (4.3.1): crisis events, events by value, then OP cards by value; 4.2 ties.

    Crisis cards resolve among themselves by the tie breaker alone ("they are resolved according
    to the tie breaker rule"), an OP reserve on one notwithstanding.
    """
    c = card(play.card)
    if play.mode == EVENT and c.crisis:
        return 0, 0, O.precedence_key(s, play.power)
    group = 1 if play.mode == EVENT else 2
    return group, -play.order_value, O.precedence_key(s, play.power)


def next_play(s: NcwState) -> int:
    """The power whose card resolves next, or -1 when all have resolved."""
    best = NOBODY
    best_key: tuple[int, int, tuple[int, int, int, int]] | None = None
    for p in range(4):
        play = s.plays[p]
        if play is None or p in s.order:
            continue
        key = order_key(s, play)
        if best_key is None or key < best_key:
            best, best_key = p, key
    return best


def forced_event(s: NcwState, play: Play) -> bool:
    """Whether a card played for OPs also triggers its event (rival or negative cards; wars)."""
    c = card(play.card)
    owner = card_owner(play.card, play.power)
    rival = owner != play.power
    if not (rival or c.negative):
        return False
    if c.war >= 0 and war_held(s, play.card, owner):
        return False
    fx = effects()
    return (
        fx is None
        or not hasattr(fx, "event_playable")
        or bool(fx.event_playable(s, play.card, owner))
    )


def ops_value(s: NcwState, play: Play) -> int:
    """OPs a card played for OPs gives (2.2.1): higher or lower value by class, +1 reserve, max 4."""
    c = card(play.card)
    owner = card_owner(play.card, play.power)
    if c.crisis:
        value = 0
    elif owner == play.power:
        value = c.ops
    elif c.negative:
        value = c.ops_low
    elif c.war >= 0:
        value = c.ops if play.event_on else c.ops_low
    else:
        value = c.ops
    if play.reserve:
        value = min(4, value + 1)
    return value


def veto_candidates(s: NcwState, play: Play) -> list[int]:
    """Powers that may veto this card's event now, in tie-breaker order."""
    c = card(play.card)
    if c.crisis or c.ops > 3:
        return []
    skip = play.power if play.mode == EVENT else NOBODY
    able = [q for q in range(4) if q != skip and _veto_markers(s, q, play.card)]
    return O.precedence(s, able) if len(able) > 1 else able


_MARKERS_OF_MASK: tuple[tuple[str, ...], ...] = tuple(
    tuple(name for name, bit in VETO_NAMES if mask & bit) for mask in range(32)
)
"""The marker names of every veto bitmask, in `VETO_NAMES` order."""


def _usable_bits(value: int) -> int:
    """The veto marker bits that may veto a card of `value` OPs (4.3.3)."""
    return (
        VETO_EXTRA
        | VETO_UNSC
        | (VETO_1 if value <= 1 else 0)
        | (VETO_2 if value <= 2 else 0)
        | (VETO_3 if value <= 3 else 0)
    )


def _ally_keys(value: int) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Per power q, the (flag, marker) of each ally veto marker that covers `value` OPs."""
    return tuple(
        tuple((f"ally_veto_{cover}:{q}", f"ally{cover}") for cover in (1, 2, 3) if cover >= value)
        for q in range(4)
    )


_VALUES = range(5)
_USABLE: tuple[int, ...] = tuple(map(_usable_bits, _VALUES))
_ALLY_KEYS = tuple(map(_ally_keys, _VALUES))
"""`_usable_bits` and `_ally_keys` of the OP values 0-4, precomputed."""


def veto_markers(s: NcwState, q: int, n: int) -> list[str]:
    """The veto markers q may use against card n."""
    return list(_veto_markers(s, q, n))


def _veto_markers(s: NcwState, q: int, n: int) -> tuple[str, ...]:
    value = card(n).ops
    if s.vetoed_this_turn[q]:
        return ("unsc",) if s.vetoes[q] & VETO_UNSC else ()
    known = 0 <= value < len(_USABLE)
    out = _MARKERS_OF_MASK[s.vetoes[q] & (_USABLE[value] if known else _usable_bits(value))]
    flags = s.flags
    if flags:
        for key, marker in (_ALLY_KEYS[value] if known else _ally_keys(value))[q]:
            if flags.get(key, 0) > 0:
                out = (*out, marker)
    return out


def veto_label(n: int, marker: str) -> str:
    """What vetoing card n with a marker does and costs (4.3.3)."""
    if marker == "unsc":
        which = "the UNSC Presidency veto"
    elif marker == "extra":
        which = "your extra veto marker"
    elif marker.startswith("ally"):
        which = f"your ally's {marker[4:]}-OP veto marker"
    else:
        which = f"your {marker}-OP veto marker"
    cost = veto_cost(n, marker)
    price = "no VP" if cost == 0 else f"{cost} VP"
    return f"Veto {card(n).name} with {which} (costs {price})"


def objective_label(n: int) -> str:
    """An objective as a label names it: number, conditions and VPs (2.2.2)."""
    objective = tables().objectives[n]
    return f"objective {n} ({objective.text}, {objective.vp} VP)"


def deployment_label(s: NcwState, p: int, letter: str) -> str:
    """What one initial deployment option places (3.5 or the variant's table)."""
    t = tables()
    custom = seam.hooks.deploy_options(s, p)
    if custom:
        names = [t.countries[c].name for c in custom[letter]]
    else:
        names = [
            t.countries[t.country_index[c]].name for c in t.setup.deployments[POWERS[p]][letter]
        ]
    return f"Deployment {letter}: control {', '.join(names)}"


def veto_cost(n: int, marker: str) -> int:
    """Political cost in VPs of vetoing card n with a marker (4.3.3)."""
    if marker == "unsc":
        return 0
    if marker.startswith("ally"):
        return int(marker[4:])
    if marker == "extra":
        c = card(n)
        reduction = 1 if c.power in (power_index("China"), power_index("EU")) else 0
        return max(0, c.ops - reduction)
    return int(marker)


def _phase_resolve(s: NcwState, ctx: Ctx) -> None:
    """Resolve the placed cards in order, one step per call: reveal (and the veto window),
    OPs or event, the event after OPs or the OP reserve after the event, then discard."""
    if s.idx < 0 and not _next_resolution(s):
        return
    p = s.idx
    play = s.plays[p]
    assert play is not None
    if s.step == 0:
        _resolve_reveal(s, p, play, ctx)
    elif s.step == 1:
        _resolve_after_vetoes(s, p, play, ctx)
    elif s.step == 2:
        s.step = 4
        if play.event_on:
            run_event(s, play.card, p, ctx)
    elif s.step == 3:
        s.step = 4
        # 4.3.3: a card played for its event and vetoed leaves its player "unable to play
        # during his round", the OP reserve on it included
        if play.reserve and not play.vetoed:
            O.push_ops(s, p, 1, card=play.card, flags=OPF_RESERVE_DONE)
    else:
        dispose(s, play.card)
        s.plays[p] = None
        s.idx, s.step = NOBODY, 0


def _next_resolution(s: NcwState) -> bool:
    """Turn to the next placed card in order; False (and on to the round's end) when none is
    left."""
    p = next_play(s)
    if p < 0:
        s.phase, s.step = "round_end", 0
        return False
    s.idx, s.step = p, 0
    s.order = [*s.order, p]
    return True


def _resolve_reveal(s: NcwState, p: int, play: Play, ctx: Ctx) -> None:
    """Reveal the card: an event no longer playable is played for its OPs; an event on
    opens the veto window."""
    n = play.card
    mode = play.mode
    if mode == EVENT and not card(n).crisis and not event_playable(s, n, p):
        mode = OPS
        ctx.log(f"{POWERS[p]} can no longer play the event of {card(n).name}; it plays the OPs")
    on = mode == EVENT or forced_event(s, play)
    play = play._replace(mode=mode, event_on=on)
    s.plays[p] = play
    s.step = 1
    if on:
        candidates = veto_candidates(s, play)
        if candidates:
            s.push(Frame("veto", seat=candidates[0], card=play.card, items=tuple(candidates[1:])))


def _resolve_after_vetoes(s: NcwState, p: int, play: Play, ctx: Ctx) -> None:
    """A vetoed event is off; then the OPs are spent (the event after them), or the event
    runs (the OP reserve after it)."""
    if play.vetoed and play.event_on:
        play = play._replace(event_on=False)
    if play.mode == OPS:
        value = ops_value(s, play)
        play = play._replace(ops=value)
        s.plays[p] = play
        s.step = 2
        flags = OPF_RESERVE_DONE if play.reserve else 0
        O.push_ops(s, p, value, card=play.card, flags=flags)
        return
    s.plays[p] = play
    s.step = 3
    if play.event_on:
        run_event(s, play.card, p, ctx)


def _phase_round_end(s: NcwState, ctx: Ctx) -> None:
    s.round += 1
    s.phase, s.step = "place", 0


def _phase_turn_end(s: NcwState, ctx: Ctx) -> None:
    setup = tables().setup
    step = s.step
    s.step += 1
    if step == 0:
        if s.turn in (3, 6):
            s.leftover_split = len(s.leftover)
        s.leftover, s.discard = s.leftover.copy(), s.discard.copy()
        for p in range(4):
            for n in s.hands[p]:
                if s.turn < setup.turns and not seam.hooks.leftover_goes_to_discard(s, p):
                    s.leftover.append(n)
                else:
                    s.discard.append(n)
            s.hands[p] = []
        s.plays = [None] * 4
        s.order = []
        s.revealed = False
    elif step == 1 and s.turn in setup.prestige_check_turns:
        prestige_check(s, ctx)
    elif step == 2 and s.turn in setup.global_scoring_turns:
        media_benefits(s, ctx)
    elif step == 3 and s.turn in setup.global_scoring_turns:
        O.score_regions(s)
        ctx.log("Global scoring")
    elif step == 4:
        O.claim_subregions(s)
    elif step == 5:
        mask = sum(1 << p for p in range(4) if s.objectives[p] and not s.bots >> p & 1)
        if mask:
            s.push(Frame("declare", mask=mask))
    elif step == 6:
        end_of_turn(s, ctx)


def prestige_check(s: NcwState, ctx: Ctx) -> None:
    """4.4.1: media virtual shift, the position table in order of play, then the leader bonus."""
    t = tables()
    lead = 0 if s.media > 0 else 1 if s.media < 0 else -1
    m = abs(s.media)
    shift = 0 if m == 0 else 1 if m <= 3 else 2
    fake = consume_fake_news(s, "prestige")
    frames: list[Frame] = []
    for p in O.precedence(s):
        virtual = s.prestige[p] + (shift if BLOC_OF[p] == lead else 0)
        if fake is not None and p != fake:
            virtual -= 1
        row = t.prestige_rows[max(-5, min(5, virtual))]
        s.vp[p] += row.vp
        if row.media_marker > 0 and not O.tracks_frozen(s, p):
            O.gain_media_reserve(s, p)
        elif row.media_marker < 0:
            O.negative_media_marker(s, p)
        if row.op_reserve > 0:
            O.gain_op_reserve(s, p)
        elif row.op_reserve < 0:
            O.negative_op_reserve(s, p)
        if row.ops > 0:
            frames.append(
                Frame(
                    "ops",
                    seat=p,
                    ops=row.ops,
                    flags=OPF_CONTROL_ONLY | OPF_ONE_PER_REGION | OPF_NO_COUP,
                )
            )
        elif row.ops < 0 and any(c == p for c in s.control):
            frames.append(Frame("debt", seat=p, ops=-row.ops))
    top = max(s.prestige)
    leaders = [p for p in range(4) if s.prestige[p] == top]
    if len(leaders) == 1:
        s.vp[leaders[0]] += t.setup.prestige_leader_bonus
    for frame in reversed(frames):
        s.push(frame)
    ctx.log("Prestige check")


def media_benefits(s: NcwState, ctx: Ctx) -> None:
    """4.4.2 steps 1-2: the bloc ahead on the media track uses its benefit, in tie-breaker order.

    A waiting 80-Fake News counts the media marker 2 positions toward its player's bloc.
    """
    media = s.media
    fake = consume_fake_news(s, "scoring")
    if fake is not None:
        media = max(-5, min(5, media + (2 if BLOC_OF[fake] == 0 else -2)))
    if media == 0:
        return
    lead = 0 if media > 0 else 1
    m = abs(media)
    level = 1 if m <= 2 else 2 if m <= 4 else 3
    powers = O.precedence(s, [p for p in range(4) if BLOC_OF[p] == lead])
    for p in reversed(powers):
        s.push(Frame("media_benefit", seat=p, ops=2 if level == 3 else 1, flags=level))


@cache
def _media_benefit_pairs() -> tuple[
    tuple[tuple[str, str], ...], tuple[tuple[tuple[str, str], ...], ...]
]:
    """Per country: its "+1 position" option and its "remove control" option per controller."""
    countries = tables().countries
    return (
        tuple((f"pos:{rec.id}", f"+1 position in {rec.name}") for rec in countries),
        tuple(
            tuple((f"remove:{rec.id}", f"Remove {name} control in {rec.name}") for name in POWERS)
            for rec in countries
        ),
    )


def media_benefit_options(s: NcwState, f: Frame) -> list[tuple[str, str]]:
    """Options of a media benefit (4.3.2.5, global scoring)."""
    t = tables()
    p, level = f.seat, f.flags & 3
    bloc, ally = BLOC_OF[p], ALLY_OF[p]
    out: list[tuple[str, str]] = []
    pos_pairs, remove_pairs = _media_benefit_pairs()
    for c, rec in enumerate(t.countries):
        ctrl = s.control[c]
        if ctrl == ally:
            continue
        if (
            O.orbit_owner(s, c) == p
            and ctrl != p
            and (level >= 2 or O.stability_for(s, c, bloc) <= 2)
        ):
            out.append(pos_pairs[c])
        if f.flags & MB_POS_ONLY or ctrl < 0 or BLOC_OF[ctrl] == bloc:
            continue
        kind = rec.type
        if level == 1:
            ok = kind == "non_geo" and O.lower_stability(c) == 1 and O.orbit_owner(s, c) < 0
        elif level == 2:
            ok = kind == "non_geo"
        else:
            ok = kind != "regional_power"
        if ok:
            out.append(remove_pairs[c][ctrl])
    out.append(("pass", "Do not use the media benefit"))
    return out


def end_of_turn(s: NcwState, ctx: Ctx) -> None:
    """Victory checks (5.1, 5.2), then the clean-up before the next turn."""
    setup = tables().setup
    need = seam.hooks.objectives_needed(s)
    achievers: list[int] = []
    if s.turn in setup.automatic_victory_turns:
        achievers = [p for p in range(4) if len(s.declared[p]) >= need]
    bots = (
        [p for p in seam.hooks.bot_victors(s) if p not in achievers] if s.turn < setup.turns else []
    )
    if achievers or bots:
        reason = (
            "automatic victory by objectives" if achievers else "automatic victory of a bot (6.1)"
        )
        if achievers and bots:
            reason = "automatic victory by objectives and of a bot (6.1)"
        finish(s, achievers + bots, with_vp=True, reason=reason, ctx=ctx)
        return
    if s.turn >= setup.turns:
        finish(
            s, list(range(4)), with_vp=True, reason="victory by VPs at the end of turn 9", ctx=ctx
        )
        return
    if s.turn in setup.global_scoring_turns:
        s.region_vp_mod = [0] * len(s.region_vp_mod)
    s.vetoed_this_turn = [False] * 4
    s.blocks = [b for b in s.blocks if b.until_turn > s.turn]
    s.turn += 1
    s.phase, s.step, s.round, s.idx = "turn_start", 0, 0, NOBODY


def finish(s: NcwState, candidates: list[int], with_vp: bool, reason: str, ctx: Ctx) -> None:
    """End the game: the best candidate(s) by VP, prestige, media; a full tie is a joint win."""

    def key(p: int) -> tuple[int, int, int]:
        return (s.vp[p] if with_vp else 0, s.prestige[p], O.media_pos(s, p))

    best = max(key(p) for p in candidates)
    s.winners = tuple(p for p in candidates if key(p) == best)
    s.reason = reason
    s.over = True
    s.phase = "over"
    ctx.log(f"Game over ({reason}): " + ", ".join(POWERS[p] for p in s.winners), "result")


_PHASES = {
    "objectives": _phase_objectives,
    "deploy": _phase_deploy,
    "turn_start": _phase_turn_start,
    "ally_exchange": _phase_ally_exchange,
    "leftover_exchange": _phase_leftover_exchange,
    "place": _phase_place,
    "resolve": _phase_resolve,
    "round_end": _phase_round_end,
    "turn_end": _phase_turn_end,
}


# ---------------------------------------------------------------- decisions


def frame_option_objects(s: NcwState, f: Frame) -> dict[int, tuple[Option, ...]]:
    """`frame_options` as shared immutable `Option` objects, per acting power."""
    kind = f.kind
    if kind == "ops":
        return {f.seat: O.ops_option_objects(s, f)}
    if kind == "place":
        return {p: tuple(_place_choices(s, p, _place_objects)) for p in range(4) if f.mask >> p & 1}
    if kind == "veto":
        return {f.seat: _veto_objects(f.card, _veto_markers(s, f.seat, f.card))}
    return {p: tuple(map(O.option_of, opts)) for p, opts in frame_options(s, f).items()}


@lru_cache(maxsize=4096)
def _veto_objects(n: int, markers: tuple[str, ...]) -> tuple[Option, ...]:
    """A "veto" frame's options for card n and the markers usable against it (as `frame_options`)."""
    return tuple(map(O.option_of, _veto_pairs(n, markers)))


def _veto_pairs(n: int, markers: Sequence[str]) -> list[tuple[str, str]]:
    """The (id, label) options of vetoing card n with each marker, then passing."""
    opts = [(f"veto:{m}", veto_label(n, m)) for m in markers]
    return [*opts, ("pass", f"Do not veto {card(n).name}")]


@cache
def _place_pairs(
    n: int,
) -> tuple[tuple[str, str], tuple[str, str], tuple[str, str], tuple[str, str]]:
    """Card n's place options: (event, event + reserve, OPs, OPs + reserve)."""
    name = card(n).name
    return (
        (f"{n}e", f"{name} for its event"),
        (f"{n}er", f"{name} for its event with the OP reserve"),
        (f"{n}o", f"{name} for its OPs"),
        (f"{n}or", f"{name} for its OPs with the OP reserve"),
    )


@cache
def _place_objects(n: int) -> tuple[Option, ...]:
    """`_place_pairs` as shared `Option` objects."""
    return tuple(map(O.option_of, _place_pairs(n)))


def place_options(s: NcwState, p: int) -> list[tuple[str, str]]:
    """Cards p may place this round, each with its event/OPs choice and optional OP reserve."""
    return _place_choices(s, p, _place_pairs)


def _place_choices(s: NcwState, p: int, rows: Callable[[int], Sequence[_T]]) -> list[_T]:
    """`place_options` as items of `rows(card)`: (event, event + reserve, OPs, OPs + reserve)."""
    hand = s.hands[p]
    t = tables()
    stats = t.cards
    rounds_left = t.setup.rounds_per_turn - s.round
    crises = [n for n in hand if stats[n].crisis]
    cards = crises if crises and len(crises) >= rounds_left else hand
    reserve = s.op_reserve[p] == 1
    out: list[_T] = []
    for n in cards:
        c = stats[n]
        pairs = rows(n)
        if c.crisis:
            event, ops = True, False
        elif (c.power >= 0 and c.power != p) or c.negative:
            event, ops = False, True
        else:
            event, ops = event_playable(s, n, p), True
        if event:
            out.append(pairs[0])
            if reserve:
                out.append(pairs[1])
        if ops:
            out.append(pairs[2])
            if reserve:
                out.append(pairs[3])
    return out


def frame_options(s: NcwState, f: Frame) -> dict[int, list[tuple[str, str]]]:
    """The options of each acting power for the frame on top of the stack."""
    kind = f.kind
    if kind == "ops":
        return {f.seat: O.ops_options(s, f)}
    if kind == "place":
        return {p: place_options(s, p) for p in range(4) if f.mask >> p & 1}
    if kind == "veto":
        return {f.seat: _veto_pairs(f.card, veto_markers(s, f.seat, f.card))}
    if kind == "keep":
        return {
            p: [_objective_pairs(n)[0] for n in s.objective_offer[p]]
            for p in range(4)
            if f.mask >> p & 1
        }
    if kind == "deploy":
        custom = seam.hooks.deploy_options(s, f.seat)
        letters = custom if custom is not None else tables().setup.deployments[POWERS[f.seat]]
        return {f.seat: [(k, deployment_label(s, f.seat, k)) for k in letters]}
    if kind == "gift":
        return {p: seam.hooks.gift_options(s, p) for p in range(4) if f.mask >> p & 1}
    if kind == "exchange":
        return {
            p: [_card_pairs(n)[0] for n in _exchangeable(s, p)] for p in range(4) if f.mask >> p & 1
        }
    if kind == "leftover":
        if f.flags:
            return {f.seat: [_card_pairs(n)[1] for n in s.leftover]}
        gives = [_card_pairs(n)[2] for n in _exchangeable(s, f.seat)] if s.leftover else []
        return {f.seat: [*gives, ("done", "Make no (more) exchanges with the leftover pile")]}
    if kind == "media_benefit":
        return {f.seat: media_benefit_options(s, f)}
    if kind == "debt":
        t = tables()
        return {
            f.seat: [
                (f"remove:{t.countries[c].id}", f"Remove your control of {t.countries[c].name}")
                for c in range(len(t.countries))
                if s.control[c] == f.seat
            ]
        }
    if kind == "declare":
        out: dict[int, list[tuple[str, str]]] = {}
        for p in range(4):
            if f.mask >> p & 1:
                out[p] = [
                    *(_objective_pairs(n)[1] for n in fulfilled(s, p)),
                    ("pass", "Declare nothing this turn"),
                ]
        return out
    if kind.startswith("fx:"):
        fx = effects()
        if fx is None:
            return {f.seat: [("done", "Continue")]}
        return {f.seat: list(fx.frame_options(s, f))}
    raise KeyError(f"unknown frame kind {kind!r}")


@cache
def _card_pairs(n: int) -> tuple[tuple[str, str], tuple[str, str], tuple[str, str]]:
    """Card n's (id, label) options: give to the ally, take from / put on the leftover pile."""
    name = card(n).name
    return (
        (f"give:{n}", f"Give {name} to your ally"),
        (f"take:{n}", f"Take {name} from the leftover pile"),
        (f"give:{n}", f"Put {name} on the leftover pile to take a card from it"),
    )


@cache
def _objective_pairs(n: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """Objective n's (id, label) options: discard it (keeping the others), declare it."""
    label = objective_label(n)
    return (
        (f"discard:{n}", f"Discard {label}; keep the others"),
        (f"declare:{n}", f"Declare {label}"),
    )


def fulfilled(s: NcwState, p: int) -> list[int]:
    """p's held objectives that are fulfilled now (and may be declared)."""
    mod = objectives_module()
    if mod is None:
        return []
    return [n for n in s.objectives[p] if mod.fulfilled(s, p, n)]


def apply_option(s: NcwState, p: int, option: str, ctx: Ctx) -> None:
    """Apply p's option to the top frame of the working copy, then advance."""
    f = s.stack[-1]
    kind = f.kind
    if kind == "ops":
        O.apply_ops_option(s, f, option)
    elif kind == "place":
        _apply_place(s, f, p, option, ctx)
    elif kind == "veto":
        _apply_veto(s, f, p, option, ctx)
    elif kind == "keep":
        n = int(option.partition(":")[2])
        s.objectives[p] = sorted(x for x in s.objective_offer[p] if x != n)
        s.objective_offer[p] = []
        s.objectives_out = [*s.objectives_out, n]
        _clear_bit(s, f, p)
    elif kind == "gift":
        seam.hooks.apply_gift(s, p, option)
        _clear_bit(s, f, p)
    elif kind == "deploy":
        s.stack.pop()
        deploy(s, p, option, ctx)
        s.idx += 1
    elif kind == "exchange":
        s.exchange = replaced(s.exchange, p, int(option.partition(":")[2]))
        _clear_bit(s, f, p)
    elif kind == "leftover":
        _apply_leftover(s, f, p, option)
    elif kind == "media_benefit":
        _apply_media_benefit(s, f, option)
    elif kind == "debt":
        _apply_debt(s, f, p, option)
    elif kind == "declare":
        _apply_declare(s, f, p, option, ctx)
    elif kind.startswith("fx:"):
        fx = effects()
        if fx is None:
            s.stack.pop()
        else:
            fx.apply_frame(s, f, option)
    advance(s, ctx)


def _apply_veto(s: NcwState, f: Frame, p: int, option: str, ctx: Ctx) -> None:
    """A veto window's answer: pass it to the next power, or spend the veto marker (its VP
    cost, the play marked vetoed)."""
    s.stack.pop()
    if option == "pass":
        if f.items:
            s.push(Frame(f.kind, f.items[0], f.card, f.ops, f.flags, f.mask, f.items[1:]))
    else:
        marker = option.partition(":")[2]
        bit = dict(VETO_NAMES).get(marker, 0)
        if marker.startswith("ally"):
            key = f"ally_veto_{marker[4:]}:{p}"
            s.flags = {**s.flags, key: s.flags[key] - 1}
        s.vetoes = replaced(s.vetoes, p, s.vetoes[p] & ~bit)
        if bit != VETO_UNSC:
            s.vetoed_this_turn = replaced(s.vetoed_this_turn, p, True)
        s.vetoes_spent = replaced(s.vetoes_spent, p, s.vetoes_spent[p] + 1)
        s.vp[p] -= veto_cost(f.card, marker)
        play = s.plays[s.idx]
        assert play is not None
        s.plays[s.idx] = Play(
            play.power,
            play.card,
            play.mode,
            play.reserve,
            True,
            play.event_on,
            play.ops,
            play.order_value,
        )
        ctx.log(f"{POWERS[p]} vetoes {card(f.card).name} ({marker})", "veto")


def _apply_leftover(s: NcwState, f: Frame, p: int, option: str) -> None:
    """A leftover-card step's answer: done, take a leftover card, or first discard one."""
    s.stack.pop()
    if option == "done":
        if f.items:
            s.push(Frame("leftover", seat=f.items[0], items=f.items[1:]))
    elif f.flags:
        n = int(option.partition(":")[2])
        s.leftover = s.leftover.copy()
        s.leftover.remove(n)
        s.hands[p] = sorted([*s.hands[p], n])
        if s.leftover and _exchangeable(s, p):
            s.push(Frame(f.kind, f.seat, f.card, f.ops, 0, f.mask, f.items, f.scope, f.tag))
        elif f.items:
            s.push(Frame("leftover", seat=f.items[0], items=f.items[1:]))
    else:
        n = int(option.partition(":")[2])
        s.hands[p] = [x for x in s.hands[p] if x != n]
        s.discard = [*s.discard, n]
        s.push(Frame(f.kind, f.seat, f.card, f.ops, 1, f.mask, f.items, f.scope, f.tag))


def _apply_debt(s: NcwState, f: Frame, p: int, option: str) -> None:
    """A debt's answer: give up control of a country, until its stability pays the debt."""
    s.stack.pop()
    c = tables().country_index[option.partition(":")[2]]
    O.set_control(s, c, NOBODY)
    left = f.ops - O.stability_for(s, c, BLOC_OF[p])
    if left > 0 and any(x == p for x in s.control):
        s.push(Frame(f.kind, f.seat, f.card, left, f.flags, f.mask, f.items, f.scope, f.tag))


def _apply_declare(s: NcwState, f: Frame, p: int, option: str, ctx: Ctx) -> None:
    """A declaration window's answer: declare a secret objective (its VPs when objectives
    award them), or pass."""
    if option != "pass":
        n = int(option.partition(":")[2])
        s.objectives[p] = [x for x in s.objectives[p] if x != n]
        s.declared[p] = [*s.declared[p], n]
        if seam.hooks.objectives_award_vp(s):
            s.vp[p] += tables().objectives[n].vp
        ctx.irreversible = True
        ctx.log(f"{POWERS[p]} declares objective {n}", "objective")
    _clear_bit(s, f, p)


def _clear_bit(s: NcwState, f: Frame, p: int) -> None:
    s.stack.pop()
    mask = f.mask & ~(1 << p)
    if mask:
        s.stack.append(Frame(f.kind, f.seat, f.card, f.ops, f.flags, mask, f.items, f.scope, f.tag))


def _apply_place(s: NcwState, f: Frame, p: int, option: str, ctx: Ctx) -> None:
    reserve = option.endswith("r")
    body = option[:-1] if reserve else option
    mode = EVENT if body.endswith("e") else OPS
    n = int(body[:-1])
    s.hands[p] = _without(s.hands[p], n)
    c = card(n)
    value = c.ops + (1 if reserve else 0)
    if reserve:
        s.op_reserve = replaced(s.op_reserve, p, 0)
    s.plays[p] = Play(p, n, mode, reserve, order_value=min(4, value) if reserve else value)
    _clear_bit(s, f, p)
    ctx.log(f"{POWERS[p]} places a card", "place")


def _without(hand: list[int], n: int) -> list[int]:
    """A copy of a hand without card n (raises ValueError when n is not in it)."""
    out = hand.copy()
    out.remove(n)
    return out


def _apply_media_benefit(s: NcwState, f: Frame, option: str) -> None:
    s.stack.pop()
    if option == "pass":
        return
    kind, _, name = option.partition(":")
    c = tables().country_index[name]
    p = f.seat
    if kind == "remove":
        O.set_control(s, c, NOBODY)
        return
    O.set_control(s, c, NOBODY if s.control[c] >= 0 else p)
    if f.ops > 1:
        s.push(
            Frame(
                f.kind,
                f.seat,
                f.card,
                f.ops - 1,
                f.flags | MB_POS_ONLY,
                f.mask,
                f.items,
                f.scope,
                f.tag,
            )
        )
