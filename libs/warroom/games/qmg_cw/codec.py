"""The protobuf codec of the full state (qmg_cw.v1.State)."""

from __future__ import annotations

from functools import lru_cache

from warroom.games.qmg_cw.state import CwState, Frame, SeatState
from warroom.games.qmg_cw.v1 import qmg_cw_pb2 as pb


def frame_to_pb(frame: Frame, out: pb.Frame) -> None:
    """Fill a Frame message."""
    out.kind = frame.kind
    out.bloc = frame.bloc
    out.mask = frame.mask
    out.owner = frame.owner
    out.card = frame.card
    out.pc = frame.pc
    out.count = frame.count
    out.target = frame.target
    out.space = frame.space
    out.piece = frame.piece
    out.items.extend(frame.items)
    out.tag = frame.tag


@lru_cache(maxsize=8192)
def frame_message(frame: Frame) -> pb.Frame:
    """The Frame message of a frame (cached and shared: copy it, never change it)."""
    return pb.Frame(
        kind=frame.kind,
        bloc=frame.bloc,
        mask=frame.mask,
        owner=frame.owner,
        card=frame.card,
        pc=frame.pc,
        count=frame.count,
        target=frame.target,
        space=frame.space,
        piece=frame.piece,
        items=frame.items,
        tag=frame.tag,
    )


def frame_from_pb(m: pb.Frame) -> Frame:
    """A Frame from its message."""
    return Frame(
        m.kind,
        m.bloc,
        m.mask,
        m.owner,
        m.card,
        m.pc,
        m.count,
        m.target,
        m.space,
        m.piece,
        tuple(m.items),
        m.tag,
    )


def encode(state: CwState) -> pb.State:
    """The state message."""
    m = pb.State(
        variant=state.variant,
        rng=state.rng,
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
    )
    for seat in state.seats:
        m.seats.append(
            pb.Seat(
                bloc=seat.bloc,
                colour=seat.colour,
                hand=seat.hand,
                deck=seat.deck,
                discard_up=seat.discard_up,
                discard_down=seat.discard_down,
                prepared=seat.prepared,
                espionage=seat.espionage,
                opening=seat.opening,
            )
        )
    m.stack.extend(frame_message(f) for f in state.stack)
    return m


def decode(m: pb.State) -> CwState:
    """The state from its message."""
    seats = [
        SeatState(
            s.bloc,
            s.colour,
            list(s.hand),
            list(s.deck),
            list(s.discard_up),
            list(s.discard_down),
            list(s.prepared),
            list(s.espionage),
            list(s.opening),
        )
        for s in m.seats
    ]
    return CwState(
        m.variant,
        seats,
        m.rng,
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
