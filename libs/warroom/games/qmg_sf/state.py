"""The South Front game state: a mutable dataclass with a fast explicit `clone`.

Rules functions never mutate a state they are given: `apply` clones first. Sides are
0 (Axis, seat 0) and 1 (Allies, seat 1); factions, kinds, spaces, pieces and cards are
small integers indexed by `content.tables()`. A piece's `loc` is its space (-1 when
available); `on` is the fleet or carrier carrying it (-1 when not carried).
"""

from __future__ import annotations

from dataclasses import dataclass, field

AXIS, ALLIES = 0, 1
SIDES: tuple[str, ...] = ("Axis", "Allies")
GERMANY, PACT, UK, USA, FRANCE = 0, 1, 2, 3, 4
INF, TANK, AIR, FLEET, CARRIER = 0, 1, 2, 3, 4
NEUTRAL = -1
WATER = -2
OFF = -1

INITIAL, SECOND, GONE = 0, 1, 2
"""Contingency card states."""


@dataclass(slots=True)
class Frame:
    """One pending step: a decision for `seat` or an effect being resolved.

    `kind` names it; `card`/`face` the card and side resolving; `pc` the next effect
    step; `branch` the path of a chosen sub-list ("" for the card's own list);
    `n` and `data` hold step-specific integers.
    """

    kind: str
    seat: int = -1
    card: int = -1
    face: int = 0
    pc: int = 0
    branch: str = ""
    n: int = 0
    data: tuple[int, ...] = ()

    def copy(self) -> Frame:
        """A copy (frames are replaced, never shared, when changed)."""
        return Frame(
            self.kind, self.seat, self.card, self.face, self.pc, self.branch, self.n, self.data
        )


@dataclass(slots=True)
class Combat:
    """An attack in progress.

    `force` are the attacking pieces still in it; `req` the rank the attacker must match
    to continue; `free` an Anti-Air/Naval Combat counter lets them continue for nothing;
    `factions` the defending factions (bitmask) noted when this attack round opened (a record:
    the options read the attacked space itself).
    """

    side: int
    faction: int
    src: int
    tgt: int
    sea: bool
    force: list[int]
    req: int = 0
    free: bool = False
    advanced: bool = False
    factions: int = 0
    rounds: int = 0

    def copy(self) -> Combat:
        """A deep copy."""
        return Combat(
            self.side,
            self.faction,
            self.src,
            self.tgt,
            self.sea,
            list(self.force),
            self.req,
            self.free,
            self.advanced,
            self.factions,
            self.rounds,
        )


@dataclass(slots=True)
class SfState:
    """The full game state."""

    variant: str
    rng: int
    round: int = 1
    active: int = AXIS
    phase: str = "setup"
    loc: list[int] = field(default_factory=list)
    on: list[int] = field(default_factory=list)
    moved: int = 0
    control: list[int] = field(default_factory=list)
    step_changes: dict[int, int] = field(default_factory=dict)
    """The control, at the beginning of the current step, of each space whose control the
    rules changed during it (`set_control`); every other space is controlled as it was then.
    A position edited in place between steps thus counts as the step's start."""
    minor: list[int] = field(default_factory=list)
    mcf: list[int] = field(default_factory=list)
    vp: list[int] = field(default_factory=lambda: [0, 0])
    hands: list[list[int]] = field(default_factory=lambda: [[], []])
    decks: list[list[int]] = field(default_factory=lambda: [[], []])
    late: list[list[int]] = field(default_factory=lambda: [[], []])
    discards: list[list[int]] = field(default_factory=lambda: [[], []])
    revealed: list[list[int]] = field(default_factory=lambda: [[], []])
    contingency: dict[int, int] = field(default_factory=dict)
    malta_depot: bool = False
    bulgaria_flag: bool = False
    extra_actions: int = 0
    stack: list[Frame] = field(default_factory=list)
    combat: Combat | None = None
    tags: dict[str, int] = field(default_factory=dict)
    over: bool = False
    winner: int = -1
    reason: str = ""
    cached_options: tuple[tuple[object, ...], list[tuple[str, str]]] | None = None
    """The pending options with the `signature` they were computed for, memoized by
    `turn.options` (a clone starts without them; served only while the signature is
    unchanged, so a state edited in place is answered afresh)."""
    cached_public: tuple[tuple[object, ...], bytes] | None = None
    """The serialized public part with its `signature`, memoized by `codec.public_bytes`."""
    cached_occupancy: tuple[list[int], list[int], list[int], tuple[int, ...]] | None = None
    """`board.occupancy` with copies of the lists it read (piece locations, MCFs, minor
    countries): served only while the state's lists still equal them."""
    cached_reach: (
        tuple[list[list[int]], bool, dict[tuple[int, int], frozenset[int]], int] | None
    ) = None
    """`supply.reach` per (faction, vacated space) and the id of the supply facts across
    states, with copies of the lists supply reads (locations, carriers, control, MCFs, minor
    countries) and the Bulgarian flag: served only while the state still equals them."""

    def set_control(self, space: int, side: int) -> None:
        """The rules' change of a space's control (its control at the step's start is kept)."""
        if self.control[space] != side:
            self.step_changes.setdefault(space, self.control[space])
            self.control[space] = side

    def held_at_step_start(self, space: int) -> int:
        """The side that controlled the space at the beginning of the current step."""
        return self.step_changes.get(space, self.control[space])

    def step_start_control(self) -> list[int]:
        """Every space's control at the beginning of the current step."""
        return [self.held_at_step_start(sp) for sp in range(len(self.control))]

    def touch(self) -> None:
        """Forget the memoized options and public bytes (optional: the memo checks the
        signature; this only frees them early)."""
        self.cached_options = None
        self.cached_public = None
        self.cached_occupancy = None
        self.cached_reach = None

    def signature(self) -> tuple[object, ...]:
        """Everything the pending options and the public view read, as a comparable value
        (the memo of a state edited in place must not be served)."""
        c = self.combat
        return (
            self.variant,
            self.round,
            self.active,
            self.phase,
            self.moved,
            self.malta_depot,
            self.bulgaria_flag,
            self.extra_actions,
            self.over,
            self.winner,
            self.reason,
            tuple(self.loc),
            tuple(self.on),
            tuple(self.control),
            tuple(sorted(self.step_changes.items())),
            tuple(self.minor),
            tuple(self.mcf),
            tuple(self.vp),
            tuple(tuple(x) for x in self.hands),
            tuple(tuple(x) for x in self.decks),
            tuple(tuple(x) for x in self.late),
            tuple(sorted(self.contingency.items())),
            tuple(
                (f.kind, f.seat, f.card, f.face, f.pc, f.branch, f.n, f.data) for f in self.stack
            ),
            None
            if c is None
            else (
                c.side,
                c.faction,
                c.src,
                c.tgt,
                c.sea,
                tuple(c.force),
                c.req,
                c.free,
                c.advanced,
                c.factions,
                c.rounds,
            ),
            tuple(sorted(self.tags.items())),
        )

    def clone(self) -> SfState:
        """A deep copy, field by field."""
        return SfState(
            self.variant,
            self.rng,
            self.round,
            self.active,
            self.phase,
            list(self.loc),
            list(self.on),
            self.moved,
            list(self.control),
            dict(self.step_changes),
            list(self.minor),
            list(self.mcf),
            list(self.vp),
            [list(h) for h in self.hands],
            [list(d) for d in self.decks],
            [list(d) for d in self.late],
            [list(d) for d in self.discards],
            [list(d) for d in self.revealed],
            dict(self.contingency),
            self.malta_depot,
            self.bulgaria_flag,
            self.extra_actions,
            [f.copy() for f in self.stack],
            self.combat.copy() if self.combat else None,
            dict(self.tags),
            self.over,
            self.winner,
            self.reason,
        )

    def top(self) -> Frame | None:
        """The pending frame, if any."""
        return self.stack[-1] if self.stack else None


@dataclass(slots=True)
class Ctx:
    """What one `apply` produced besides the state: log lines and irreversibility."""

    events: list[tuple[str, frozenset[int] | None]] = field(default_factory=list)
    irreversible: bool = False

    def log(self, text: str, visible_to: frozenset[int] | None = None) -> None:
        """Add a log line (public unless `visible_to` names the seats)."""
        self.events.append((text, visible_to))
