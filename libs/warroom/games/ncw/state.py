"""The New Cold War game state: plain mutable dataclasses with a fast explicit `clone`.

Rules functions never mutate a state they are given: `apply` clones first and then
works on the clone (the "working copy"). Everything is indexed by small integers:
powers 0-3 in the initial order of play (US, EU, China, Russia), blocs 0 (blue) and
1 (red), countries / regions / subregions by their position in the content files,
cards by their printed number and objectives by their number (1-32).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

US, EU, CHINA, RUSSIA = 0, 1, 2, 3
POWERS: tuple[str, ...] = ("US", "EU", "China", "Russia")
BLUE, RED = 0, 1
BLOCS: tuple[str, ...] = ("blue", "red")
BLOC_OF: tuple[int, ...] = (BLUE, BLUE, RED, RED)
ALLY_OF: tuple[int, ...] = (EU, US, RUSSIA, CHINA)
NOBODY = -1

_V = TypeVar("_V")

EVENT, OPS = 0, 1
"""Play modes of a placed card."""

# Veto marker bits in NcwState.vetoes (a bitmask per power).
VETO_1, VETO_2, VETO_3, VETO_EXTRA, VETO_UNSC = 1, 2, 4, 8, 16
VETO_BITS: tuple[tuple[int, int], ...] = (
    (VETO_1, 1),
    (VETO_2, 2),
    (VETO_3, 3),
    (VETO_EXTRA, 3),
    (VETO_UNSC, 3),
)


# Flags of an "ops" frame.
OPF_PRESTIGE_USED = 1
OPF_MEDIA_USED = 2
OPF_MEDIA_RES_DONE = 4
OPF_RESERVE_DONE = 8
OPF_CONTROL_ONLY = 16
OPF_ONE_PER_REGION = 32
OPF_NO_COUP = 64


class Frame(NamedTuple):
    """One pending step on the decision stack (immutable; replace it to change it).

    `kind` names the step ("ops", "veto", "place", ... or "fx:<name>" for a card
    effect's own sub-decision). `seat` is the power that must act, or -1 for a
    simultaneous step whose pending powers are the bits of `mask`. `card` is the
    card concerned, `ops` the OPs left to spend, `flags` step-specific bits,
    `items` step-specific integers (e.g. countries already moved by this card),
    `scope` optional allowed country indices (empty = no restriction) and `tag`
    a free string for effects. A named tuple: cheaper to build than a frozen dataclass.
    """

    kind: str
    seat: int = NOBODY
    card: int = -1
    ops: int = 0
    flags: int = 0
    mask: int = 0
    items: tuple[int, ...] = ()
    scope: tuple[int, ...] = ()
    tag: str = ""


class Play(NamedTuple):
    """A card placed face down in the negotiating center this round (immutable)."""

    power: int
    card: int
    mode: int
    reserve: bool = False
    vetoed: bool = False
    event_on: bool = False
    ops: int = 0
    order_value: int = 0


@dataclass(frozen=True, slots=True)
class Block:
    """A standing prohibition to influence a country or region (permanent events).

    `powers` is a bitmask of the powers blocked; `country`/`region` -1 when unused;
    `ops_only` blocks only OP play (events still may); it lapses after `until_turn`.
    """

    powers: int
    country: int = -1
    region: int = -1
    ops_only: bool = True
    until_turn: int = 99
    tag: str = ""


SHARED_FIELDS: tuple[str, ...] = (
    "country_vp_mod",
    "region_vp_mod",
    "region_vp_mod_perm",
    "subregion_claimed",
    "access",
    "orbit_override",
    "perm_destab",
    "blocks",
    "flags",
    "media_box",
    "op_reserve",
    "coups_left",
    "vetoes",
    "vetoed_this_turn",
    "vetoes_spent",
    "discard",
    "leftover",
    "removed",
    "order",
    "exchange",
    "objectives_out",
)
"""The containers `NcwState.clone` shares with the original: replace them, never mutate them."""


def replaced(values: list[_V], i: int, value: _V) -> list[_V]:
    """A copy of `values` with item i set to `value` (how a shared list is written)."""
    out = values.copy()
    out[i] = value
    return out


_new = object.__new__
_lcopy = list.copy
_dcopy = dict.copy


@dataclass(slots=True)
class NcwState:
    """The complete state of one game (see the module docstring for indexing)."""

    variant: str = "4p"
    bots: int = 0
    turn: int = 1
    round: int = 0
    phase: str = "setup"
    step: int = 0
    idx: int = 0
    rng: int = 0
    # board
    control: list[int] = field(default_factory=list)
    token: list[int] = field(default_factory=list)
    country_vp_mod: list[int] = field(default_factory=list)
    region_vp_mod: list[int] = field(default_factory=list)
    region_vp_mod_perm: list[int] = field(default_factory=list)
    subregion_claimed: list[int] = field(default_factory=list)
    access: list[int] = field(default_factory=list)
    orbit_override: dict[int, int] = field(default_factory=dict)
    perm_destab: dict[int, int] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    flags: dict[str, int] = field(default_factory=dict)
    # tracks
    vp: list[int] = field(default_factory=list)
    prestige: list[int] = field(default_factory=list)
    media: int = 0
    media_box: list[int] = field(default_factory=list)
    op_reserve: list[int] = field(default_factory=list)
    coups_left: list[int] = field(default_factory=list)
    vetoes: list[int] = field(default_factory=list)
    vetoed_this_turn: list[bool] = field(default_factory=list)
    vetoes_spent: list[int] = field(default_factory=list)
    # cards
    hands: list[list[int]] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    leftover: list[int] = field(default_factory=list)
    leftover_split: int = 0
    removed: list[int] = field(default_factory=list)
    plays: list[Play | None] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    revealed: bool = False
    exchange: list[int] = field(default_factory=list)
    # objectives
    objectives: list[list[int]] = field(default_factory=list)
    objective_offer: list[list[int]] = field(default_factory=list)
    objective_decks: list[list[int]] = field(default_factory=list)
    objectives_out: list[int] = field(default_factory=list)
    declared: list[list[int]] = field(default_factory=list)
    # the decision stack and the outcome
    stack: list[Frame] = field(default_factory=list)
    winners: tuple[int, ...] = ()
    reason: str = ""
    over: bool = False
    # the rules' memo of this state's pending decision (never copied, compared or encoded)
    memo: Any = field(default=None, init=False, repr=False, compare=False)

    def forget(self) -> None:
        """Drop the memoized decision: call after mutating a state the rules have seen."""
        self.memo = None

    def clone(self) -> NcwState:
        """A deep-enough copy: the containers a decision usually changes are copied, the rest shared.

        Copied: `control`, `token`, `vp`, `prestige`, `deck`, `plays` and `stack`. Every other
        list and dict is shared copy-on-write (`SHARED_FIELDS`): replace it (`s.vetoes =
        [*s.vetoes]` before writing), never mutate it in place. The outer per-power lists
        (`hands` and the objective lists) are copied and their items shared: replace
        `s.hands[p]`, never mutate it in place.
        """
        new: NcwState = _new(NcwState)
        new.variant = self.variant
        new.bots = self.bots
        new.turn = self.turn
        new.round = self.round
        new.phase = self.phase
        new.step = self.step
        new.idx = self.idx
        new.rng = self.rng
        new.control = _lcopy(self.control)
        new.token = _lcopy(self.token)
        new.country_vp_mod = self.country_vp_mod
        new.region_vp_mod = self.region_vp_mod
        new.region_vp_mod_perm = self.region_vp_mod_perm
        new.subregion_claimed = self.subregion_claimed
        new.access = self.access
        new.orbit_override = self.orbit_override
        new.perm_destab = self.perm_destab
        new.blocks = self.blocks
        new.flags = self.flags
        new.vp = _lcopy(self.vp)
        new.prestige = _lcopy(self.prestige)
        new.media = self.media
        new.media_box = self.media_box
        new.op_reserve = self.op_reserve
        new.coups_left = self.coups_left
        new.vetoes = self.vetoes
        new.vetoed_this_turn = self.vetoed_this_turn
        new.vetoes_spent = self.vetoes_spent
        new.hands = _lcopy(self.hands)
        new.deck = _lcopy(self.deck)
        new.discard = self.discard
        new.leftover = self.leftover
        new.leftover_split = self.leftover_split
        new.removed = self.removed
        new.plays = _lcopy(self.plays)
        new.order = self.order
        new.revealed = self.revealed
        new.exchange = self.exchange
        new.objectives = _lcopy(self.objectives)
        new.objective_offer = _lcopy(self.objective_offer)
        new.objective_decks = _lcopy(self.objective_decks)
        new.objectives_out = self.objectives_out
        new.declared = _lcopy(self.declared)
        new.stack = _lcopy(self.stack)
        new.winners = self.winners
        new.reason = self.reason
        new.over = self.over
        new.memo = None
        return new

    @property
    def decade(self) -> int:
        """The current decade (1-3)."""
        return (self.turn - 1) // 3 + 1

    def top(self) -> Frame | None:
        """The pending step on top of the stack, if any."""
        return self.stack[-1] if self.stack else None

    def push(self, frame: Frame) -> None:
        """Push a pending step (it is decided before anything below it)."""
        self.stack.append(frame)
