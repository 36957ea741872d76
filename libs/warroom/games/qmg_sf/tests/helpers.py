"""Helpers to build South Front positions and act through the rules by option id."""

from __future__ import annotations

from warroom.games.qmg_sf import board
from warroom.games.qmg_sf.content import FACTIONS, KINDS, tables
from warroom.games.qmg_sf.rules import SouthFrontRules
from warroom.games.qmg_sf.setup import new_state
from warroom.games.qmg_sf.state import OFF, SfState

RULES = SouthFrontRules()


def sp(space_id: str) -> int:
    """A space index."""
    return tables().space(space_id)


def blank(phase: str = "move1", active: int = 0, round_: int = 1) -> SfState:
    """The start-of-game map with no pieces, empty hands and decks, no pending frame."""
    s = new_state(1, "standard")
    s.loc = [OFF] * len(s.loc)
    s.on = [OFF] * len(s.on)
    s.stack = []
    s.hands = [[], []]
    s.decks = [[], []]
    s.late = [[], []]
    s.phase, s.active, s.round = phase, active, round_
    s.step_changes = {}
    return s


def put(s: SfState, faction: str, kind: str, space: str, on: int = -1) -> int:
    """Place an available piece; the piece id."""
    piece = board.available(s, FACTIONS.index(faction), KINDS.index(kind))[0]
    board.place(s, piece, sp(space), on)
    s.step_changes = {}
    s.touch()
    return piece


def hand(s: SfState, side: int, *cards: int) -> None:
    """Give a side exactly these cards in hand (taken from wherever they are)."""
    for lst in (*s.hands, *s.decks, *s.late, *s.discards):
        for c in cards:
            if c in lst:
                lst.remove(c)
    s.hands[side] = list(cards)
    s.touch()


def ids(s: SfState) -> list[str]:
    """The option ids of the pending decision."""
    d = RULES.decision(s)
    assert d is not None
    return [o.id for o in d.options[d.seats[0]]]


def act(s: SfState, option: str) -> SfState:
    """Apply an option as the seat that must act; fails when it is not legal."""
    d = RULES.decision(s)
    assert d is not None
    assert option in ids(s), f"{option!r} not in {d.kind} options {ids(s)}"
    return RULES.apply(s, d.seats[0], option).state


def desperate_attack(
    s: SfState, paid: tuple[int, int], faction: int, source: str, target: str
) -> SfState:
    """The Action step's Desperate Attack: discard the two `paid` cards, then attack `target`
    with `faction`'s force from `source` (space ids)."""
    s = act(act(act(s, "da"), f"d{paid[0]}"), f"d{paid[1]}")
    return act(s, f"a{faction}-{sp(source)}-{sp(target)}")


def kind_of(s: SfState) -> str:
    """The pending decision kind."""
    d = RULES.decision(s)
    assert d is not None
    return d.kind


def pieces(s: SfState, faction: str, kind: str, space: str) -> list[int]:
    """Pieces of a faction and kind in a space."""
    f, k = FACTIONS.index(faction), KINDS.index(kind)
    return [
        p for p in board.pieces_at(s, sp(space)) if board.faction(p) == f and board.kind(p) == k
    ]


def move(p: int, space: str, on: int = -1) -> str:
    """A move option id."""
    return f"m{p}-{sp(space)}" + (f"-{on}" if on >= 0 else "")
