"""The fitted odds (`odds.py`) and the search's value built on them (`evaluate_with_odds`)."""

from __future__ import annotations

import pytest

from warroom.games.qmg_cw import heuristic, odds
from warroom.games.qmg_cw.rules import ColdWarRules

RULES = ColdWarRules()
SOVIET, WESTERN, NON_ALIGNED = 0, 1, 2


def test_the_chances_sum_to_one_and_rise_with_a_blocs_standing() -> None:
    """Three chances summing to 1; more standing, more chance, at the others' expense."""
    before = odds.win_chances([100.0, 100.0, 100.0], 9)
    after = odds.win_chances([105.0, 100.0, 100.0], 9)
    assert sum(before) == pytest.approx(1.0) and sum(after) == pytest.approx(1.0)
    assert after[SOVIET] > before[SOVIET]
    assert after[WESTERN] < before[WESTERN] and after[NON_ALIGNED] < before[NON_ALIGNED]


def test_a_lead_counts_for_more_as_the_rounds_run_out() -> None:
    """The same 6-point lead is a near-certain win in round 19 and far from one in round 1."""
    early = odds.win_chances([106.0, 100.0 + 15.0, 100.0], 1)[SOVIET]
    late = odds.win_chances([106.0, 100.0 + 6.0, 100.0], 19)[SOVIET]
    assert late > 0.5 > early
    assert odds.win_chances([106.0, 90.0, 100.0], 19)[SOVIET] > 0.9
    assert odds.win_chances([106.0, 90.0, 100.0], 1)[SOVIET] < 0.6


def test_at_equal_standings_the_western_bloc_is_the_least_likely_to_win() -> None:
    """The fit's offsets: equal standings favour both other Blocs over the Western Bloc in
    every round, and the Soviet Bloc over the Non-Aligned Bloc from round 3."""
    for round_ in range(1, 20):
        soviet, western, non_aligned = odds.win_chances([120.0] * 3, round_)
        assert western < min(soviet, non_aligned)
        assert (soviet > non_aligned) == (round_ >= 3)


def test_both_trailing_rivals_count_where_the_lead_over_the_best_ignored_the_second() -> None:
    """Lowering the second of two close rivals lowers nothing in the older value (the lead
    over the best other Bloc) and raises the Bloc's fitted chance."""
    s = [110.0, 120.0, 121.0]
    lowered = [110.0, 118.0, 121.0]
    lead = [s[SOVIET] - max(s[1:]), lowered[SOVIET] - max(lowered[1:])]
    assert lead[0] == lead[1]
    assert odds.win_chances(lowered, 12)[SOVIET] > odds.win_chances(s, 12)[SOVIET]


def test_the_search_scores_three_player_games_by_the_odds_and_team_games_as_before() -> None:
    """`evaluate_with_odds` is the Bloc's fitted chance in a three-player game (the three
    seats' values sum to 1) and `evaluate_with_draws` in a team game."""
    state = RULES.setup(5, "3p", {})
    values = [heuristic.evaluate_with_odds(state, seat) for seat in range(3)]
    assert sum(values) == pytest.approx(1.0)
    settled = heuristic.settle(state)
    standing = heuristic.standings(settled, draws=True)
    expected = odds.win_chances(standing, settled.round)
    assert values == pytest.approx([expected[state.seats[s].bloc] for s in range(3)])
    team = RULES.setup(5, "4p", {})
    assert [heuristic.evaluate_with_odds(team, s) for s in range(4)] == [
        heuristic.evaluate_with_draws(team, s) for s in range(4)
    ]
