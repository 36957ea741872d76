"""Views and determinization.

Who can see what (rulebook "Who Can See What?", strict reading): every player sees
the board, VPs, escalation, face-up prepared Status/WMD cards, cards played face up,
and the number of cards in each hand, draw deck, face-down discard and Espionage
row. Only the owner sees its hand, its face-down Espionage cards and its own
discard pile, and nobody sees deck order. The owner also sees what its own deck
holds (sorted): every card that left it went where the owner saw it. Teammates get no more than opponents
("any information you provide to your teammate must also be provided to your
opponents").

The public part of a state's view is built once and kept on the state (states are
never changed once built); a seat's view is a copy of it plus the seat's secrets.

`determinize` deals every card the viewer cannot see so that the public facts hold:
the viewer's deck holds what its view lists, in a sampled order; another draw deck
and an opening draw hold only that player's deck colour; face-down
Espionage cards are Espionage cards; an opening draw still holds the Espionage cards
its owner must place; a player picking the Espionage card to prepare holds one.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter

from warroom.engine import rng
from warroom.games.qmg_cw.codec import frame_from_pb, frame_message
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.state import CwState, SeatState
from warroom.games.qmg_cw.v1 import qmg_cw_pb2 as pb

CARD_COUNT = len(tables().cards)
IS_ESPIONAGE: tuple[bool, ...] = tuple(c.type == "espionage" for c in tables().cards)
CARD_BLOC: tuple[int, ...] = tuple(c.bloc for c in tables().cards)
CARD_COLOUR: tuple[int, ...] = tuple(c.deck for c in tables().cards)
BLOC_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c.id for c in tables().cards if c.bloc == bloc) for bloc in range(3)
)


def public_view(state: CwState) -> pb.View:
    """The spectator's view of a state, built once per state (shared: copy it, never change it)
    and built afresh when the state was edited in place since."""
    key = _view_key(state)
    cached = state.public
    if isinstance(cached, tuple) and cached[0] == key:
        view: pb.View = cached[1]
        return view
    m = pb.View(
        variant=state.variant,
        viewer=-1,
        round=state.round,
        active=state.active,
        vp=state.vp,
        esc=state.esc,
        pieces=state.pieces,
        tokens=state.tokens,
        organic=state.organic,
        used=state.used,
        realloc=state.realloc,
        last_space=state.last_space,
        over=state.over,
        winners=state.winners,
        reason=state.reason,
        stack=[frame_message(f) for f in state.stack],
        seats=[
            pb.SeatView(
                bloc=seat.bloc,
                colour=seat.colour,
                hand_count=len(seat.hand),
                deck_count=len(seat.deck),
                discard_up=seat.discard_up,
                discard_down_count=len(seat.discard_down),
                prepared=seat.prepared,
                espionage_count=len(seat.espionage),
                opening_count=len(seat.opening),
            )
            for seat in state.seats
        ],
    )
    state.public = (key, m)
    return m


def _view_key(state: CwState) -> tuple[object, ...]:
    """What the public view shows: the decision signature plus the face-up discards and the
    result."""
    discards = tuple(tuple(seat.discard_up) for seat in state.seats)
    return (state.signature(), discards, tuple(state.winners), state.reason)


def view(state: CwState, viewer: int | None) -> pb.View:
    """What one seat (or a spectator, None) may see."""
    m = pb.View()
    m.CopyFrom(public_view(state))
    if viewer is None:
        return m
    m.viewer = viewer
    if 0 <= viewer < len(state.seats):
        seat = state.seats[viewer]
        sv = m.seats[viewer]
        sv.hand.extend(seat.hand)
        sv.espionage.extend(seat.espionage)
        sv.opening.extend(seat.opening)
        sv.discard_down.extend(seat.discard_down)
        sv.deck.extend(sorted(seat.deck))
    return m


def determinize(m: pb.View, seat: int, seed: int) -> CwState:
    """A full state consistent with the view, every hidden card and the RNG drawn afresh."""
    sampler = random.Random(seed ^ 0xC01D)
    salts = array("I", sampler.randbytes(4 * CARD_COUNT))
    views = list(m.seats)
    seats = [
        SeatState(sv.bloc, sv.colour, discard_up=list(sv.discard_up), prepared=list(sv.prepared))
        for sv in views
    ]
    if 0 <= seat < len(seats):
        mine = views[seat]
        seats[seat].hand = list(mine.hand)
        seats[seat].espionage = list(mine.espionage)
        seats[seat].opening = list(mine.opening)
        seats[seat].discard_down = list(mine.discard_down)
        seats[seat].deck = sorted(mine.deck, key=salts.__getitem__)
    stack = [frame_from_pb(f) for f in m.stack]
    opening = bool(stack) and stack[0].kind == "open"
    hand_spies = [0] * len(seats)
    if stack and stack[-1].kind == "esp_pick" and 0 <= stack[-1].owner < len(seats):
        hand_spies[stack[-1].owner] = 1
    for bloc in range(3):
        members = [i for i, s in enumerate(seats) if s.bloc == bloc]
        if not members:
            continue
        known: set[int] = set()
        for i in members:
            s = seats[i]
            known.update(s.discard_up, s.prepared)
            if i == seat:
                known.update(s.hand, s.espionage, s.opening, s.discard_down, s.deck)
        if len(members) == 1 and members[0] == seat:
            continue
        unknown = [c for c in BLOC_CARDS[bloc] if c not in known]
        unknown.sort(key=salts.__getitem__)
        if opening:
            _deal_opening(views, seats, members, seat, unknown)
        else:
            _deal_midgame(views, seats, members, seat, unknown, hand_spies)
    salt = rng.seed_state(sampler.getrandbits(64))
    return CwState(
        m.variant,
        seats,
        salt,
        m.round,
        m.active,
        list(m.vp),
        list(m.esc),
        list(m.pieces),
        list(m.tokens),
        list(m.organic),
        list(m.used),
        m.realloc,
        m.last_space,
        stack,
        m.over,
        list(m.winners),
        m.reason,
    )


def _first(cards: list[int], count: int, spy: bool, colour: int = -1) -> list[int]:
    """The first `count` cards (Espionage cards if `spy`; of this deck colour unless -1)."""
    out: list[int] = []
    if count <= 0:
        return out
    for c in cards:
        if (not spy or IS_ESPIONAGE[c]) and (colour < 0 or CARD_COLOUR[c] == colour):
            out.append(c)
            if len(out) == count:
                break
    return out


def _without(cards: list[int], taken: list[int]) -> list[int]:
    """The cards not taken, in order."""
    if not taken:
        return cards
    gone = set(taken)
    return [c for c in cards if c not in gone]


def _deal_opening(
    views: list[pb.SeatView],
    seats: list[SeatState],
    members: list[int],
    viewer: int,
    cards: list[int],
) -> None:
    """Before the first turn every card of a player is of its own deck colour, and an
    unfinished opening draw still holds the Espionage cards its owner must place."""
    teamed = len(members) > 1
    for i in members:
        if i == viewer:
            continue
        sv = views[i]
        mine = [c for c in cards if CARD_COLOUR[c] == sv.colour] if teamed else cards
        s = seats[i]
        s.espionage = _first(mine, sv.espionage_count, True)
        mine = _without(mine, s.espionage)
        must = (1 if teamed else 2) - sv.espionage_count if sv.opening_count else 0
        spies = _first(mine, must, True)
        mine = _without(mine, spies)
        rest = sv.opening_count - len(spies)
        s.opening, mine = spies + mine[:rest], mine[rest:]
        s.hand, mine = mine[: sv.hand_count], mine[sv.hand_count :]
        s.discard_down, mine = mine[: sv.discard_down_count], mine[sv.discard_down_count :]
        s.deck = mine[: sv.deck_count]


def _deal_midgame(
    views: list[pb.SeatView],
    seats: list[SeatState],
    members: list[int],
    viewer: int,
    cards: list[int],
    hand_spies: list[int],
) -> None:
    """Espionage zones (and a hand that must hold an Espionage card) first, leaving each
    deck colour enough cards for its draw deck; then the decks; then hands and discards."""
    teamed = len(members) > 1
    others = [i for i in members if i != viewer]
    needs = [(i, views[i].espionage_count, min(hand_spies[i], views[i].hand_count)) for i in others]
    total = sum(row + held for _, row, held in needs)
    held_spies: dict[int, list[int]] = {}
    if total:
        if teamed:
            slack = Counter(map(CARD_COLOUR.__getitem__, cards))
            for i in others:
                slack[views[i].colour] -= views[i].deck_count
            spies: list[int] = []
            for c in cards:
                if IS_ESPIONAGE[c] and slack[CARD_COLOUR[c]] > 0:
                    spies.append(c)
                    slack[CARD_COLOUR[c]] -= 1
                    if len(spies) == total:
                        break
        else:
            spies = _first(cards, total, True)
        cards = _without(cards, spies)
        for i, row, held in needs:
            seats[i].espionage, spies = spies[:row], spies[row:]
            held_spies[i], spies = spies[:held], spies[held:]
    if teamed:
        for i in others:
            sv = views[i]
            seats[i].deck = _first(cards, sv.deck_count, False, sv.colour)
            cards = _without(cards, seats[i].deck)
    for i in others:
        sv = views[i]
        s = seats[i]
        if not teamed:
            s.deck, cards = cards[: sv.deck_count], cards[sv.deck_count :]
        kept = held_spies.get(i, [])
        count = sv.hand_count - len(kept)
        s.hand, cards = kept + cards[:count], cards[count:]
        s.discard_down, cards = cards[: sv.discard_down_count], cards[sv.discard_down_count :]
        s.opening, cards = cards[: sv.opening_count], cards[sv.opening_count :]
