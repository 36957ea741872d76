// Parties with consent: invite a player by id, accept or decline invitations, leave.
import { useEffect, useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import { describe } from "../lib/errors";
import { session } from "../lib/session";
import type { GetPartyResponse } from "../gen/warroom/v1/lobby_pb";
import { Store, useStore } from "../lib/store";

/** The caller's party, polled while the lobby is open (shared with matchmaking). */
export const partyStore = new Store<GetPartyResponse | null>(null);

export function Parties() {
  const party = useStore(partyStore);
  const [invitee, setInvitee] = useState("");
  const [error, setError] = useState("");
  const me = session.value;
  const refresh = async () => {
    try {
      partyStore.set(await lobby.getParty({}));
    } catch (err) {
      setError(describe(err));
    }
  };
  useEffect(() => {
    void refresh();
    const t = setInterval(refresh, 2000);
    return () => clearInterval(t);
  }, []);
  const act = async (fn: () => Promise<unknown>) => {
    setError("");
    try {
      await fn();
      await refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const p = party?.party;
  return (
    <section class="card" aria-labelledby="party-h" data-testid="party">
      <h2 id="party-h">Party</h2>
      <p class="muted">
        Your player id: <code data-testid="my-player-id">{me?.playerId}</code>{" "}
        <button class="small" onClick={() => navigator.clipboard?.writeText(me?.playerId ?? "")}>copy</button>
      </p>
      {(party?.invites ?? []).map((inv) => (
        <div class="invite" role="status" data-testid="invitation-row">
          <span>
            <strong>{inv.leaderDisplayName}</strong> invites you to a party
          </span>
          <button class="primary small" onClick={() => act(() => lobby.acceptPartyInvite({ partyId: inv.partyId }))} data-testid="invitation-accept">
            Accept
          </button>
          <button class="small" onClick={() => act(() => lobby.declinePartyInvite({ partyId: inv.partyId }))} data-testid="invitation-decline">
            Decline
          </button>
        </div>
      ))}
      {p ? (
        <>
          <ul class="seat-list" data-testid="party-members">
            {p.members.map((m) => (
              <li>
                {m.displayName || m.playerId}
                {m.playerId === p.leaderPlayerId ? " (leader)" : ""}
                {!m.accepted && <span class="muted"> — invited, not yet accepted</span>}
              </li>
            ))}
          </ul>
          <button onClick={() => act(() => lobby.leaveParty({}))} data-testid="party-leave">
            Leave party
          </button>
        </>
      ) : (
        <p class="muted">You are not in a party.</p>
      )}
      {(!p || p.leaderPlayerId === me?.playerId) && (
        <div class="row">
          <input placeholder="player id to invite" aria-label="Player id to invite" value={invitee} onInput={(e) => setInvitee((e.target as HTMLInputElement).value)} data-testid="invite-player-input" />
          <button onClick={() => act(() => lobby.inviteToParty({ playerId: invitee.trim() }).then(() => setInvitee("")))} disabled={!invitee.trim()} data-testid="invite-send">
            Invite
          </button>
        </div>
      )}
      <p class="muted small">The party leader queues everyone who accepted (public matchmaking, "with my party").</p>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}
