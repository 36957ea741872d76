"""Turn 1's four cards are dealt before the initial deployment (3.4, 3.5, 4.1, 7.1; core ruling 21).

7.1: "As at the beginning of any game turn, there are four cards dealt to each player: ..."
and "After the cards are dealt, it's time for the initial deployment." The objectives come
first (3.5: "After examining their objective cards, each player proceeds to make their
initial deployment"); turn 1 then goes on with its Initial Phase (4.1), the deal not repeated.
"""

from __future__ import annotations

import pytest

from warroom.games.ncw import flow
from warroom.games.ncw.bots import hooks
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import CHINA, EU, POWERS, RUSSIA, US, NcwState
from warroom.games.ncw.tests.helpers import RULES, act, cid, options

# 7.1's turn-1 hands and its chosen deployments (China has one option, placed without a choice).
TUTORIAL_HANDS = {
    EU: [1, 114, 110, 7],
    US: [31, 30, 36, 70],
    RUSSIA: [87, 64, 116, 109],
    CHINA: [5, 33, 111, 83],
}
TUTORIAL_DEPLOYMENTS = ((US, "B"), (EU, "A"), (RUSSIA, "A"))


def _keep_objectives(s: NcwState) -> NcwState:
    """Every power keeps its first two offered objectives (3.4)."""
    frame = s.top()
    assert frame is not None and frame.kind == "keep"
    for p in range(4):
        if frame.mask >> p & 1:
            s = act(s, p, options(s, p)[-1])
    return s


def _stacked_setup(hands: dict[int, list[int]]) -> NcwState:
    """A new 4-player game whose deck is stacked so that turn 1 deals `hands` (US first)."""
    s = flow.new_state(0, "4p")
    hooks.on_setup(s, {})
    dealt = [n for p in range(4) for n in sorted(hands[p])]
    rest = [n for n in s.deck if n not in set(dealt)]
    s.deck = rest + dealt[::-1]
    flow.advance(s, flow.Ctx())
    return s


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_power_holds_four_cards_at_the_first_deployment_decision(seed: int) -> None:
    """3.5 + 7.1: the objectives are chosen, then four cards dealt, then the US deploys."""
    s = _keep_objectives(RULES.setup(seed, "4p", {}))
    frame = s.top()
    assert frame is not None and (frame.kind, frame.seat) == ("deploy", US)
    assert [len(h) for h in s.hands] == [tables().setup.hand_size] * 4
    assert all(len(s.objectives[p]) == 2 and not s.objective_offer[p] for p in range(4))
    assert len(s.deck) == len(tables().decade_cards[0]) - 16
    for p in range(4):
        assert list(RULES.view(s, p).hand) == s.hands[p]  # type: ignore[attr-defined]


@pytest.mark.parametrize("variant", ["2p-us-russia", "solitaire-eu", "3p-bot-china"])
def test_bot_variants_deal_before_the_human_deployment(variant: str) -> None:
    """6.8-6.10: the variants' turn-1 hands (humans and bots) are dealt before any deployment."""
    s = RULES.setup(7, variant, {})
    if (frame := s.top()) is not None and frame.kind == "keep":
        s = _keep_objectives(s)
    frame = s.top()
    assert frame is not None and frame.kind == "deploy"
    assert s.turn == 1
    for p in range(4):
        assert len(s.hands[p]) == hooks.hand_size(s, p), POWERS[p]


def test_the_initial_phase_follows_the_deployment_with_the_same_hands() -> None:
    """4.1: after the deployment turn 1's Initial Phase (allied exchange) uses the dealt cards."""
    s = _keep_objectives(RULES.setup(11, "4p", {}))
    hands, deck = [list(h) for h in s.hands], list(s.deck)
    for p, letter in TUTORIAL_DEPLOYMENTS:
        frame = s.top()
        assert frame is not None and (frame.kind, frame.seat) == ("deploy", p)
        assert s.hands == hands
        s = act(s, p, letter)
    frame = s.top()
    assert frame is not None and frame.kind == "exchange" and frame.mask == 0b1111
    assert (s.turn, s.round) == (1, 0)
    assert s.hands == hands and s.deck == deck
    assert s.coups_left == [tables().setup.coups_per_turn] * 4


def test_the_tutorial_deals_then_deploys_then_exchanges() -> None:
    """7.1's stated flow: its four hands dealt, its deployments made, then its exchange."""
    s = _keep_objectives(_stacked_setup(TUTORIAL_HANDS))
    assert s.hands == [sorted(TUTORIAL_HANDS[p]) for p in range(4)]
    events: list[str] = []
    for p, letter in TUTORIAL_DEPLOYMENTS:
        applied = RULES.apply(s, p, letter)
        events.extend(e.text for e in applied.events)
        s = applied.state
    deployed = [line for line in events if " deploys option " in line]
    assert deployed == [
        "US deploys option B",
        "EU deploys option A",
        "China deploys option A",
        "Russia deploys option A",
    ]
    for name in ("panama", "colombia", "south_korea"):
        assert s.control[cid(name)] == US
    assert s.control[cid("dpr_korea")] == s.control[cid("laos")] == CHINA
    assert s.top() is not None and s.top().kind == "exchange"  # type: ignore[union-attr]
    assert "give:1" not in options(s, EU)
    for p, n in ((EU, 114), (US, 30), (RUSSIA, 87), (CHINA, 5)):
        s = act(s, p, f"give:{n}")
    assert 114 in s.hands[US] and 30 in s.hands[EU] and 87 in s.hands[CHINA]
    assert 5 in s.hands[RUSSIA] and all(len(h) == 4 for h in s.hands)
    assert RULES.invariants(s) == []


def test_the_deal_is_logged_before_the_deployment() -> None:
    """7.1: "After the cards are dealt, it's time for the initial deployment"."""
    s = RULES.setup(5, "4p", {})
    frame = s.top()
    assert frame is not None
    events: list[str] = []
    for p in range(4):
        applied = RULES.apply(s, p, options(s, p)[0])
        events.extend(e.text for e in applied.events)
        s = applied.state
    assert "Turn 1 begins" in events
    assert not any(" deploys option " in line for line in events)


def test_the_turn_one_deal_is_the_step_no_undo_crosses() -> None:
    """The deal reveals cards: the last objective choice that triggers it is irreversible."""
    s = RULES.setup(9, "4p", {})
    for p in range(3):
        assert not RULES.apply(s, p, options(s, p)[0]).irreversible
        s = RULES.apply(s, p, options(s, p)[0]).state
    applied = RULES.apply(s, RUSSIA, options(s, RUSSIA)[0])
    assert applied.irreversible
    s = applied.state
    for p, letter in TUTORIAL_DEPLOYMENTS:
        applied = RULES.apply(s, p, letter)
        assert not applied.irreversible
        s = applied.state
    assert s.top() is not None and s.top().kind == "exchange"  # type: ignore[union-attr]
