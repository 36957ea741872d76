"""Parties with consent, in SQL: a leader invites, the invitee accepts or declines.

A player is queued with a party only after accepting its leader's invitation, and leaves
whenever they like. Every change locks the party row, so concurrent invitations and
acceptances never overfill a party; a partial unique index keeps each player in at most
one party.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from services.common.db import session_factory
from services.lobby.errors import FailedPrecondition, InvalidArgument, NotFound
from services.lobby.models import PartyMemberRow, PartyRow, PlayerRow
from services.lobby.store import now


@dataclass(frozen=True, slots=True)
class Member:
    """A party member or a pending invitation."""

    player_id: str
    display_name: str
    accepted: bool
    since: datetime


@dataclass(frozen=True, slots=True)
class Party:
    """A party: its leader first among the members."""

    id: str
    leader: str
    created_at: datetime
    members: tuple[Member, ...]

    @property
    def accepted(self) -> list[str]:
        """The player ids of the accepted members, the leader first."""
        return [m.player_id for m in self.members if m.accepted]


@dataclass(frozen=True, slots=True)
class Invite:
    """An invitation a player received."""

    party_id: str
    leader: str
    leader_name: str
    expires_at: datetime


class PartyStore:
    """Parties and invitations (synchronous; the service calls it from worker threads)."""

    def __init__(self, engine: Engine, max_size: int, invite_ttl_s: int) -> None:
        self.sessions = session_factory(engine)
        self.max_size = max_size
        self.invite_ttl = timedelta(seconds=invite_ttl_s)

    # ------------------------------------------------------------------ reads

    def _party(self, session: Session, party_id: str) -> Party | None:
        row = session.get(PartyRow, party_id)
        if row is None:
            return None
        stamp = now()
        rows = session.execute(
            select(PartyMemberRow, PlayerRow.display_name)
            .join(PlayerRow, PlayerRow.id == PartyMemberRow.player_id)
            .where(PartyMemberRow.party_id == party_id)
            .order_by(PartyMemberRow.accepted.desc(), PartyMemberRow.since, PlayerRow.id)
        )
        members = [
            Member(m.player_id, name, m.accepted, m.since)
            for m, name in rows
            if m.accepted or (m.expires_at is not None and _aware(m.expires_at) > stamp)
        ]
        members.sort(key=lambda m: m.player_id != row.leader_player_id)
        return Party(row.id, row.leader_player_id, row.created_at, tuple(members))

    def _membership(self, session: Session, player_id: str) -> PartyMemberRow | None:
        return session.scalar(
            select(PartyMemberRow).where(
                PartyMemberRow.player_id == player_id, PartyMemberRow.accepted.is_(True)
            )
        )

    def party_of(self, player_id: str) -> Party | None:
        """The party the player belongs to, if any."""
        with self.sessions() as session:
            member = self._membership(session, player_id)
            return self._party(session, member.party_id) if member is not None else None

    def invites_for(self, player_id: str) -> list[Invite]:
        """Invitations waiting for the player's answer, newest first."""
        with self.sessions() as session:
            rows = session.execute(
                select(PartyMemberRow, PartyRow.leader_player_id, PlayerRow.display_name)
                .join(PartyRow, PartyRow.id == PartyMemberRow.party_id)
                .join(PlayerRow, PlayerRow.id == PartyRow.leader_player_id)
                .where(PartyMemberRow.player_id == player_id, PartyMemberRow.accepted.is_(False))
                .order_by(PartyMemberRow.since.desc())
            )
            stamp = now()
            return [
                Invite(m.party_id, leader, name, _aware(m.expires_at))
                for m, leader, name in rows
                if m.expires_at is not None and _aware(m.expires_at) > stamp
            ]

    def queue_members(self, leader_id: str) -> list[str]:
        """The accepted members of the party `leader_id` leads, the leader first;
        NOT_IN_PARTY or NOT_PARTY_LEADER otherwise."""
        party = self.party_of(leader_id)
        if party is None:
            raise FailedPrecondition(
                "NOT_IN_PARTY", "you are in no party: invite players first (InviteToParty)"
            )
        if party.leader != leader_id:
            raise FailedPrecondition(
                "NOT_PARTY_LEADER", f"only the party's leader {party.leader} queues the party"
            )
        return party.accepted

    # ------------------------------------------------------------------ changes

    def _locked_party(self, session: Session, party_id: str) -> PartyRow | None:
        return session.scalar(select(PartyRow).where(PartyRow.id == party_id).with_for_update())

    def invite(self, leader_id: str, invitee_id: str) -> Party:
        """Invite a player to the caller's party (created, with the caller leading, when the
        caller has none). Inviting again renews the invitation."""
        if invitee_id == leader_id:
            raise InvalidArgument("CANNOT_INVITE_SELF", "you cannot invite yourself", "player_id")
        with self.sessions.begin() as session:
            invitee = session.get(PlayerRow, invitee_id)
            if invitee is None:
                raise NotFound("PLAYER_NOT_FOUND", f"unknown player {invitee_id}")
            if invitee.bot:
                raise InvalidArgument("CANNOT_INVITE_BOT", "bots cannot join a party", "player_id")
            membership = self._membership(session, leader_id)
            if membership is None:
                party = PartyRow(
                    id=f"pt-{uuid.uuid4().hex[:16]}", leader_player_id=leader_id, created_at=now()
                )
                session.add(party)
                session.flush()
                session.add(
                    PartyMemberRow(
                        party_id=party.id, player_id=leader_id, accepted=True, since=now()
                    )
                )
            else:
                locked = self._locked_party(session, membership.party_id)
                assert locked is not None
                party = locked
                if party.leader_player_id != leader_id:
                    raise FailedPrecondition(
                        "NOT_PARTY_LEADER",
                        f"only the party's leader {party.leader_player_id} invites",
                    )
            self._add_invite(session, party.id, invitee_id)
            session.flush()
            found = self._party(session, party.id)
        assert found is not None
        return found

    def _add_invite(self, session: Session, party_id: str, invitee_id: str) -> None:
        stamp = now()
        rows = list(
            session.scalars(select(PartyMemberRow).where(PartyMemberRow.party_id == party_id))
        )
        current = next((r for r in rows if r.player_id == invitee_id), None)
        if current is not None and current.accepted:
            raise FailedPrecondition(
                "ALREADY_IN_PARTY", f"player {invitee_id} is already in this party"
            )
        live = [
            r
            for r in rows
            if r.accepted or (r.expires_at is not None and _aware(r.expires_at) > stamp)
        ]
        if current is None and len(live) >= self.max_size:
            raise FailedPrecondition(
                "PARTY_FULL", f"a party has at most {self.max_size} players (invitations count)"
            )
        if current is None:
            current = PartyMemberRow(party_id=party_id, player_id=invitee_id, accepted=False)
            session.add(current)
        current.since = stamp
        current.expires_at = stamp + self.invite_ttl

    def accept(self, player_id: str, party_id: str) -> Party:
        """Join a party whose invitation the player holds; ALREADY_IN_PARTY when the player
        belongs to another one (leave it first)."""
        try:
            with self.sessions.begin() as session:
                if self._locked_party(session, party_id) is None:
                    raise NotFound("INVITE_NOT_FOUND", f"no invitation to party {party_id}")
                row = session.get(PartyMemberRow, (party_id, player_id))
                if row is not None and row.accepted:
                    found = self._party(session, party_id)
                    assert found is not None
                    return found
                if row is None or row.expires_at is None or _aware(row.expires_at) <= now():
                    raise NotFound("INVITE_NOT_FOUND", f"no invitation to party {party_id}")
                if self._membership(session, player_id) is not None:
                    raise FailedPrecondition(
                        "ALREADY_IN_PARTY", "you are in another party: leave it first"
                    )
                row.accepted, row.since, row.expires_at = True, now(), None
                session.flush()
                found = self._party(session, party_id)
        except IntegrityError:
            raise FailedPrecondition(
                "ALREADY_IN_PARTY", "you joined another party meanwhile: leave it first"
            ) from None
        assert found is not None
        return found

    def decline(self, player_id: str, party_id: str) -> None:
        """Refuse an invitation; INVITE_NOT_FOUND when there is none."""
        with self.sessions.begin() as session:
            removed = session.execute(
                delete(PartyMemberRow).where(
                    PartyMemberRow.party_id == party_id,
                    PartyMemberRow.player_id == player_id,
                    PartyMemberRow.accepted.is_(False),
                )
            )
            if not removed.rowcount:  # type: ignore[attr-defined]
                raise NotFound("INVITE_NOT_FOUND", f"no invitation to party {party_id}")

    def leave(self, player_id: str) -> None:
        """Leave one's party: a leaving leader hands it to the longest-standing member; the
        last member leaving ends it (and its invitations)."""
        with self.sessions.begin() as session:
            member = self._membership(session, player_id)
            if member is None:
                raise FailedPrecondition("NOT_IN_PARTY", "you are in no party")
            party = self._locked_party(session, member.party_id)
            assert party is not None
            session.delete(member)
            session.flush()
            others = list(
                session.scalars(
                    select(PartyMemberRow)
                    .where(PartyMemberRow.party_id == party.id, PartyMemberRow.accepted.is_(True))
                    .order_by(PartyMemberRow.since, PartyMemberRow.player_id)
                )
            )
            if not others:
                session.delete(party)
            elif party.leader_player_id == player_id:
                party.leader_player_id = others[0].player_id


def _aware(value: datetime) -> datetime:
    """A UTC-aware datetime (SQLite returns naive ones)."""
    from datetime import UTC

    return value if value.tzinfo else value.replace(tzinfo=UTC)
