"""The `ncw-official` chooser reads only what its seat may see.

Along a 4-player game played by the official bots, every answer other than the bot's random
card must be the same on two determinizations of the seat's view (hidden facts sampled afresh)
as on the true state, and the chooser must never change the state it is given.
"""

from __future__ import annotations

import pytest

from warroom.games.ncw.bots.policy import choose_option
from warroom.games.ncw.rules import NewColdWarRules

RULES = NewColdWarRules()


@pytest.mark.parametrize("seed", range(2))
def test_answers_depend_only_on_the_seats_view(seed: int) -> None:
    state = RULES.setup(seed, "4p", {})
    checked = 0
    while (decision := RULES.decision(state)) is not None:
        seat = decision.seats[0]
        before = RULES.encode_bytes(state)
        answer = choose_option(state, seat, decision)
        assert RULES.encode_bytes(state) == before
        if (
            decision.kind not in ("place", "keep", "exchange", "leftover", "declare")
            and checked < 150
        ):
            view = RULES.view(state, seat)
            for sample in (1, 2):
                world = RULES.determinize(view, seat, seed * 100 + sample)
                assert choose_option(world, seat, decision) == answer, decision.kind
            checked += 1
        state = RULES.apply(state, seat, answer).state
    assert checked > 20
