"""Tutorial 7.1 (game turn 1) played round by round through the rules, asserting the stated values."""

from __future__ import annotations

from warroom.engine.errors import IllegalOptionError
from warroom.games.ncw import flow
from warroom.games.ncw.state import BLUE, CHINA, EU, RED, RUSSIA, US, NcwState
from warroom.games.ncw.tests.helpers import RULES, act, blank, cid, give, options, rid


def _start() -> NcwState:
    s = blank()
    give(s, "China", "dpr_korea", "laos")
    give(s, "EU", "poland", "slovakia", "algeria")
    give(s, "Russia", "cuba", "caucasian_rep", "syria", "vietnam")
    give(s, "US", "panama", "colombia", "south_korea")
    hands = {
        EU: [1, 114, 110, 7],
        US: [31, 30, 36, 70],
        RUSSIA: [87, 64, 116, 109],
        CHINA: [5, 33, 111, 83],
    }
    dealt = {n for h in hands.values() for n in h}
    s.deck = [n for n in s.deck if n not in dealt]
    s.hands = [sorted(hands[p]) for p in range(4)]
    s.phase, s.step = "ally_exchange", 0
    flow.advance(s, flow.Ctx())
    return s


def _pass_vetoes(s: NcwState) -> NcwState:
    while s.stack[-1].kind == "veto":
        s = act(s, s.stack[-1].seat, "pass")
    return s


def _veto(s: NcwState, who: int, marker: str) -> NcwState:
    while s.stack[-1].seat != who:
        s = act(s, s.stack[-1].seat, "pass")
    return act(s, who, marker)


def test_tutorial_turn_one() -> None:
    """7.1: every stated VP, prestige, media and control value after each step of turn 1."""
    s = _start()
    assert s.stack[-1].kind == "exchange"
    assert "give:1" not in options(s, EU)
    for p, n in ((EU, 114), (US, 30), (RUSSIA, 87), (CHINA, 5)):
        s = act(s, p, f"give:{n}")
    assert (
        114 in s.hands[US] and 30 in s.hands[EU] and 87 in s.hands[CHINA] and 5 in s.hands[RUSSIA]
    )

    # round 1
    for p, o in ((EU, "1e"), (US, "31e"), (RUSSIA, "64e"), (CHINA, "33o")):
        s = act(s, p, o)
    assert (s.vp[CHINA], s.prestige[CHINA], s.media) == (18, -3, 1)
    s = _pass_vetoes(s)
    assert s.prestige[US] == 3 and s.media_box[US] == 1
    assert s.stack[-1].kind == "ops" and s.stack[-1].seat == RUSSIA
    for c in ("libya", "congo", "ethiopia", "somalia"):
        s = act(s, RUSSIA, f"pos:{c}")
    assert all(s.control[cid(c)] == RUSSIA for c in ("libya", "congo", "ethiopia", "somalia"))
    s = _pass_vetoes(s)
    s = act(s, CHINA, "pos:pakistan")
    assert s.control[cid("pakistan")] == CHINA
    assert s.control[cid("indonesia")] == US and s.region_vp_mod[rid("SEA") * 4 + US] == 1
    assert 64 in s.discard and {1, 31, 33} <= set(s.removed)

    # round 2
    for p, o in ((EU, "110e"), (RUSSIA, "5o"), (US, "114o"), (CHINA, "111o")):
        s = act(s, p, o)
    s = _pass_vetoes(s)
    s = act(s, EU, "pick:bulgaria")
    s = act(s, EU, "pick:romania")
    assert s.token[cid("bulgaria")] == BLUE + 1 and s.token[cid("romania")] == BLUE + 1
    s = _pass_vetoes(s)
    s = act(s, RUSSIA, "pos:brazil")
    s = act(s, RUSSIA, "reserve")
    assert s.control[cid("brazil")] == RUSSIA and s.op_reserve[RUSSIA] == 1
    assert s.vp[CHINA] == 20
    s = act(s, CHINA, "pick:indonesia")
    assert s.control[cid("indonesia")] == -1
    s = _veto(s, RUSSIA, "veto:2")
    assert s.vp[RUSSIA] == 18 and s.vetoed_this_turn[RUSSIA]
    s = act(s, US, "pos:iraq")
    s = act(s, US, "pos:yemen")
    assert s.control[cid("iraq")] == US and s.control[cid("yemen")] == US
    s = _pass_vetoes(s)
    s = act(s, CHINA, "prestige")
    assert s.prestige[CHINA] == -2
    assert s.control[cid("balkan_rep")] == EU and s.vp[EU] == 22 and s.media == 0
    assert 114 in s.discard

    # round 3
    for p, o in ((RUSSIA, "116or"), (CHINA, "87o"), (EU, "7o"), (US, "70o")):
        s = act(s, p, o)
    assert s.op_reserve[RUSSIA] == 0
    s = _pass_vetoes(s)
    assert s.stack[-1].seat == RUSSIA and s.stack[-1].ops == 2
    s = act(s, RUSSIA, "coup:iraq")
    assert s.control[cid("iraq")] == RUSSIA and s.vp[RUSSIA] == 19 and s.coups_left[RUSSIA] == 2
    assert (
        s.control[cid("algeria")] == -1
        and s.token[cid("algeria")] == RED + 1
        and s.media_box[EU] == -1
    )
    s = _pass_vetoes(s)
    s = act(s, CHINA, "pos:myanmar")
    s = act(s, CHINA, "media_reserve")
    assert s.control[cid("myanmar")] == CHINA and s.media_box[CHINA] == 1
    assert s.control[cid("belarus")] == RUSSIA and s.control[cid("kazakhstan")] == RUSSIA
    s = _veto(s, CHINA, "veto:1")
    assert s.vp[CHINA] == 19
    s = act(s, EU, "pos:romania")
    assert s.control[cid("romania")] == EU and s.token[cid("romania")] == 0
    s = _pass_vetoes(s)
    s = act(s, US, "token:yemen")
    assert s.token[cid("yemen")] == BLUE + 1
    assert s.vp[CHINA] == 18 and s.country_vp_mod[cid("india")] == -1
    assert 7 in s.discard

    # end of turn: leftovers, nothing to declare
    assert sorted(s.leftover) == [30, 36, 83, 109]
    assert s.stack[-1].kind == "declare"
    assert s.vp == [20, 22, 18, 19]
    assert RULES.invariants(s) == []


def test_crisis_card_cannot_be_vetoed_or_exchanged() -> None:
    """7.1: the EU cannot give away Tiananmen Square Massacre."""
    s = _start()
    try:
        act(s, EU, "give:1")
    except IllegalOptionError:
        return
    raise AssertionError("a crisis card was exchangeable")
