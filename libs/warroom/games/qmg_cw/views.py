"""Views and determinization.

Who can see what (rulebook "Who Can See What?", strict reading): every player sees
the board, VPs, escalation, face-up prepared Status/WMD cards, cards played face up,
and the number of cards in each hand, draw deck, face-down discard and Espionage
row. Only the owner sees its hand, its face-down Espionage cards and its own
discard pile, and nobody sees deck order. Teammates get no more than opponents
("any information you provide to your teammate must also be provided to your
opponents").
"""

from __future__ import annotations

import random

from warroom.engine import rng
from warroom.games.qmg_cw.codec import frame_from_pb, frame_message
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.setup import seat_cards
from warroom.games.qmg_cw.state import CwState, SeatState
from warroom.games.qmg_cw.v1 import qmg_cw_pb2 as pb

CARD_COUNT = len(tables().cards)
ESPIONAGE: frozenset[int] = frozenset(c.id for c in tables().cards if c.type == "espionage")


def view(state: CwState, viewer: int | None) -> pb.View:
    """What one seat (or a spectator, None) may see."""
    m = pb.View(
        variant=state.variant,
        viewer=-1 if viewer is None else viewer,
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
    )
    for index, seat in enumerate(state.seats):
        sv = pb.SeatView(
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
        if index == viewer:
            sv.hand.extend(seat.hand)
            sv.espionage.extend(seat.espionage)
            sv.opening.extend(seat.opening)
            sv.discard_down.extend(seat.discard_down)
        m.seats.append(sv)
    return m


def determinize(m: pb.View, seat: int, seed: int) -> CwState:
    """A full state consistent with the view, every hidden card and the RNG drawn afresh."""
    sampler = random.Random(seed ^ 0xC01D)
    rnd = sampler.random
    salts = [rnd() for _ in range(CARD_COUNT)]
    seats = [SeatState(sv.bloc, sv.colour) for sv in m.seats]
    for index, sv in enumerate(m.seats):
        seats[index].discard_up = list(sv.discard_up)
        seats[index].prepared = list(sv.prepared)
    if 0 <= seat < len(seats):
        mine = m.seats[seat]
        seats[seat].hand = list(mine.hand)
        seats[seat].espionage = list(mine.espionage)
        seats[seat].opening = list(mine.opening)
        seats[seat].discard_down = list(mine.discard_down)
    for bloc in range(3):
        members = [i for i, s in enumerate(seats) if s.bloc == bloc]
        known: set[int] = set()
        for i in members:
            s = seats[i]
            known |= set(s.discard_up) | set(s.prepared)
            if i == seat:
                known |= set(s.hand) | set(s.espionage) | set(s.opening) | set(s.discard_down)
        pool = [c for c in seat_cards(bloc, -1) if c not in known]
        pool.sort(key=salts.__getitem__)
        spies = [c for c in pool if c in ESPIONAGE]
        taken: set[int] = set()
        for i in members:
            if i == seat:
                continue
            need = m.seats[i].espionage_count
            seats[i].espionage, spies = spies[:need], spies[need:]
            taken.update(seats[i].espionage)
        if taken:
            pool = [c for c in pool if c not in taken]
        for i in members:
            sv = m.seats[i]
            s = seats[i]
            if i != seat:
                s.hand, pool = pool[: sv.hand_count], pool[sv.hand_count :]
                s.opening, pool = pool[: sv.opening_count], pool[sv.opening_count :]
                s.discard_down, pool = pool[: sv.discard_down_count], pool[sv.discard_down_count :]
        for i in members:
            count = m.seats[i].deck_count
            seats[i].deck, pool = pool[:count], pool[count:]
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
        [frame_from_pb(f) for f in m.stack],
        m.over,
        list(m.winners),
        m.reason,
    )
