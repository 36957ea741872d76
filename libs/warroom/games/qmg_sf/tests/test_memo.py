"""The memos kept on a South Front state (supply's reach, the board's occupancy) never serve
an answer for lists that were edited in place since: each answer equals the one worked out
afresh, with every memo emptied, on a copy of the edited state."""

from __future__ import annotations

from collections.abc import Callable

from warroom.games.qmg_sf import board, supply
from warroom.games.qmg_sf.content import FACTIONS
from warroom.games.qmg_sf.setup import new_state
from warroom.games.qmg_sf.state import ALLIES, AXIS, OFF, SfState


def _afresh(s: SfState) -> tuple[list[frozenset[int]], tuple[int, ...]]:
    """Every faction's reach and the occupancy of a copy of `s`, with no memo to serve them."""
    supply._REACH.clear()
    supply._PASS.clear()
    supply._BASES.clear()
    board._OCC.clear()
    copy = s.clone()
    return [supply.reach(copy, f) for f in range(len(FACTIONS))], board.occupancy(copy)


def _answers(s: SfState) -> tuple[list[frozenset[int]], tuple[int, ...]]:
    return [supply.reach(s, f) for f in range(len(FACTIONS))], board.occupancy(s)


def _changes_supply(s: SfState, edit: Callable[[SfState], None]) -> bool:
    copy = s.clone()
    edit(copy)
    return _afresh(copy)[0] != _afresh(s)[0]


def test_the_state_memos_follow_edits_in_place() -> None:
    s = new_state(1, "standard")
    before = _answers(s)
    assert s.cached_reach is not None and s.cached_occupancy is not None
    assert before == _afresh(s)

    def lift(piece: int) -> Callable[[SfState], None]:
        def edit(state: SfState) -> None:
            state.loc[piece] = OFF

        return edit

    piece = next(p for p, at in enumerate(s.loc) if at != OFF and _changes_supply(s, lift(p)))
    at = s.loc[piece]
    lift(piece)(s)  # in place, no touch()
    lifted = _answers(s)
    assert lifted == _afresh(s)
    assert lifted[0] != before[0] and lifted[1][at] != before[1][at]

    def flip(space: int) -> Callable[[SfState], None]:
        def edit(state: SfState) -> None:
            state.control[space] = ALLIES if state.control[space] == AXIS else AXIS

        return edit

    space = next(x for x in range(len(s.control)) if _changes_supply(s, flip(x)))
    flip(space)(s)
    flipped = _answers(s)
    assert flipped == _afresh(s)
    assert flipped[0] != lifted[0]


def test_a_lifted_piece_is_memoized_apart_from_the_board() -> None:
    """`reach(skip=piece)` (the piece lifted off the board) and plain `reach` are kept apart in
    the state's memo: asked in turn for every piece, each equals its answer worked out afresh."""
    s = new_state(1, "standard")
    differ = 0
    for piece, at in enumerate(s.loc):
        if at == OFF:
            continue
        fac = board.faction(piece)
        lifted = supply.reach(s, fac, skip=piece)
        plain = supply.reach(s, fac)
        _afresh(s)
        assert lifted == supply.reach(s.clone(), fac, skip=piece)
        assert plain == supply.reach(s.clone(), fac)
        differ += lifted != plain
    assert differ  # some piece holds a road open for its own side
