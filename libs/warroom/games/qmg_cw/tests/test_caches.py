"""The caches that make search affordable give the answers of the uncached rules: the
options `Rules.apply` keeps with the state it returns, one position's `board.Supply`, and the
content index of the spaces Status cards keep in supply (checked when loaded)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from warroom.engine.errors import ContentError
from warroom.games.qmg_cw import board, flow
from warroom.games.qmg_cw.content import _supply_always, tables
from warroom.games.qmg_cw.policy import choose
from warroom.games.qmg_cw.state import SOV, WEST, Frame, piece_space

from .helpers import RULES, scenario, sp


def test_cached_options_are_the_options_of_the_state() -> None:
    """Along a seeded policy game, every state `apply` returns carries its pending options,
    `decision` lists exactly the options computed afresh, and a clone carries none."""
    state = RULES.setup(7, "3p", {})
    for _ in range(400):
        decision = RULES.decision(state)
        if decision is None:
            break
        frame = state.stack[-1]
        fresh = flow.options_of(state, frame)
        listed = {seat: [o.id for o in opts] for seat, opts in decision.options.items()}
        assert listed == {seat: [i for i, _ in opts] for seat, opts in sorted(fresh.items())}
        assert state.clone().pending is None
        seat = decision.seats[0]
        state = RULES.apply(state, seat, choose(state, seat, listed[seat])).state
        if not state.over:
            cached = state.pending
            assert isinstance(cached, tuple) and cached[0] is state.stack[-1]
    assert state.round > 1


def test_an_edited_state_is_not_answered_from_the_cache() -> None:
    """A state whose pending frame was replaced is answered afresh, not from the cache."""
    state = RULES.setup(3, "3p", {})
    first = RULES.decision(state)
    assert first is not None
    seat = first.seats[0]
    state = RULES.apply(state, seat, first.options_for(seat)[0].id).state
    frame = state.stack[-1]
    state.pending = (Frame(frame.kind, frame.bloc), {seat: [("bogus", "Bogus")]})
    decision = RULES.decision(state)
    assert decision is not None
    ids = [o.id for o in decision.options_for(seat)]
    assert "bogus" not in ids and ids == [i for i, _ in flow.options_of(state, frame)[seat]]


def test_a_supply_position_closes_a_strait_like_the_board() -> None:
    """`Supply.neighbours` closes a strait to the Blocs whose enemy holds its anchor, as
    `board.neighbours` does."""
    state = scenario(pieces=[("turkey", "soviet", "army"), ("mediterranean", "western", "navy")])
    med, black = sp("mediterranean"), sp("black_sea")
    supply = board.Supply(state)
    assert black not in supply.neighbours(med, WEST) and black in supply.neighbours(med, SOV)
    assert supply.neighbours(med, WEST) == board.neighbours(state, med, WEST)
    assert supply.neighbours(med, SOV) == board.neighbours(state, med, SOV)
    assert supply.neighbours(black, WEST) == board.neighbours(state, black, WEST)
    assert med not in supply.neighbours(black, WEST)


def test_supply_always_content_with_an_unknown_space_is_refused() -> None:
    """A Status card whose `supply_always` names an unknown space or nationality is a content
    error naming the file and the card, not a rule that silently never applies."""
    t = tables()
    status = next(c for c in t.cards if c.passive.get("supply_always"))
    assert _supply_always(Path("cards.yaml"), status, t.space_ids) == t.supply_always[status.id]
    for bad in ({"nat": "martian", "spaces": []}, {"nat": "soviet", "spaces": ["atlantis"]}):
        broken = replace(status, passive={**status.passive, "supply_always": bad})
        with pytest.raises(ContentError, match=r"cards\.yaml"):
            _supply_always(Path("cards.yaml"), broken, t.space_ids)


def test_the_kept_supply_follows_edits_in_place() -> None:
    """`board.supply_of` serves the position's `Supply` again only while the pieces, supply
    tokens, Organic Supply and prepared cards are unchanged: after an edit in place its
    answers are those of a new `Supply`, and a clone starts without one."""
    state = scenario(
        pieces=[
            ("moscow", "soviet", "army"),
            ("white_russia", "soviet", "army"),
            ("east_europe", "soviet", "army"),
        ]
    )
    kept = board.supply_of(state)
    assert board.supply_of(state) is kept and state.clone().supply is None

    def answers(supply: board.Supply) -> dict[int, bool]:
        return {p: supply.supplied(p) for p in state.pieces}

    before = answers(kept)
    link = next(p for p in state.pieces if piece_space(p) == sp("white_russia"))
    state.pieces.remove(link)  # in place: East Europe no longer traces to Moscow
    after = board.supply_of(state)
    assert after is not kept
    assert answers(after) == answers(board.Supply(state))
    assert answers(after) != {p: before[p] for p in state.pieces}
    state.organic.append(state.pieces[0])
    assert answers(board.supply_of(state)) == answers(board.Supply(state))
    assert all(answers(board.supply_of(state)).values())
