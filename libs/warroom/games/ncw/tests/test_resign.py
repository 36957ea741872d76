"""The resign hook: the resigning power alone ranks last; the others rank as at the end."""

from __future__ import annotations

from warroom.engine.match import Match
from warroom.games.ncw import flow
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import CHINA, EU, RUSSIA, US, NcwState


def _state(vp: list[int], prestige: list[int], media: int = 0) -> NcwState:
    s = flow.new_state(3, "4p")
    s.vp = list(vp)
    s.prestige = list(prestige)
    s.media = media
    return s


def test_resigning_power_ranks_last_and_its_ally_keeps_its_place() -> None:
    result = NewColdWarRules().resign(_state([12, 5, 9, 9], [0, 0, 2, 1]), EU)
    assert result.winners == frozenset({US}), "the ally of the resigning power can still win"
    assert dict(result.ranks) == {US: 0, CHINA: 1, RUSSIA: 2, EU: 3}
    assert dict(result.scores) == {US: 12.0, EU: 5.0, CHINA: 9.0, RUSSIA: 9.0}
    assert result.reason == "resignation"


def test_ties_break_by_prestige_then_media_and_full_ties_share_the_win() -> None:
    # China and Russia tie on VP and prestige; the media track leans to red (negative = red)
    result = NewColdWarRules().resign(_state([3, 4, 9, 9], [1, 1, 2, 2], media=-2), US)
    assert result.winners == frozenset({CHINA, RUSSIA})
    assert dict(result.ranks) == {CHINA: 0, RUSSIA: 0, EU: 1, US: 2}
    # VP first: the resigning leader still ranks last
    leader = NewColdWarRules().resign(_state([20, 4, 9, 8], [0, 0, 0, 5]), US)
    assert leader.ranks[US] == 3 and leader.winners == frozenset({CHINA})
    assert dict(leader.ranks) == {CHINA: 0, RUSSIA: 1, EU: 2, US: 3}


def test_resign_on_a_started_match() -> None:
    rules = NewColdWarRules()
    state = Match(rules).start(11, "4p", {})
    result = rules.resign(state.game, RUSSIA)
    assert result.ranks[RUSSIA] == 3
    assert RUSSIA not in result.winners and result.winners
    assert set(result.ranks) == {US, EU, CHINA, RUSSIA}
