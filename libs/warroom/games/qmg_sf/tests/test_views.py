"""Views hide the opponent's hand, face-down discards, deck order and face-down Second sides;
determinize samples every hidden fact afresh."""

from __future__ import annotations

from warroom.games.qmg_sf.state import ALLIES, AXIS, SfState
from warroom.games.qmg_sf.tests.helpers import RULES, act
from warroom.games.qmg_sf.v1 import qmg_sf_pb2


def started() -> SfState:
    """A standard game after both players keep their hands."""
    s = RULES.setup(11, "standard", {})
    return act(act(s, "keep"), "keep")


def test_view_hides_opponent_hand_and_decks() -> None:
    """A seat sees its own hand, only the size of the other's, and no deck contents."""
    s = started()
    v = RULES.view(s, AXIS)
    assert isinstance(v, qmg_sf_pb2.View)
    assert list(v.hand) == s.hands[AXIS]
    assert list(v.hand_sizes) == [5, 5]
    text = str(v)
    assert "decks" not in text and "rng" not in text
    spectator = RULES.view(s, None)
    assert isinstance(spectator, qmg_sf_pb2.View) and list(spectator.hand) == []


def test_face_down_discards_stay_hidden() -> None:
    """Cards discarded for Conscription are not shown to the opponent, only counted."""
    s = started()
    s = act(s, "done")
    s = act(s, "cons1.0")
    card = s.hands[AXIS][0]
    s = act(s, f"d{card}")
    v = RULES.view(s, ALLIES)
    assert isinstance(v, qmg_sf_pb2.View)
    assert card not in v.revealed[AXIS].values and v.discard_sizes[AXIS] == 1
    own = RULES.view(s, AXIS)
    assert isinstance(own, qmg_sf_pb2.View) and card in own.own_discards


def test_contingency_second_side_only_to_owner() -> None:
    """The face-down Second side of a Contingency card is shown to its owner only."""
    s = started()
    own = RULES.view(s, AXIS)
    other = RULES.view(s, ALLIES)
    assert isinstance(own, qmg_sf_pb2.View) and isinstance(other, qmg_sf_pb2.View)
    mine = {c.card: c for c in own.contingency}
    theirs = {c.card: c for c in other.contingency}
    assert mine[70].second_name == "Balkan Garrison"
    assert theirs[70].second_name == "" and theirs[70].face_name == "Bulgaria Signs Pact"


def test_determinize_reproduces_view_and_samples_afresh() -> None:
    """A determinization keeps the seat's view; the opponent's hand differs between seeds."""
    s = started()
    v = RULES.view(s, ALLIES)
    hands = set()
    for seed in range(8):
        d = RULES.determinize(v, ALLIES, seed)
        assert RULES.view(d, ALLIES) == v
        assert RULES.view(d, None) == RULES.view(s, None)
        assert d.hands[ALLIES] == s.hands[ALLIES]
        assert RULES.invariants(d) == []
        hands.add(tuple(sorted(d.hands[AXIS])))
    assert len(hands) > 1
    assert d.rng != s.rng
