"""Protobuf encoding of the state (qmg_sf.v1.State) and its public part."""

from __future__ import annotations

from typing import Any

from warroom.games.qmg_sf.state import Combat, Frame, SfState
from warroom.games.qmg_sf.v1 import qmg_sf_pb2


def public_into(s: SfState, m: Any) -> None:
    """Fill a qmg_sf_pb2.Public message."""
    m.variant, m.round, m.active, m.phase = s.variant, s.round, s.active, s.phase
    m.loc.extend(s.loc)
    m.on.extend(s.on)
    m.moved = s.moved
    m.control.extend(s.control)
    m.step_control.extend(s.step_start_control())
    m.minor.extend(s.minor)
    m.mcf.extend(s.mcf)
    m.vp.extend(s.vp)
    m.malta_depot, m.bulgaria_flag, m.extra_actions = (
        s.malta_depot,
        s.bulgaria_flag,
        s.extra_actions,
    )
    for f in s.stack:
        fm = m.stack.add()
        fm.kind, fm.seat, fm.card, fm.face, fm.pc, fm.branch, fm.n = (
            f.kind,
            f.seat,
            f.card,
            f.face,
            f.pc,
            f.branch,
            f.n,
        )
        fm.data.extend(f.data)
    c = s.combat
    m.has_combat = c is not None
    if c is not None:
        cm = m.combat
        cm.side, cm.faction, cm.src, cm.tgt, cm.sea = c.side, c.faction, c.src, c.tgt, c.sea
        cm.force.extend(c.force)
        cm.req, cm.free, cm.advanced, cm.factions, cm.rounds = (
            c.req,
            c.free,
            c.advanced,
            c.factions,
            c.rounds,
        )
    for name in sorted(s.tags):
        tag = m.tags.add()
        tag.name, tag.piece = name, s.tags[name]
    m.over, m.winner, m.reason = s.over, s.winner, s.reason
    for k, v in s.contingency.items():
        m.contingency[k] = v


def public_bytes(s: SfState) -> bytes:
    """The serialized qmg_sf_pb2.Public of a state (memoized on the state while its signature
    is unchanged)."""
    sig = s.signature()
    memo = s.cached_public
    if memo is not None and memo[0] == sig:
        return memo[1]
    m = qmg_sf_pb2.Public()
    public_into(s, m)
    out = m.SerializeToString(deterministic=True)
    s.cached_public = (sig, out)
    return out


def public_of(m: Any, rng_state: int) -> SfState:
    """A state holding the public facts of a qmg_sf_pb2.Public message (hidden parts empty)."""
    s = SfState(variant=m.variant, rng=rng_state)
    s.round, s.active, s.phase = m.round, m.active, m.phase
    s.loc, s.on, s.moved = list(m.loc), list(m.on), m.moved
    s.control = list(m.control)
    # a message without step_control (none recorded) leaves the current control as the start
    pairs = zip(m.step_control, m.control, strict=False)
    s.step_changes = {sp: then for sp, (then, now) in enumerate(pairs) if then != now}
    s.minor, s.mcf, s.vp = list(m.minor), list(m.mcf), list(m.vp)
    s.malta_depot, s.bulgaria_flag, s.extra_actions = (
        m.malta_depot,
        m.bulgaria_flag,
        m.extra_actions,
    )
    s.stack = [
        Frame(f.kind, f.seat, f.card, f.face, f.pc, f.branch, f.n, tuple(f.data)) for f in m.stack
    ]
    if m.has_combat:
        c = m.combat
        s.combat = Combat(
            c.side,
            c.faction,
            c.src,
            c.tgt,
            c.sea,
            list(c.force),
            c.req,
            c.free,
            c.advanced,
            c.factions,
            c.rounds,
        )
    s.tags = {t.name: t.piece for t in m.tags}
    s.over, s.winner, s.reason = m.over, m.winner, m.reason
    s.contingency = dict(sorted(m.contingency.items()))
    return s


def encode(s: SfState) -> qmg_sf_pb2.State:
    """SfState -> qmg_sf_pb2.State."""
    m = qmg_sf_pb2.State()
    public_into(s, m.public)
    m.rng = s.rng
    for lists, field in (
        (s.hands, m.hands),
        (s.decks, m.decks),
        (s.late, m.late),
        (s.discards, m.discards),
        (s.revealed, m.revealed),
    ):
        for values in lists:
            field.add().values.extend(values)
    return m


def decode(m: qmg_sf_pb2.State) -> SfState:
    """qmg_sf_pb2.State -> SfState."""
    s = public_of(m.public, m.rng)
    s.hands = [list(x.values) for x in m.hands]
    s.decks = [list(x.values) for x in m.decks]
    s.late = [list(x.values) for x in m.late]
    s.discards = [list(x.values) for x in m.discards]
    s.revealed = [list(x.values) for x in m.revealed]
    return s
