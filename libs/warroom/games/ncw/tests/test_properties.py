"""Property tests (hypothesis) for cost computation, order of play and scoring."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from warroom.games.ncw import flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import BLOC_OF, EVENT, OPS, Play
from warroom.games.ncw.tests.helpers import blank

N_C = len(tables().countries)
controls = st.lists(st.integers(-1, 3), min_size=N_C, max_size=N_C)
tokens = st.lists(st.integers(0, 2), min_size=N_C, max_size=N_C)


@settings(max_examples=60, deadline=None)
@given(controls, tokens, st.integers(0, 3))
def test_pos_cost_bounds(control: list[int], token: list[int], p: int) -> None:
    """A POS move costs its bloc stability ±1 (never below 1); a coup never costs less than 2."""
    s = blank()
    s.control, s.token = control, token
    for c in range(N_C):
        base = O.stability_for(s, c, BLOC_OF[p])
        cost, used = O.pos_cost(s, p, c)
        assert max(1, base - 1) <= cost <= base + 1
        assert used == (cost != base) or base == 1
        if O.coup_possible(s, p, c):
            assert O.coup_cost(s, p, c) >= 2
            assert control[c] not in (-1, p)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=4, max_size=4),
    st.lists(st.integers(-5, 5), min_size=4, max_size=4),
    st.integers(-5, 5),
    st.lists(
        st.tuples(st.sampled_from(sorted(tables().cards)), st.booleans(), st.booleans()),
        min_size=4,
        max_size=4,
    ),
)
def test_order_of_play(
    vp: list[int], prestige: list[int], media: int, cards: list[tuple[int, bool, bool]]
) -> None:
    """Resolution order: events before OP cards, crisis first, values non-increasing within a group."""
    s = blank()
    s.vp, s.prestige, s.media = vp, prestige, media
    s.plays = [
        Play(
            p,
            n,
            EVENT if ev or flow.card(n).crisis else OPS,
            res,
            order_value=min(4, flow.card(n).ops + res) if res else flow.card(n).ops,
        )
        for p, (n, ev, res) in enumerate(cards)
    ]
    keys = []
    while (p := flow.next_play(s)) >= 0:
        keys.append(flow.order_key(s, s.plays[p]))  # type: ignore[arg-type]
        s.order.append(p)
    assert len(keys) == 4
    assert keys == sorted(keys)


@settings(max_examples=60, deadline=None)
@given(controls)
def test_scoring_adds_region_vps_and_one_reward_per_region(control: list[int]) -> None:
    """Global scoring adds each power's region VPs plus at most one reward per region."""
    s = blank()
    s.control = control
    t = tables()
    before = s.vp[:]
    expected = [0] * 4
    for r in range(len(t.regions)):
        for p in range(4):
            expected[p] += O.region_vp(s, p, r)
        owner = O.region_controller(s, r)
        if owner >= 0:
            assert O.region_count(s, owner, r) >= t.region_min[r]
            assert all(
                O.region_vp(s, owner, r) > O.region_vp(s, q, r) for q in range(4) if q != owner
            )
            expected[owner] += t.region_reward[r][owner]
    O.score_regions(s)
    assert [s.vp[p] - before[p] for p in range(4)] == expected
