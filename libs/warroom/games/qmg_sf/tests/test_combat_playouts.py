"""Combat-heavy seeded games: a policy that prefers attacks and reactions, checked at every
third step like the harness (no input mutation, encoding, views, determinization, undo)."""

from __future__ import annotations

import pytest

from warroom.engine.match import Match, MatchState
from warroom.engine.rng import Rng
from warroom.games.qmg_sf.state import SfState
from warroom.games.qmg_sf.tests.helpers import RULES

AGGRESSIVE = ("play", "ct", "da", "a", "sa", "nc", "aa", "sf", "ex", "rt", "wn", "adv", "war")


def _pick(rng: Rng, options: list[str]) -> str:
    preferred = [o for o in options if o.startswith(AGGRESSIVE)]
    if preferred and rng.random() < 0.85:
        return rng.choice(preferred)
    if "done" in options and rng.random() < 0.4:
        return "done"
    return rng.choice(options)


def _check(match: Match[SfState], state: MatchState[SfState], rng: Rng) -> None:
    game = state.game
    before = RULES.encode_bytes(game)
    assert RULES.invariants(game) == []
    assert RULES.encode_bytes(RULES.decode_bytes(before)) == before
    public = RULES.view(game, None)
    for seat in (0, 1):
        view = RULES.view(game, seat)
        sampled = RULES.determinize(view, seat, rng.below(1 << 60))
        assert RULES.view(sampled, seat) == view
        assert RULES.view(sampled, None) == public
    assert state.pending is not None
    for seat in state.pending.seats:
        options = list(state.pending.options_for(seat))
        rng.shuffle(options)
        for option in options[:4]:
            step = match.apply(state, seat, option.id)
            assert RULES.encode_bytes(game) == before
            if option.id == "undo" and state.previous is not None:
                assert RULES.encode_bytes(step.state.game) == RULES.encode_bytes(
                    state.previous.game
                )


@pytest.mark.parametrize("seed", range(4))
def test_combat_heavy_playout(seed: int) -> None:
    """The game ends; combats, reactions and Advance! happen; every check passes."""
    match = Match(RULES)
    rng = Rng(seed + 77)
    state = match.start(seed, "standard", {})
    kinds: set[str] = set()
    steps = 0
    while state.pending is not None:
        if steps % 3 == 0:
            _check(match, state, rng)
        kinds.add(state.pending.kind)
        seat = state.pending.seats[0]
        ids = [o.id for o in state.pending.options_for(seat)]
        plain = [i for i in ids if i != "undo"]
        option = "undo" if "undo" in ids and rng.random() < 0.1 else _pick(rng, plain)
        state = match.apply(state, seat, option).state
        steps += 1
        assert steps < 20_000
    assert RULES.result(state.game) is not None
    assert {"c_def", "c_cont"} & kinds
