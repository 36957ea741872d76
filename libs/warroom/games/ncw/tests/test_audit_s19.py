"""Audit s19: one small position per rule, asserting what the rulebook's text says."""

from __future__ import annotations

from warroom.games.ncw import effects, flow
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots import policy
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import BLUE, CHINA, EU, EVENT, RED, US, Frame, NcwState, Play
from warroom.games.ncw.tests.helpers import act, blank, cid, give, options, rid


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


def test_a_vetoed_event_card_plays_nothing_in_its_round_not_even_its_op_reserve() -> None:
    """4.3.3: "if a card has been played for its event and gets vetoed, the player will be unable
    to play during his round". The US plays Mubarak for its event with its OP reserve on it; the
    EU vetoes the event: the US spends no OP (before, the reserve's "then 1 OP can be played on
    any action" of 4.3.2.6 was still offered), and the reserve marker stays spent."""
    mubarak = next(n for n, c in tables().cards.items() if c.name == "Mubarak")
    s = blank()
    s.turn, s.round = 2, 0
    s.hands = [[mubarak], [], [], []]
    s.op_reserve[US] = 1
    s.stack.clear()
    s.phase, s.step = "place", 0
    flow.advance(s, flow.Ctx())
    s = act(s, US, f"{mubarak}er")
    top = s.top()
    assert top is not None and top.kind == "veto" and top.seat == EU
    s = act(s, EU, "veto:2")
    assert not any(f.kind == "ops" and f.seat == US for f in s.stack)
    assert s.op_reserve[US] == 0 and s.vp[EU] == 20 - 2
    # unvetoed, the event is executed "and then 1 OP can be played on any action" (4.3.2.6)
    s = blank()
    s.turn, s.round = 2, 0
    s.hands = [[mubarak], [], [], []]
    s.op_reserve[US] = 1
    s.stack.clear()
    s.phase, s.step = "place", 0
    flow.advance(s, flow.Ctx())
    s = act(s, US, f"{mubarak}er")
    while (top := s.top()) is not None and top.kind != "ops":
        s = act(s, top.seat, "pass" if top.kind == "veto" else options(s, top.seat)[0])
    assert top is not None and top.seat == US and top.ops == 1


def test_crisis_cards_resolve_among_themselves_by_the_tie_breaker_alone() -> None:
    """4.3.1: "Crisis cards (with no point value) are always played first. If two or more crisis
    cards are played in the same game round, they are resolved according to the tie breaker rule
    (see 4.2)." The EU's crisis card carries an OP reserve (6.6 example 7.B plays one so); the US
    leads on VPs, so its crisis card still resolves first (before, the reserve's +1 put the EU's
    first). Among other event cards a reserve still counts toward the order."""
    crises = sorted(n for n, c in tables().cards.items() if c.crisis)
    s = blank()
    s.vp = [22, 20, 20, 20]
    s.plays = [
        Play(US, crises[0], EVENT, False, order_value=0),
        Play(EU, crises[1], EVENT, True, order_value=1),
        None,
        None,
    ]
    assert flow.next_play(s) == US
    two = [n for n, c in tables().cards.items() if c.ops == 2 and not c.crisis and c.power < 0]
    s.plays = [
        Play(US, two[0], EVENT, False, order_value=2),
        Play(EU, two[1], EVENT, True, order_value=3),
        None,
        None,
    ]
    assert flow.next_play(s) == EU


def test_a_bot_follows_the_list_of_countries_on_its_card() -> None:
    """6.4: "Those event cards giving the bot instructions to change the control of specific
    countries by making +POS must follow the list of countries on the card (e.g. 21-China: New
    Arms Exporter)". China: New Arms Exporter lists Pakistan, Bangladesh, Myanmar, ...; with
    Asia under reinforced control the China bot's first pick is still Pakistan, the first listed
    (before, Myanmar: South East Asia, its first region without reinforced control, came first)."""
    s = blank()
    s.turn = 7
    give(s, "China", "dpr_korea", "india", "afghanistan", "kazakhstan", "taiwan")
    assert _china_bot_pick("China: New Arms Exporter", s) == "pick:pakistan"
