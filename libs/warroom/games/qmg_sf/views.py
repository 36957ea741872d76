"""Views and determinization: what a seat may see, and full states sampled from a view.

A view shows the board, VPs, the viewer's own hand and discard pile, hand/deck/discard
sizes, the cards each side used for play text or reactions, and Contingency cards with
the Second side shown only to their owner until it is face up. Never the opponent's
hand, deck order, cards discarded face down, or the RNG.
"""

from __future__ import annotations

from functools import cache

from warroom.engine import rng
from warroom.games.qmg_sf import codec
from warroom.games.qmg_sf.content import tables
from warroom.games.qmg_sf.state import GONE, SECOND, SfState
from warroom.games.qmg_sf.v1 import qmg_sf_pb2


def make_view(s: SfState, seat: int | None) -> qmg_sf_pb2.View:
    """The view of a seat (None: spectator)."""
    v = qmg_sf_pb2.View()
    v.public.MergeFromString(codec.public_bytes(s))
    v.viewer = -1 if seat is None else seat
    if seat is not None:
        v.hand.extend(s.hands[seat])
        v.own_discards.extend(s.discards[seat])
    v.hand_sizes.extend((len(s.hands[0]), len(s.hands[1])))
    v.deck_sizes.extend((len(s.decks[0]), len(s.decks[1])))
    v.late_sizes.extend((len(s.late[0]), len(s.late[1])))
    v.discard_sizes.extend((len(s.discards[0]), len(s.discards[1])))
    for side in (0, 1):
        v.revealed.add().values.extend(s.revealed[side])
    v.MergeFromString(_contingency_bytes(seat, tuple(sorted(s.contingency.items()))))
    return v


@cache
def _contingency_bytes(seat: int | None, states: tuple[tuple[int, int], ...]) -> bytes:
    """The Contingency part of a view (a Second side shown to its owner or once face up)."""
    t = tables()
    known = dict(states)
    v = qmg_sf_pb2.View()
    for side in (0, 1):
        for c in t.contingency_cards[side]:
            info = t.cards[c]
            st = known.get(c, GONE)
            cv = v.contingency.add()
            cv.card, cv.state = c, st
            if st == SECOND:
                cv.face_name, cv.face_text = info.second_name, info.second_text
            elif st != GONE:
                cv.face_name, cv.face_text = info.name, info.text
            if seat == side or st == SECOND:
                cv.second_name, cv.second_text = info.second_name, info.second_text
    return v.SerializeToString(deterministic=True)


def determinize(v: qmg_sf_pb2.View, seat: int, seed: int) -> SfState:
    """A full state consistent with the view, every hidden fact drawn afresh from `seed`."""
    t = tables()
    r = rng.seed_state(seed ^ 0x51F0)
    r, fresh = rng.next_u64(r)
    s = codec.public_of(v.public, fresh)
    s.hands, s.decks, s.late, s.discards = [[], []], [[], []], [[], []], [[], []]
    s.revealed = [list(x.values) for x in v.revealed]
    for side in (0, 1):
        late_cards = [c for c in t.deck_cards[side] if t.cards[c].era == "late"]
        aside = late_cards if v.late_sizes[side] else []
        s.late[side] = list(aside)
        if side == seat:
            hand = list(v.hand)
            discards = list(v.own_discards)
            known = set(hand) | set(discards) | set(aside)
            deck = [c for c in t.deck_cards[side] if c not in known]
            r = rng.shuffle(r, deck)
            s.hands[side], s.discards[side], s.decks[side] = hand, discards, deck
            continue
        revealed = list(v.revealed[side].values)
        gone = set(revealed) | set(aside)
        pool = [c for c in t.deck_cards[side] if c not in gone]
        r = rng.shuffle(r, pool)
        n_hand, n_deck = v.hand_sizes[side], v.deck_sizes[side]
        hidden_discards = v.discard_sizes[side] - len(revealed)
        s.hands[side] = pool[:n_hand]
        s.decks[side] = pool[n_hand : n_hand + n_deck]
        s.discards[side] = revealed + pool[n_hand + n_deck : n_hand + n_deck + hidden_discards]
    return s
