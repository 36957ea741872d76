"""The Cold War game state: plain mutable dataclasses with a fast explicit `clone`.

Rules functions never mutate a state they are given: `apply` clones first and works
on the clone. Blocs are 0 Soviet, 1 Western, 2 Non-Aligned; nationalities 0-4
(Soviet, Western, Chinese, Indian, Nationalist); piece kinds 0 army, 1 navy, 2 air.
A piece on the board is one integer `space * 32 + nat * 4 + kind` (unique, since a
Bloc has at most one piece of a kind per space and Non-Aligned nationalities never
share a space). A supply token is `space * 8 + nat`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SOV, WEST, NA = 0, 1, 2
ARMY, NAVY, AIR = 0, 1, 2
NATIONALIST = 4
NOBODY = -1
HAND_SIZE = 7
LAST_ROUND = 19
STEPS: tuple[str, ...] = ("begin", "air", "action", "supply", "discard", "espionage", "draw")


def piece_code(space: int, nat: int, kind: int) -> int:
    """The integer naming a piece on the board."""
    return space * 32 + nat * 4 + kind


def piece_space(code: int) -> int:
    """The space of a piece."""
    return code >> 5


def piece_nat(code: int) -> int:
    """The nationality of a piece."""
    return (code >> 2) & 7


def piece_kind(code: int) -> int:
    """The kind of a piece (army, navy, air)."""
    return code & 3


def nat_bloc(nat: int) -> int:
    """The bloc of a nationality."""
    return nat if nat < 2 else NA


def piece_bloc(code: int) -> int:
    """The bloc owning a piece."""
    nat = (code >> 2) & 7
    return nat if nat < 2 else NA


@dataclass(frozen=True, slots=True)
class Frame:
    """One pending step on the decision stack (immutable; replace it to change it).

    `kind` names the step; `bloc` the bloc concerned; `mask` the seats that may answer
    (bits); `owner` the seat whose card is resolving; `card` that card; `pc` a program
    counter or step number; `count` a remaining count; `target` a target bloc; `space`
    and `piece` a space / piece code; `items` step-specific integers (never a hidden
    card); `tag` a free string.
    """

    kind: str
    bloc: int = NOBODY
    mask: int = 0
    owner: int = NOBODY
    card: int = NOBODY
    pc: int = 0
    count: int = 0
    target: int = NOBODY
    space: int = NOBODY
    piece: int = NOBODY
    items: tuple[int, ...] = ()
    tag: str = ""


@dataclass(slots=True)
class SeatState:
    """One player's cards. `colour` is the deck colour index, or -1 for a whole Bloc."""

    bloc: int
    colour: int
    hand: list[int] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    discard_up: list[int] = field(default_factory=list)
    discard_down: list[int] = field(default_factory=list)
    prepared: list[int] = field(default_factory=list)
    espionage: list[int] = field(default_factory=list)
    opening: list[int] = field(default_factory=list)

    def clone(self) -> SeatState:
        """A deep copy."""
        return SeatState(
            self.bloc,
            self.colour,
            self.hand[:],
            self.deck[:],
            self.discard_up[:],
            self.discard_down[:],
            self.prepared[:],
            self.espionage[:],
            self.opening[:],
        )

    def undiscarded(self) -> int:
        """Cards in hand, draw deck and on the table (the tie-breaker)."""
        return (
            len(self.hand)
            + len(self.deck)
            + len(self.prepared)
            + len(self.espionage)
            + len(self.opening)
        )


@dataclass(slots=True)
class CwState:
    """The full game state."""

    variant: str
    seats: list[SeatState]
    rng: int
    round: int = 1
    active: int = SOV
    vp: list[int] = field(default_factory=lambda: [0, 0, 0])
    esc: list[int] = field(default_factory=lambda: [0] * 9)
    pieces: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    organic: list[int] = field(default_factory=list)
    used: list[int] = field(default_factory=list)
    realloc: int = 0
    last_space: int = NOBODY
    stack: list[Frame] = field(default_factory=list)
    over: bool = False
    winners: list[int] = field(default_factory=list)
    reason: str = ""
    log: list[str] = field(default_factory=list)
    public: object = field(default=None, compare=False, repr=False)
    """The spectator view with its key, cached by `views.public_view` (never copied by
    `clone`; rebuilt when the state was edited in place)."""
    pending: object = field(default=None, compare=False, repr=False)
    """The pending decision's (frame, options, signature), cached by `Rules.apply` on the
    state it returns (never copied by `clone`; used only while `signature()` is unchanged, so
    a state edited in place is answered afresh)."""
    supply: object = field(default=None, compare=False, repr=False)
    """The position's `board.Supply` with copies of what it reads (pieces, tokens, Organic
    Supply, prepared cards), kept by `board.supply_of` (never copied by `clone`; served only
    while the state still equals those copies)."""

    def signature(self) -> tuple[object, ...]:
        """Everything a decision's options may read, as a cheap comparable value (the cached
        options of a state edited in place must not be served)."""
        return (
            tuple(self.pieces),
            tuple(self.tokens),
            tuple(self.vp),
            tuple(self.esc),
            tuple(self.organic),
            tuple(self.used),
            self.realloc,
            self.last_space,
            self.round,
            self.active,
            self.over,
            tuple(self.stack),
            tuple(
                (
                    tuple(p.hand),
                    tuple(p.deck),
                    tuple(p.prepared),
                    tuple(p.espionage),
                    tuple(p.opening),
                    len(p.discard_up),
                    len(p.discard_down),
                )
                for p in self.seats
            ),
        )

    def clone(self) -> CwState:
        """A deep copy (frames are immutable and shared)."""
        return CwState(
            self.variant,
            [s.clone() for s in self.seats],
            self.rng,
            self.round,
            self.active,
            self.vp[:],
            self.esc[:],
            self.pieces[:],
            self.tokens[:],
            self.organic[:],
            self.used[:],
            self.realloc,
            self.last_space,
            self.stack[:],
            self.over,
            self.winners[:],
            self.reason,
            [],
        )

    def top(self) -> Frame | None:
        """The pending frame."""
        return self.stack[-1] if self.stack else None

    def bloc_seats(self, bloc: int) -> list[int]:
        """The seats playing a bloc."""
        return [i for i, s in enumerate(self.seats) if s.bloc == bloc]

    def bloc_mask(self, bloc: int) -> int:
        """The seats of a bloc as a bit mask."""
        mask = 0
        for i in self.bloc_seats(bloc):
            mask |= 1 << i
        return mask

    def teamed(self, bloc: int) -> bool:
        """Whether two teammates share this bloc."""
        return len(self.bloc_seats(bloc)) > 1

    def level(self, of: int, against: int) -> int:
        """Escalation level of bloc `of` against bloc `against`."""
        return self.esc[of * 3 + against]

    def add_piece(self, code: int) -> None:
        """Place a piece (kept sorted)."""
        self.pieces.append(code)
        self.pieces.sort()

    def remove_piece(self, code: int) -> None:
        """Take a piece off the board."""
        self.pieces.remove(code)
        if code in self.organic:
            self.organic.remove(code)


def seat_bits(mask: int) -> list[int]:
    """The seats named by a mask."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out
