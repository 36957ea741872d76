"""Audit s19: one small position per rule, asserting what the rulebook's text says."""

from __future__ import annotations

from warroom.games.ncw import effects
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots import policy
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import BLUE, CHINA, RED, Frame, NcwState
from warroom.games.ncw.tests.helpers import blank, cid, give, rid


def _china_bot_pick(name: str, state: NcwState) -> str:
    """The China bot's answer to the first country choice of its own event `name`."""
    number = next(n for n, c in tables().cards.items() if c.name == name)
    state.bots = 0b1111
    state.stack.clear()
    state.push(Frame("deploy", seat=0))
    effects.resolve_event(state, number, CHINA, CHINA)
    frame = state.top()
    assert frame is not None and frame.kind == effects.FX_COUNTRY
    ids = [i for i, _ in effects.frame_options(state, frame)]
    return policy.choose(state, CHINA, ids, commit=False)


def test_china_bot_takes_stabilized_countries_first_with_underground_great_wall() -> None:
    """Annex IV, China bot: Underground Great Wall "Stability countries first, 2"; 4.3.2.3: "China
    plays the event 'Underground Great Wall' and chooses Cameroon, which is under EU control
    and, moreover, stabilized". With Cameroon EU-held and stabilized by a blue token, the bot's
    first pick is Cameroon (before, DPR Korea, the first stability-2 country of its Asia table);
    a country the red bloc has destabilized is no stabilized country."""
    s = blank()
    s.turn = 4
    s.access[CHINA] |= 1 << rid("AFR")
    give(s, "EU", "cameroon")
    O.place_token(s, cid("cameroon"), BLUE)
    give(s, "US", "kenya")
    O.place_token(s, cid("kenya"), RED)
    assert _china_bot_pick("Underground Great Wall", s) == "pick:cameroon"
