// Custom tables: the waiting room of the table this browser sits at (invite, start, leave),
// joining by invite, and the open public tables of every title.
import { useEffect, useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import { Table_Status, type Table } from "../gen/warroom/v1/lobby_pb";
import { openAssignment } from "../lib/assign";
import { session } from "../lib/session";
import { useAsync } from "../lib/hooks";
import { titleOf } from "../lib/titles";
import { Store, useStore } from "../lib/store";

const WAIT_KEY = "warroom.table";

interface Waiting {
  tableId: string;
  inviteCode: string;
}

function loadWaiting(): Waiting | null {
  try {
    return JSON.parse(localStorage.getItem(WAIT_KEY) ?? "null") as Waiting | null;
  } catch {
    return null;
  }
}

/** The table this browser waits at (created or joined, not started yet). */
export const waiting = new Store<Waiting | null>(loadWaiting());

export function waitAt(w: Waiting | null): void {
  if (w) localStorage.setItem(WAIT_KEY, JSON.stringify(w));
  else localStorage.removeItem(WAIT_KEY);
  waiting.set(w);
}

/** "table:code" as one shareable invite (JoinTable needs both); an invite link works too. */
export function inviteOf(w: Waiting): string {
  return w.inviteCode ? `${w.tableId}:${w.inviteCode}` : w.tableId;
}

function parseInvite(text: string): Waiting | null {
  const t = text.trim();
  const link = t.match(/#\/join\/([^?]+)(?:\?code=(.*))?$/);
  if (link) return { tableId: decodeURIComponent(link[1]), inviteCode: decodeURIComponent(link[2] ?? "") };
  const [tableId, ...rest] = t.split(":");
  return tableId ? { tableId, inviteCode: rest.join(":") } : null;
}

export function Tables() {
  const w = useStore(waiting);
  return (
    <>
      {w ? <WaitingRoom w={w} onLeave={() => waitAt(null)} /> : <JoinByCode />}
      <OpenTables />
    </>
  );
}

function JoinByCode() {
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  async function join() {
    setError("");
    const w = parseInvite(code);
    if (!w) return;
    try {
      const res = await lobby.joinTable({ tableId: w.tableId, inviteCode: w.inviteCode });
      if (res.assignment) openAssignment(res.assignment);
      else waitAt(w);
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <section class="card" aria-labelledby="join-h" data-testid="join-table">
      <h2 id="join-h">Join a table</h2>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void join();
        }}
      >
        <input placeholder="invite code or link" aria-label="Invite code or link" value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} data-testid="join-code-input" />
        <button type="submit" disabled={!code.trim()} data-testid="join-code-submit">
          Join
        </button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}

function WaitingRoom(props: { w: Waiting; onLeave: () => void }) {
  const [table, setTable] = useState<Table | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    let timer = 0;
    const poll = async () => {
      try {
        const res = await lobby.joinTable({ tableId: props.w.tableId, inviteCode: props.w.inviteCode });
        if (!live) return;
        if (res.assignment) {
          props.onLeave();
          openAssignment(res.assignment);
          return;
        }
        setTable(res.table ?? null);
        setError("");
        if (res.table && res.table.status !== Table_Status.OPEN && res.table.status !== Table_Status.STARTED) {
          props.onLeave();
          return;
        }
      } catch (err) {
        if (live) setError(errorText(err));
      }
      if (live) timer = window.setTimeout(poll, 1500);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.w.tableId]);
  const host = !!table && table.hostPlayerId === session.value?.playerId;
  const code = table?.inviteCode || props.w.inviteCode;
  const link = `${location.origin}${location.pathname}#/join/${props.w.tableId}${code ? `?code=${encodeURIComponent(code)}` : ""}`;

  async function start() {
    try {
      const res = await lobby.startTable({ tableId: props.w.tableId });
      if (res.assignment) {
        props.onLeave();
        openAssignment(res.assignment);
      }
    } catch (err) {
      setError(errorText(err));
    }
  }
  async function leave() {
    try {
      await lobby.leaveTable({ tableId: props.w.tableId });
    } catch {
      /* already gone */
    }
    props.onLeave();
  }
  return (
    <section class="card" aria-labelledby="wait-h" data-testid="waiting-room">
      <h2 id="wait-h">Your table{table?.private ? " (private)" : ""}</h2>
      {table && (
        <p>
          {titleOf(table.rulesId || table.game).name} · {table.variant}
        </p>
      )}
      <p>
        Invite: <code data-testid="invite-code">{inviteOf({ tableId: props.w.tableId, inviteCode: code })}</code>{" "}
        <button class="small" onClick={() => navigator.clipboard?.writeText(link)} data-testid="copy-invite">
          copy link
        </button>
      </p>
      <ul class="seat-list" data-testid="table-seats">
        {(table?.seats ?? []).map((s) => (
          <li>
            <strong>{s.side}</strong>: {s.displayName || (s.isBot ? "bot" : <span class="muted">open</span>)}
          </li>
        ))}
      </ul>
      <p class="muted">{table ? `${table.openSeats} open seat(s); ${host ? "start when ready: bots fill the open seats" : "waiting for the host to start"}` : "loading…"}</p>
      <div class="row">
        {host && (
          <button class="primary" onClick={start} data-testid="table-start">
            Start game
          </button>
        )}
        <button onClick={leave} data-testid="table-leave">
          Leave table
        </button>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}

function OpenTables() {
  const list = useAsync(() => lobby.listTables({ openOnly: true, page: { pageSize: 30 } }), []);
  const [error, setError] = useState("");
  useEffect(() => {
    const t = setInterval(list.reload, 4000);
    return () => clearInterval(t);
  }, []);
  async function join(t: Table) {
    try {
      const res = await lobby.joinTable({ tableId: t.tableId });
      if (res.assignment) openAssignment(res.assignment);
      else waitAt({ tableId: t.tableId, inviteCode: "" });
    } catch (err) {
      setError(errorText(err));
    }
  }
  const tables = list.data?.tables ?? [];
  return (
    <section class="card" aria-labelledby="open-h" data-testid="open-tables">
      <h2 id="open-h">Open tables</h2>
      {tables.length === 0 && <p class="muted">{list.loading ? "Loading…" : "No open table right now."}</p>}
      <ul class="table-list">
        {tables.map((t) => (
          <li data-testid="open-table-row" data-table-id={t.tableId}>
            <span>
              <strong>{titleOf(t.rulesId || t.game).short}</strong> {t.variant} · {t.seats.filter((s) => s.playerId || s.isBot).map((s) => s.displayName || s.side).join(", ") || "empty"} · {t.openSeats} open
            </span>
            <button onClick={() => join(t)} data-testid="open-table-join">
              Join
            </button>
          </li>
        ))}
      </ul>
      {(error || list.error) && <p class="error" role="alert">{error || list.error}</p>}
    </section>
  );
}
