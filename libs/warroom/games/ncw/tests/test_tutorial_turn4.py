"""Tutorial 7.2 (game turn 4) from its stated position, asserting the stated values step by step."""

from __future__ import annotations

from warroom.games.ncw import flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import CHINA, EU, RED, RUSSIA, US, VETO_1, VETO_2, VETO_EXTRA, NcwState
from warroom.games.ncw.tests.helpers import RULES, act, blank, cid, give, rid

REMOVED = [
    1,
    3,
    5,
    4,
    8,
    109,
    111,
    112,
    113,
    87,
    88,
    89,
    28,
    30,
    115,
    116,
    59,
    61,
    63,
    82,
    83,
    85,
    86,
    31,
    34,
    37,
    38,
    33,
    110,
    70,
]


def _position() -> NcwState:
    t = tables()
    s = blank()
    give(
        s,
        "EU",
        "balkan_rep",
        "poland",
        "czech_rep",
        "slovakia",
        "bulgaria",
        "dominican_rep",
        "algeria",
        "mauritania",
        "mali",
        "niger",
        "chad",
        "sudan",
    )
    give(
        s,
        "US",
        "turkey",
        "japan",
        "mexico",
        "peru",
        "israel",
        "iraq",
        "egypt",
        "jordan",
        "saudi_arabia",
    )
    give(
        s,
        "Russia",
        "caucasian_rep",
        "ukraine",
        "belarus",
        "kazakhstan",
        "brazil",
        "venezuela",
        "ecuador",
        "bolivia",
        "uruguay",
        "libya",
        "zimbabwe",
        "iran",
        "syria",
        "lebanon",
        "yemen",
    )
    give(
        s,
        "China",
        "india",
        "pakistan",
        "dpr_korea",
        "afghanistan",
        "bangladesh",
        "indonesia",
        "laos",
        "myanmar",
    )
    s.vp, s.prestige, s.media = [24, 25, 21, 24], [2, 2, -1, -3], 2
    s.vetoes[EU] &= ~VETO_2
    s.vetoes[US] &= ~VETO_1
    s.vetoes[RUSSIA] &= ~VETO_EXTRA
    ids = [x.id for x in t.subregions]
    s.subregion_claimed[ids.index("indian_subcontinent")] = CHINA
    s.subregion_claimed[ids.index("sahel")] = EU
    s.access[EU] |= 1 << rid("CAM")
    s.turn = 4
    hands = {
        EU: [39, 114, 12, 16],
        US: [41, 40, 99, 75],
        RUSSIA: [6, 64, 126, 119],
        CHINA: [35, 10, 11, 98],
    }
    s.removed = [n for n in REMOVED if n in t.cards]
    s.leftover = [32, 36, 55, 56]
    used = set(s.removed) | set(s.leftover) | {n for h in hands.values() for n in h}
    s.deck = [n for d in (0, 1) for n in t.decade_cards[d] if n not in used]
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


def test_tutorial_turn_four() -> None:
    """7.2: the exchanges, rounds 1-3, the Korean Peninsula claim at turn end, and turn 5 dealt."""
    s = _position()
    assert RULES.invariants(s) == []
    for p, n in ((EU, 114), (US, 40), (CHINA, 11), (RUSSIA, 119)):
        s = act(s, p, f"give:{n}")
    # round 1
    for p, o in ((EU, "39e"), (CHINA, "10e"), (RUSSIA, "6o"), (US, "114o")):
        s = act(s, p, o)
    assert (s.prestige[US], s.vp[US]) == (-1, 22)
    assert s.token[cid("saudi_arabia")] == RED + 1
    s = _pass_vetoes(s)
    s = act(s, CHINA, "pick:nigeria")
    s = act(s, CHINA, "pick:angola")
    assert s.access[CHINA] >> rid("AFR") & 1
    assert s.control[cid("nigeria")] == CHINA and s.control[cid("angola")] == CHINA
    s = _pass_vetoes(s)
    s = act(s, RUSSIA, "prestige")
    s = act(s, RUSSIA, "reserve")
    assert s.prestige[RUSSIA] == -2 and s.op_reserve[RUSSIA] == 1
    s = act(s, CHINA, "pick:cambodia")
    assert s.token[cid("japan")] == RED + 1 and s.token[cid("south_korea")] == RED + 1
    assert s.control[cid("cambodia")] == CHINA
    s = _pass_vetoes(s)
    s = act(s, US, "pos:panama")
    assert s.control[cid("panama")] == US
    s = act(s, EU, "pick:haiti")
    s = act(s, EU, "pick:paraguay")
    assert s.control[cid("haiti")] == EU and s.access[EU] >> rid("SAM") & 1
    assert 114 in s.discard
    # round 2
    for p, o in ((EU, "40o"), (RUSSIA, "64o"), (US, "75o"), (CHINA, "98o")):
        s = act(s, p, o)
    s = _veto(s, CHINA, "veto:2")
    assert s.vp[CHINA] == 19
    s = act(s, EU, "token:libya")
    s = act(s, EU, "reserve")
    assert s.token[cid("libya")] == 1 and s.op_reserve[EU] == 1
    s = act(s, RUSSIA, "coup:iraq")
    assert s.control[cid("iraq")] == RUSSIA and s.vp[RUSSIA] == 25
    s = _pass_vetoes(s)
    s = act(s, US, "media_reserve")
    assert s.media_box[US] == 1 and s.control[cid("nigeria")] == -1
    s = _veto(s, RUSSIA, "veto:1")
    assert s.vp[RUSSIA] == 24
    s = act(s, CHINA, "media_reserve")
    assert s.media_box[CHINA] == 1
    assert RULES.invariants(s) == []
    # round 3
    for p, o in ((US, "41e"), (CHINA, "35o"), (EU, "16or"), (RUSSIA, "126o")):
        s = act(s, p, o)
    s = _pass_vetoes(s)
    assert s.control[cid("afghanistan")] == US and s.control[cid("iraq")] == US
    assert s.vp[US] == 24 and s.media == 1
    s = _pass_vetoes(s)
    s = act(s, CHINA, "pos:south_korea")
    assert s.control[cid("south_korea")] == CHINA and s.token[cid("south_korea")] == 0
    # 7.2 round 3, step 2 (cont.): the US event of US Military Bases follows China's OPs
    assert [s.control[cid(c)] for c in ("thailand", "malaysia", "honduras")] == [US, US, US]
    assert s.vp == [24, 25, 19, 24] and s.media == 1
    # step 3: the EU's Uighur Conflict + OP reserve (2 OPs) ties Russia's 2; the EU leads on VPs
    assert s.stack[-1].kind == "veto" and s.stack[-1].card == 16
    s = _pass_vetoes(s)
    frame = s.stack[-1]
    assert (frame.kind, frame.seat, frame.card, frame.ops) == ("ops", EU, 16, 2)
    assert s.token[cid("libya")] == 1 and s.control[cid("libya")] == RUSSIA
    assert O.coup_cost(s, EU, cid("libya")) == 2
    s = act(s, EU, "coup:libya")
    assert s.control[cid("libya")] == EU and s.token[cid("libya")] == 0
    assert s.vp[EU] == 27
    assert s.media == 2  # the negative China event: media to 2 blue
    # step 4: Russia's European Migration Crisis, an EU negative card, at its lower value (1 OP)
    s = _pass_vetoes(s)
    frame = s.stack[-1]
    assert (frame.kind, frame.seat, frame.card, frame.ops) == ("ops", RUSSIA, 126, 1)
    s = act(s, RUSSIA, "pos:iraq")
    assert s.control[cid("iraq")] == -1
    mea = tables().country_region[cid("iraq")]
    assert O.region_vp(s, US, mea) == O.region_vp(s, RUSSIA, mea) == 5
    assert s.media == 1 and s.vp[EU] == 26
    # end of turn: unplayed cards to the leftover pile, China claims the Korean Peninsula (+4 -> 23)
    assert s.stack[-1].kind == "declare"
    assert s.leftover == [32, 36, 55, 56, 99, 12, 119, 11]
    korea = [x.id for x in tables().subregions].index("korean_peninsula")
    assert s.subregion_claimed[korea] == CHINA
    assert s.vp == [24, 26, 23, 24] and s.prestige == [-1, 2, -1, -2] and s.media == 1
    assert s.op_reserve[RUSSIA] == 1
    for p in (US, EU, CHINA, RUSSIA):
        s = act(s, p, "pass")
    # turn 5: a third objective for everyone, and the Russian OP reserve still held
    assert s.turn == 5 and [len(o) for o in s.objectives] == [3, 3, 3, 3]
    assert s.op_reserve[RUSSIA] == 1 and s.vp == [24, 26, 23, 24]
    assert RULES.invariants(s) == []
