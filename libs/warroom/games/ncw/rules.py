"""New Cold War rules: the `Rules` implementation over `NcwState` (registered as "ncw")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from operator import attrgetter
from typing import Any

from google.protobuf.message import Message

from warroom.engine import rng
from warroom.engine.errors import IllegalOptionError, require_listed
from warroom.engine.model import Applied, Decision, Result, SeatInfo, VariantInfo
from warroom.engine.rules import Rules
from warroom.games.ncw import flow
from warroom.games.ncw.bots import hooks
from warroom.games.ncw.bots.variants import difficulty_of, variant_infos
from warroom.games.ncw.content import tables
from warroom.games.ncw.ops import ops_option_legal
from warroom.games.ncw.state import (
    BLOC_OF,
    BLOCS,
    EVENT,
    NOBODY,
    OPS,
    POWERS,
    Block,
    Frame,
    NcwState,
    Play,
)
from warroom.games.ncw.v1 import ncw_pb2

_PROMPTS = {
    "ops": "Spend your OPs",
    "place": "Place a card in the negotiating center",
    "veto": "Veto this event?",
    "keep": "Choose the objective to discard",
    "deploy": "Choose your initial deployment",
    "exchange": "Choose the card to give your ally",
    "leftover": "Exchange cards with the leftover pile",
    "media_benefit": "Use your media track benefit",
    "debt": "Pay off the -2 OPs by removing your control",
    "declare": "Declare a fulfilled objective",
    "gift": "Choose the card to give the bot",
    "fx:country": "Choose a country for the event",
    "fx:region": "Choose a region for the event",
    "fx:power": "Choose a power for the event",
    "fx:option": "Choose how the event applies",
    "fx:card": "Choose a card to discard for the event",
}


def _prompt(kind: str) -> str:
    """The human-readable question of a frame kind ("fx:region:<permanent>" as "fx:region")."""
    found = _PROMPTS.get(kind)
    if found is None and kind.startswith("fx:region:"):
        found = "Choose the region where the event is in force"
    return found or kind


_OPTION_ID = attrgetter("id")

_OVER = Decision("over", "", {})
"""The memo of a finished game (decision() is None)."""


_OWN_ONLY = frozenset({"place", "keep", "exchange", "gift", "declare"})
"""Simultaneous steps where one power's answer changes only that power's own options."""


def _carry_memo(memo: Decision, before: NcwState, frame: Frame, seat: int, work: NcwState) -> None:
    """After one power answered a simultaneous step, the others' options stand unchanged."""
    top = work.top()
    rest = frame.mask & ~(1 << seat)
    if (
        top is None
        or work.over
        or top.kind != frame.kind
        or top.mask != rest
        or len(work.stack) != len(before.stack)
        or (work.turn, work.round, work.phase) != (before.turn, before.round, before.phase)
    ):
        return
    options = {p: memo.options[p] for p in range(4) if rest >> p & 1 and p in memo.options}
    if len(options) == bin(rest).count("1"):
        work.memo = Decision(memo.kind, memo.prompt, options)


@cache
def _variants() -> tuple[VariantInfo, ...]:
    """The variant list, built once per process from the content."""
    return tuple(variant_infos())


class NewColdWarRules(Rules[NcwState]):
    """The rules of New Cold War (rulebook sections 2-5; bots and variants per section 6)."""

    game_id = "ncw"
    title = "New Cold War"
    team_victory = False  # section 3: every power competes against the other three, its ally too

    def variants(self) -> Sequence[VariantInfo]:
        """Every variant in content/variants.yaml, with the bot variants' difficulty option."""
        return _variants()

    def setup(self, seed: int, variant: str, options: Mapping[str, str]) -> NcwState:
        """A new game: objectives dealt, waiting for the first decision."""
        self.variant(variant)
        difficulty_of(variant, options)
        state = flow.new_state(seed, variant)
        hooks.on_setup(state, options)
        ctx = flow.Ctx()
        flow.advance(state, ctx)
        _autoplay(state, ctx)
        return state

    def seats(self, state: NcwState) -> Sequence[SeatInfo]:
        """The four powers, teamed by bloc."""
        return [SeatInfo(p, POWERS[p], BLOCS[BLOC_OF[p]]) for p in range(4)]

    def decision(self, state: NcwState) -> Decision | None:
        """The pending decision (the top of the stack), memoized on the state."""
        memo = state.memo
        if memo is not None:
            return memo if memo is not _OVER else None
        frame = state.top()
        if frame is None or state.over:
            state.memo = _OVER
            return None
        kind = frame.kind
        decision = Decision(kind, _prompt(kind), flow.frame_option_objects(state, frame))
        state.memo = decision
        return decision

    def apply(self, state: NcwState, seat: int, option_id: str) -> Applied[NcwState]:
        """Apply one option to a clone of the state."""
        stack = state.stack
        frame = stack[-1] if stack else None
        if frame is None or state.over:
            raise IllegalOptionError("", option_id, seat, "the game is over")
        memo = state.memo
        if isinstance(memo, Decision):
            legal = memo.options.get(seat)
            if legal is None:
                raise IllegalOptionError(
                    "", option_id, seat, f"seat {seat} does not act in {frame.kind!r}"
                )
            if option_id not in map(_OPTION_ID, legal):
                raise IllegalOptionError("", option_id, seat, "not a legal option")
        elif frame.kind == "ops":
            if seat != frame.seat or not ops_option_legal(state, frame, option_id):
                raise IllegalOptionError("", option_id, seat, "not a legal option")
        else:
            require_listed(flow.frame_options(state, frame), seat, option_id, frame.kind)
        work = state.clone()
        ctx = flow.Ctx()
        rng_before = work.rng
        flow.apply_option(work, seat, option_id, ctx)
        if work.bots:
            _autoplay(work, ctx)
        irreversible = ctx.irreversible or work.rng != rng_before
        if isinstance(memo, Decision) and frame.kind in _OWN_ONLY:
            _carry_memo(memo, state, frame, seat, work)
        return Applied(work, tuple(ctx.events), irreversible)

    def result(self, state: NcwState) -> Result | None:
        """Scores are VPs; winners as decided at the end; the others ranked by VP."""
        if not state.over:
            return None
        winners = frozenset(state.winners)
        others = sorted({state.vp[p] for p in range(4) if p not in winners}, reverse=True)
        ranks = {p: 0 if p in winners else 1 + others.index(state.vp[p]) for p in range(4)}
        return Result({p: float(state.vp[p]) for p in range(4)}, winners, ranks, state.reason)

    def resign(self, state: NcwState, seat: int) -> Result:
        """A power resigns (the game authority's resign hook): it alone ranks last.

        Victory is individual (allies never share a win), so the ally is not ranked down
        with it: the other three rank as at the end of the game, by VP, then prestige, then
        the media track (the key of `flow.finish`); the best win, ties sharing.
        """
        from warroom.games.ncw.ops import media_pos

        def key(p: int) -> tuple[int, int, int]:
            return (state.vp[p], state.prestige[p], media_pos(state, p))

        others = [p for p in range(4) if p != seat]
        levels = sorted({key(p) for p in others}, reverse=True)
        ranks = {p: levels.index(key(p)) for p in others}
        ranks[seat] = len(levels)
        winners = frozenset(p for p in others if ranks[p] == 0)
        return Result({p: float(state.vp[p]) for p in range(4)}, winners, ranks, "resignation")

    def state_message_type(self) -> type[Message]:
        """ncw_pb2.State."""
        return ncw_pb2.State

    def encode_state(self, state: NcwState) -> Message:
        """The full state as ncw_pb2.State."""
        return encode(state)

    def decode_state(self, message: Message) -> NcwState:
        """The state back from ncw_pb2.State."""
        assert isinstance(message, ncw_pb2.State)
        return decode(message)

    def view(self, state: NcwState, seat: int | None) -> Message:
        """What a seat (or a spectator) may see."""
        return make_view(state, seat)

    def determinize(self, view: Message, seat: int, rng_seed: int) -> NcwState:
        """A full state consistent with the view, every hidden fact sampled afresh."""
        assert isinstance(view, ncw_pb2.View)
        return determinize(view, seat, rng_seed)

    def invariants(self, state: NcwState) -> list[str]:
        """Conservation and range checks."""
        return check_invariants(state)


def _autoplay(state: NcwState, ctx: flow.Ctx) -> None:
    """Let the official bots answer every decision that names only bot powers."""
    if not state.bots:
        return
    try:
        from warroom.games.ncw import bots as bot_module
    except ImportError:
        return
    choose = getattr(bot_module, "choose", None)
    if choose is None:
        return
    while state.stack and not state.over:
        frame = state.stack[-1]
        # the shared Option objects: no labels are formatted for a bot's own choice
        options = flow.frame_option_objects(state, frame)
        if not all(state.bots >> p & 1 for p in options):
            return
        p = min(options)
        option = choose(state, p, list(map(_OPTION_ID, options[p])))
        flow.apply_option(state, p, option, ctx)


# ---------------------------------------------------------------- protobuf


def _frame_msg(f: Frame, out: Any) -> None:
    out.kind, out.seat, out.card, out.ops, out.flags, out.mask, out.tag = (
        f.kind,
        f.seat,
        f.card,
        f.ops,
        f.flags,
        f.mask,
        f.tag,
    )
    out.items.extend(f.items)
    out.scope.extend(f.scope)


def _frame_of(m: Any) -> Frame:
    return Frame(
        m.kind, m.seat, m.card, m.ops, m.flags, m.mask, tuple(m.items), tuple(m.scope), m.tag
    )


def _play_msg(play: Play | None, out: Any) -> None:
    if play is None:
        out.present = False
        return
    out.present = True
    out.power, out.card, out.mode, out.reserve = play.power, play.card, play.mode, play.reserve
    out.vetoed, out.event_on, out.ops, out.order_value = (
        play.vetoed,
        play.event_on,
        play.ops,
        play.order_value,
    )


def _play_of(m: Any) -> Play | None:
    if not m.present:
        return None
    return Play(m.power, m.card, m.mode, m.reserve, m.vetoed, m.event_on, m.ops, m.order_value)


def _block_msg(b: Block, out: Any) -> None:
    out.powers, out.country, out.region, out.ops_only, out.until_turn, out.tag = (
        b.powers,
        b.country,
        b.region,
        b.ops_only,
        b.until_turn,
        b.tag,
    )


def _block_of(m: Any) -> Block:
    return Block(m.powers, m.country, m.region, m.ops_only, m.until_turn, m.tag)


def _public_into(s: NcwState, m: Any) -> None:
    """Fields shared by State and View."""
    m.variant, m.bots, m.turn, m.round, m.phase, m.step, m.idx = (
        s.variant,
        s.bots,
        s.turn,
        s.round,
        s.phase,
        s.step,
        s.idx,
    )
    m.media = s.media
    m.subregion_claimed.extend(s.subregion_claimed)
    for k, v in s.orbit_override.items():
        m.orbit_override[k] = v
    for k, v in s.perm_destab.items():
        m.perm_destab[k] = v
    for b in s.blocks:
        _block_msg(b, m.blocks.add())
    for k2, v2 in s.flags.items():
        m.flags[k2] = v2
    m.discard.extend(s.discard)
    m.leftover.extend(s.leftover)
    m.leftover_split = s.leftover_split
    m.removed.extend(s.removed)
    m.order.extend(s.order)
    m.revealed = s.revealed
    for f in s.stack:
        _frame_msg(f, m.stack.add())
    m.winners.extend(s.winners)
    m.reason, m.over = s.reason, s.over


def encode(s: NcwState) -> ncw_pb2.State:
    """NcwState -> ncw_pb2.State."""
    m = ncw_pb2.State()
    _public_into(s, m)
    m.rng = s.rng
    m.control.extend(s.control)
    m.token.extend(s.token)
    m.country_vp_mod.extend(s.country_vp_mod)
    m.region_vp_mod.extend(s.region_vp_mod)
    m.region_vp_mod_perm.extend(s.region_vp_mod_perm)
    m.access.extend(s.access)
    m.vp.extend(s.vp)
    m.prestige.extend(s.prestige)
    m.media_box.extend(s.media_box)
    m.op_reserve.extend(s.op_reserve)
    m.coups_left.extend(s.coups_left)
    m.vetoes.extend(s.vetoes)
    m.vetoed_this_turn.extend(s.vetoed_this_turn)
    m.vetoes_spent.extend(s.vetoes_spent)
    for h in s.hands:
        m.hands.add().values.extend(h)
    m.deck.extend(s.deck)
    for play in s.plays:
        _play_msg(play, m.plays.add())
    m.exchange.extend(s.exchange)
    for lists, field in (
        (s.objectives, m.objectives),
        (s.objective_offer, m.objective_offer),
        (s.objective_decks, m.objective_decks),
        (s.declared, m.declared),
    ):
        for values in lists:
            field.add().values.extend(values)
    m.objectives_out.extend(s.objectives_out)
    return m


def decode(m: ncw_pb2.State) -> NcwState:
    """ncw_pb2.State -> NcwState."""
    return NcwState(
        variant=m.variant,
        bots=m.bots,
        turn=m.turn,
        round=m.round,
        phase=m.phase,
        step=m.step,
        idx=m.idx,
        rng=m.rng,
        control=list(m.control),
        token=list(m.token),
        country_vp_mod=list(m.country_vp_mod),
        region_vp_mod=list(m.region_vp_mod),
        region_vp_mod_perm=list(m.region_vp_mod_perm),
        subregion_claimed=list(m.subregion_claimed),
        access=list(m.access),
        orbit_override=dict(m.orbit_override),
        perm_destab=dict(m.perm_destab),
        blocks=[_block_of(b) for b in m.blocks],
        flags=dict(m.flags),
        vp=list(m.vp),
        prestige=list(m.prestige),
        media=m.media,
        media_box=list(m.media_box),
        op_reserve=list(m.op_reserve),
        coups_left=list(m.coups_left),
        vetoes=list(m.vetoes),
        vetoed_this_turn=list(m.vetoed_this_turn),
        vetoes_spent=list(m.vetoes_spent),
        hands=[list(h.values) for h in m.hands],
        deck=list(m.deck),
        discard=list(m.discard),
        leftover=list(m.leftover),
        leftover_split=m.leftover_split,
        removed=list(m.removed),
        plays=[_play_of(p) for p in m.plays],
        order=list(m.order),
        revealed=m.revealed,
        exchange=list(m.exchange),
        objectives=[list(x.values) for x in m.objectives],
        objective_offer=[list(x.values) for x in m.objective_offer],
        objective_decks=[list(x.values) for x in m.objective_decks],
        objectives_out=list(m.objectives_out),
        declared=[list(x.values) for x in m.declared],
        stack=[_frame_of(f) for f in m.stack],
        winners=tuple(m.winners),
        reason=m.reason,
        over=m.over,
    )


# ---------------------------------------------------------------- views


def _objective_power(n: int) -> int:
    return tables().objectives[n].power


def make_view(s: NcwState, seat: int | None) -> ncw_pb2.View:
    """The typed view of one seat (None: a spectator)."""
    t = tables()
    v = ncw_pb2.View()
    v.viewer = NOBODY if seat is None else seat
    _public_into(s, v)
    for c, rec in enumerate(t.countries):
        cv = v.countries.add()
        cv.id, cv.control, cv.token, cv.vp_modifier = (
            rec.id,
            s.control[c],
            s.token[c],
            s.country_vp_mod[c],
        )
    n_r = len(t.regions)
    for p in range(4):
        pv = v.powers.add()
        pv.power = POWERS[p]
        pv.vp, pv.prestige, pv.media_box, pv.op_reserve = (
            s.vp[p],
            s.prestige[p],
            s.media_box[p],
            s.op_reserve[p],
        )
        pv.coups_left, pv.vetoes, pv.vetoed_this_turn = (
            s.coups_left[p],
            s.vetoes[p],
            s.vetoed_this_turn[p],
        )
        pv.vetoes_spent = s.vetoes_spent[p]
        pv.hand_count = len(s.hands[p])
        pv.secret_objectives = len(s.objectives[p])
        pv.objective_offer_count = len(s.objective_offer[p])
        pv.objectives_out_count = sum(1 for n in s.objectives_out if _objective_power(n) == p)
        pv.objective_deck_count = len(s.objective_decks[p])
        pv.declared.extend(s.declared[p])
        pv.access = s.access[p]
        pv.region_vp_mod.extend(s.region_vp_mod[r * 4 + p] for r in range(n_r))
        pv.region_vp_mod_perm.extend(s.region_vp_mod_perm[r * 4 + p] for r in range(n_r))
        pv.placed = s.plays[p] is not None
        pv.exchange_chosen = s.exchange[p] >= 0 if s.exchange else False
    for p in range(4):
        play = s.plays[p]
        pl = v.placements.add()
        pl.power = POWERS[p]
        pl.placed = play is not None
        if play is not None:
            pl.play.reserve = play.reserve
            if s.revealed or p == seat:
                pl.visible = True
                _play_msg(play, pl.play)
    if seat is not None:
        v.hand.extend(s.hands[seat])
        v.objectives.extend(s.objectives[seat])
        v.objective_offer.extend(s.objective_offer[seat])
        v.objectives_out.extend(n for n in s.objectives_out if _objective_power(n) == seat)
        v.own_exchange = s.exchange[seat] if s.exchange else NOBODY
    else:
        v.own_exchange = NOBODY
    v.deck_count = len(s.deck)
    return v


def determinize(v: ncw_pb2.View, seat: int, seed: int) -> NcwState:
    """Rebuild a full state from a seat's view, sampling hands, deck order and secret objectives."""
    s = _public_state(v)
    r_state = _deal_cards(s, v, seat, rng.seed_state(seed))
    r_state = _deal_objectives(s, v, seat, r_state)
    r_state, s.rng = rng.next_u64(r_state)
    return s


def _public_state(v: ncw_pb2.View) -> NcwState:
    """A state holding what the view shows of the board, the tracks and the turn."""
    n_r = len(tables().regions)
    powers = list(v.powers)
    s = NcwState(
        variant=v.variant,
        bots=v.bots,
        turn=v.turn,
        round=v.round,
        phase=v.phase,
        step=v.step,
        idx=v.idx,
        rng=0,
    )
    s.control = [c.control for c in v.countries]
    s.token = [c.token for c in v.countries]
    s.country_vp_mod = [c.vp_modifier for c in v.countries]
    s.region_vp_mod = [0] * (n_r * 4)
    s.region_vp_mod_perm = [0] * (n_r * 4)
    for p, pv in enumerate(powers):
        for r in range(n_r):
            s.region_vp_mod[r * 4 + p] = pv.region_vp_mod[r]
            s.region_vp_mod_perm[r * 4 + p] = pv.region_vp_mod_perm[r]
    s.subregion_claimed = list(v.subregion_claimed)
    s.access = [pv.access for pv in powers]
    s.orbit_override = dict(v.orbit_override)
    s.perm_destab = dict(v.perm_destab)
    s.blocks = [_block_of(b) for b in v.blocks]
    s.flags = dict(v.flags)
    s.vp = [pv.vp for pv in powers]
    s.prestige = [pv.prestige for pv in powers]
    s.media = v.media
    s.media_box = [pv.media_box for pv in powers]
    s.op_reserve = [pv.op_reserve for pv in powers]
    s.coups_left = [pv.coups_left for pv in powers]
    s.vetoes = [pv.vetoes for pv in powers]
    s.vetoed_this_turn = [pv.vetoed_this_turn for pv in powers]
    s.vetoes_spent = [pv.vetoes_spent for pv in powers]
    s.discard = list(v.discard)
    s.leftover = list(v.leftover)
    s.leftover_split = v.leftover_split
    s.removed = list(v.removed)
    s.order = list(v.order)
    s.revealed = v.revealed
    s.stack = [_frame_of(f) for f in v.stack]
    s.winners = tuple(v.winners)
    s.reason, s.over = v.reason, v.over
    s.declared = [list(pv.declared) for pv in powers]
    return s


def _deal_cards(s: NcwState, v: ncw_pb2.View, seat: int, r_state: int) -> int:
    """Shuffle every card of the decades in play that the seat has not seen into the other
    powers' hands, their face-down placements and the deck; sample the other powers' chosen
    exchange cards. Returns the RNG state after."""
    t = tables()
    known: set[int] = set(v.hand) | set(v.discard) | set(v.leftover) | set(v.removed)
    s.plays = []
    for pl in v.placements:
        if pl.visible:
            play = _play_of(pl.play)
            s.plays.append(play)
            if play is not None:
                known.add(play.card)
        else:
            s.plays.append(None)
    decades = max(1, min(3, (v.turn - 1) // 3 + 1))
    pool = [n for d in range(decades) for n in t.decade_cards[d] if n not in known]
    r_state = rng.shuffle(r_state, pool)
    s.hands = []
    for p, pv in enumerate(v.powers):
        if p == seat:
            s.hands.append(list(v.hand))
        else:
            s.hands.append(sorted(pool.pop() for _ in range(pv.hand_count)))
    for p, pl in enumerate(v.placements):
        if pl.placed and not pl.visible:
            n = pool.pop()
            mode = EVENT if flow.is_crisis(n) else OPS
            s.plays[p] = Play(p, n, mode, pl.play.reserve, order_value=t.cards[n].ops)
    s.deck = pool
    s.exchange = [NOBODY] * 4
    if v.own_exchange >= 0:
        s.exchange[seat] = v.own_exchange
    for p, pv in enumerate(v.powers):
        if p != seat and pv.exchange_chosen:
            choices = [n for n in s.hands[p] if not flow.is_crisis(n)] or s.hands[p]
            r_state, s.exchange[p] = rng.choice(r_state, choices)
    return r_state


def _deal_objectives(s: NcwState, v: ncw_pb2.View, seat: int, r_state: int) -> int:
    """The seat's own objectives as shown, its undrawn ones shuffled; every other power's
    held, offered and set-aside objectives sampled from those it has not declared (withdrawn
    ones excluded). Returns the RNG state after."""
    t = tables()
    withdrawn = {int(k.partition(":")[2]) for k in v.flags if k.startswith("withdrawn:")}
    s.objectives, s.objective_offer, s.objective_decks = [], [], []
    out: list[int] = []
    for p, pv in enumerate(v.powers):
        if p == seat:
            held, offer, gone = list(v.objectives), list(v.objective_offer), list(v.objectives_out)
            seen = set(held) | set(offer) | set(gone) | set(pv.declared)
            rest = [n for n in t.power_objectives[p] if n not in seen and n not in withdrawn]
            r_state = rng.shuffle(r_state, rest)
        else:
            rest = [
                n for n in t.power_objectives[p] if n not in set(pv.declared) and n not in withdrawn
            ]
            r_state = rng.shuffle(r_state, rest)
            held = sorted(rest.pop() for _ in range(pv.secret_objectives))
            offer = sorted(rest.pop() for _ in range(pv.objective_offer_count))
            gone = [rest.pop() for _ in range(pv.objectives_out_count)]
        s.objectives.append(held)
        s.objective_offer.append(offer)
        s.objective_decks.append(rest)
        out.extend(gone)
    s.objectives_out = out
    return r_state


# ---------------------------------------------------------------- invariants


def check_invariants(s: NcwState) -> list[str]:
    """Conservation of cards and objectives, and every track in range."""
    t = tables()
    problems: list[str] = []
    seen: dict[int, str] = {}
    places: list[tuple[str, list[int]]] = [
        ("deck", s.deck),
        ("discard", s.discard),
        ("leftover", s.leftover),
        ("removed", s.removed),
        *((f"hand {POWERS[p]}", s.hands[p]) for p in range(4)),
        ("plays", [pl.card for pl in s.plays if pl is not None]),
    ]
    for name, cards in places:
        for n in cards:
            if n in seen:
                problems.append(f"card {n} is in {seen[n]} and {name}")
            seen[n] = name
    decades_in = s.decade if s.phase not in ("objectives", "deploy") else 1
    expected = {n for d in range(decades_in) for n in t.decade_cards[d]}
    if s.turn in t.setup.deck_rebuild_turns and s.phase == "turn_start":
        expected = {n for d in range(decades_in - 1) for n in t.decade_cards[d]}
    if set(seen) != expected:
        missing = sorted(expected - set(seen))[:5]
        extra = sorted(set(seen) - expected)[:5]
        problems.append(f"cards not conserved: missing {missing}, unexpected {extra}")
    for p in range(4):
        for n in s.exchange if s.exchange else []:
            if n >= 0 and n not in set().union(*s.hands):
                problems.append(f"exchange card {n} is not in a hand")
        objs = s.objectives[p] + s.objective_offer[p] + s.objective_decks[p] + s.declared[p]
        objs += [n for n in s.objectives_out if t.objectives[n].power == p]
        pool = {n for n in t.power_objectives[p] if f"withdrawn:{n}" not in s.flags}
        if sorted(objs) != sorted(pool):
            problems.append(f"{POWERS[p]} objectives not conserved")
        if not -5 <= s.prestige[p] <= 5:
            problems.append(f"{POWERS[p]} prestige {s.prestige[p]} out of range")
        if not 0 <= s.coups_left[p] <= t.setup.coups_per_turn:
            problems.append(f"{POWERS[p]} coups left {s.coups_left[p]}")
        if s.media_box[p] not in (-1, 0, 1) or s.op_reserve[p] not in (-1, 0, 1):
            problems.append(f"{POWERS[p]} reserve boxes out of range")
    if (s.media_box[0] == 1 and s.media_box[1] == 1) or (
        s.media_box[2] == 1 and s.media_box[3] == 1
    ):
        problems.append("both allies hold a media reserve marker")
    if not -5 <= s.media <= 5:
        problems.append(f"media {s.media} out of range")
    for c in range(len(t.countries)):
        if not -1 <= s.control[c] <= 3 or s.token[c] not in (0, 1, 2):
            problems.append(f"country {t.countries[c].id} has a bad control/token")
    if not s.over and not s.stack:
        problems.append("no pending decision but the game is not over")
    return problems
