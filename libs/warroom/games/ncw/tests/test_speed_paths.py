"""The fast paths agree with the general rules: inlined OP options, shared Options, the decision memo."""

from __future__ import annotations

import dataclasses

import pytest

from warroom.engine.errors import IllegalOptionError
from warroom.engine.rng import Rng
from warroom.games.ncw import flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots.adapter import board_of, stats_board
from warroom.games.ncw.bots.board import Board
from warroom.games.ncw.bots.policy import choose_option
from warroom.games.ncw.content import REGION_IDS
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import (
    BLUE,
    OPF_CONTROL_ONLY,
    OPF_NO_COUP,
    OPF_ONE_PER_REGION,
    POWERS,
    RED,
    Block,
    Frame,
    NcwState,
)
from warroom.games.ncw.tests.helpers import blank, cid, give, rid, with_ops

RULES = NewColdWarRules()


@pytest.mark.parametrize("seed", range(4))
def test_inlined_ops_options_match_the_general_helpers(seed: int) -> None:
    """Every "ops" frame of a random game lists what the country-by-country helpers list, and
    every memoized decision equals one computed afresh."""
    rng = Rng(seed)
    state = RULES.setup(seed, "4p", {})
    checked = 0
    while (decision := RULES.decision(state)) is not None:
        frame = state.top()
        assert frame is not None
        assert RULES.decision(state.clone()) == decision  # a memo carried over stays exact
        if frame.kind == "ops":
            assert O.ops_options(state, frame) == O.reference_ops_options(state, frame)
            assert [o.id for o in decision.options_for(frame.seat)] == [
                i for i, _ in O.ops_options(state, frame)
            ]
            checked += 1
        seat = rng.choice(decision.seats)
        state = RULES.apply(state, seat, rng.choice(decision.options_for(seat)).id).state
    assert checked > 10


def test_inlined_ops_options_with_orbit_override_tokens_and_blocks() -> None:
    """The inlined path handles a lost ORBIT, permanent destabilization, tokens and blocks."""
    s = blank()
    give(s, "Russia", "turkey", "israel", "colombia", "iraq")
    give(s, "US", "cuba", "syria")
    s.orbit_override[cid("turkey")] = -1
    s.perm_destab[cid("israel")] = RED
    s.perm_destab[cid("colombia")] = RED
    s.token[cid("iraq")] = BLUE + 1
    s.token[cid("syria")] = BLUE + 1
    s.blocks.append(Block(powers=0b0101, country=cid("egypt")))
    for power in range(4):
        for ops in (1, 2, 3, 4):
            for flags in (0, OPF_CONTROL_ONLY | OPF_ONE_PER_REGION | OPF_NO_COUP):
                frame = Frame("ops", seat=power, ops=ops, flags=flags)
                assert O.ops_options(s, frame) == O.reference_ops_options(s, frame)


def test_table_ops_options_with_closed_regions_moves_and_scopes() -> None:
    """The table path agrees with the helpers when special countries sit in closed regions,
    countries were already moved, a scope applies, or one country is checked alone."""
    s = blank()
    give(s, "Russia", "turkey", "israel", "colombia", "iraq", "cuba")
    give(s, "US", "syria", "egypt")
    s.orbit_override[cid("turkey")] = -1
    s.perm_destab[cid("colombia")] = RED
    s.token[cid("iraq")] = RED + 1
    s.blocks.append(Block(powers=0b1111, region=rid("CAM"), until_turn=9))
    moved = (cid("israel"), cid("syria"))
    scope = (cid("cuba"), cid("colombia"), cid("turkey"), cid("egypt"), cid("iraq"))
    for power in range(4):
        for access in (0, 0b1010101, 0b1111111):
            s.access[power] = access
            for ops in (1, 2, 3, 4, 7):
                for flags, items, sc in (
                    (0, moved, ()),
                    (0, (), scope),
                    (OPF_CONTROL_ONLY | OPF_ONE_PER_REGION | OPF_NO_COUP, (), ()),
                ):
                    frame = Frame("ops", seat=power, ops=ops, flags=flags, items=items, scope=sc)
                    expected = O.reference_ops_options(s, frame)
                    assert O.ops_options(s, frame) == expected
                    ids = {i for i, _ in expected}
                    for c in scope:
                        for kind in ("pos", "coup", "token"):
                            option = f"{kind}:{O.T().countries[c].id}"
                            assert O.ops_option_legal(s, frame, option) == (option in ids)


def test_decision_is_memoized_and_forgotten() -> None:
    """The decision is computed once per state; `forget` drops it after a test mutates the state."""
    s = with_ops(blank(), 0, 2)
    first = RULES.decision(s)
    assert first is not None and RULES.decision(s) is first
    assert "pos:panama" in [o.id for o in first.options_for(0)]
    s.access[0] = 0
    s.forget()
    again = RULES.decision(s)
    assert again is not None and "pos:panama" not in [o.id for o in again.options_for(0)]
    with pytest.raises(IllegalOptionError):
        RULES.apply(s, 0, "pos:panama")
    applied = RULES.apply(s, 0, "done").state
    assert applied.memo is None and s.memo is again


def _played_states(seed: int, variant: str, bots: bool) -> list[NcwState]:
    """Every state of one game, random or official-bot play (the bots' own seats included)."""
    rng = Rng(seed)
    states = [RULES.setup(seed, variant, {})]
    while (decision := RULES.decision(states[-1])) is not None:
        state = states[-1]
        if bots:
            seat = decision.seats[0]
            option = choose_option(state, seat, decision)
        else:
            seat = rng.choice(decision.seats)
            option = rng.choice(decision.options_for(seat)).id
        states.append(RULES.apply(state, seat, option).state)
    return states


@pytest.mark.parametrize("variant", flow.variant_ids())
def test_shared_containers_are_never_written_in_place(variant: str) -> None:
    """`clone` shares most containers copy-on-write: no state of a game changes afterwards.

    Every state's encoding is taken when it is reached and again once the game is over; a
    write into a container shared with a later state would change an earlier one.
    """
    for seed, bots in ((1, False), (2, False), (3, True)):
        states = _played_states(seed, variant, bots)
        reached = [RULES.encode_bytes(s) for s in states]
        # a second pass through the same states: applying again must not touch them either
        for state in states[:-1]:
            decision = RULES.decision(state)
            assert decision is not None
            seat = decision.seats[0]
            RULES.apply(state, seat, decision.options_for(seat)[-1].id)
        assert [RULES.encode_bytes(s) for s in states] == reached
        assert states[-1].over


def test_board_of_and_stats_board_read_the_state_as_the_constructor_would() -> None:
    """`board_of` fills `Board`'s slots directly and `stats_board` only the region statistics:
    both give the fields and statistics of a `Board` built field by field from the state."""
    for state in _played_states(4, "4p", True)[::25]:
        board = board_of(state)
        rebuilt = Board(**{f.name: getattr(board, f.name) for f in dataclasses.fields(Board)})
        assert board == rebuilt
        assert board.vp == dict(zip(POWERS, state.vp, strict=True))
        assert board.coups_left == dict(zip(POWERS, state.coups_left, strict=True))
        assert (board.turn, board.round, board.media) == (state.turn, state.round + 1, state.media)
        stats = stats_board(state)
        fresh = Board(board.facts, board.control, region_modifiers=board.region_modifiers)
        for power in POWERS:
            for region in REGION_IDS:
                key = (power, region)
                assert board.stats(*key) == stats.stats(*key) == fresh.stats(*key)


def test_region_controller_matches_the_country_by_country_one() -> None:
    """`region_controller` (counts in C, VPs only when needed) answers as the loop over the
    region's countries, on every state of random and bot games."""
    for seed, bots in ((5, False), (6, True)):
        for state in _played_states(seed, "4p", bots):
            for r in range(len(REGION_IDS)):
                assert O.region_controller(state, r) == O.reference_region_controller(state, r)
