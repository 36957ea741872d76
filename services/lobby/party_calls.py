"""LobbyService parties: GetParty, InviteToParty, AcceptPartyInvite, DeclinePartyInvite,
LeaveParty (the SQL side is `services.lobby.parties`)."""

from __future__ import annotations

from services.common import validation
from services.lobby.base import Context, LobbyBase, ts
from services.lobby.parties import Party
from warroom.v1 import lobby_pb2


def party_message(party: Party) -> lobby_pb2.Party:
    """A party as its API message."""
    return lobby_pb2.Party(
        party_id=party.id,
        leader_player_id=party.leader,
        created_at=ts(party.created_at),
        members=[
            lobby_pb2.PartyMember(
                player_id=m.player_id,
                display_name=m.display_name,
                accepted=m.accepted,
                since=ts(m.since),
            )
            for m in party.members
        ],
    )


class PartiesMixin(LobbyBase):
    """Parties with consent."""

    async def GetParty(
        self, request: lobby_pb2.GetPartyRequest, context: Context
    ) -> lobby_pb2.GetPartyResponse:
        async def call() -> lobby_pb2.GetPartyResponse:
            me = self._identity(context)
            party = await self._db(self.parties.party_of, me.player_id)
            invites = await self._db(self.parties.invites_for, me.player_id)
            response = lobby_pb2.GetPartyResponse(
                invites=[
                    lobby_pb2.PartyInvite(
                        party_id=i.party_id,
                        leader_player_id=i.leader,
                        leader_display_name=i.leader_name,
                        expires_at=ts(i.expires_at),
                    )
                    for i in invites
                ]
            )
            if party is not None:
                response.party.CopyFrom(party_message(party))
            return response

        return await self._run(context, call)

    async def InviteToParty(
        self, request: lobby_pb2.InviteToPartyRequest, context: Context
    ) -> lobby_pb2.InviteToPartyResponse:
        async def call() -> lobby_pb2.InviteToPartyResponse:
            me = self._identity(context)
            validation.check_id(request.player_id, "player_id")
            party = await self._db(self.parties.invite, me.player_id, request.player_id)
            return lobby_pb2.InviteToPartyResponse(party=party_message(party))

        return await self._run(context, call)

    async def AcceptPartyInvite(
        self, request: lobby_pb2.AcceptPartyInviteRequest, context: Context
    ) -> lobby_pb2.AcceptPartyInviteResponse:
        async def call() -> lobby_pb2.AcceptPartyInviteResponse:
            me = self._identity(context)
            validation.check_id(request.party_id, "party_id")
            party = await self._db(self.parties.accept, me.player_id, request.party_id)
            return lobby_pb2.AcceptPartyInviteResponse(party=party_message(party))

        return await self._run(context, call)

    async def DeclinePartyInvite(
        self, request: lobby_pb2.DeclinePartyInviteRequest, context: Context
    ) -> lobby_pb2.DeclinePartyInviteResponse:
        async def call() -> lobby_pb2.DeclinePartyInviteResponse:
            me = self._identity(context)
            validation.check_id(request.party_id, "party_id")
            await self._db(self.parties.decline, me.player_id, request.party_id)
            return lobby_pb2.DeclinePartyInviteResponse()

        return await self._run(context, call)

    async def LeaveParty(
        self, request: lobby_pb2.LeavePartyRequest, context: Context
    ) -> lobby_pb2.LeavePartyResponse:
        async def call() -> lobby_pb2.LeavePartyResponse:
            me = self._identity(context)
            await self._db(self.parties.leave, me.player_id)
            return lobby_pb2.LeavePartyResponse()

        return await self._run(context, call)
