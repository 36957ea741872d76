// Custom tables: create one (public, or private with an invite code), join by code, the
// open public tables, and the waiting room until the host starts.
import { useEffect, useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import type { GameCatalog } from "../lib/catalog";
import type { Title } from "../lib/titles";
import { Table_Status, type Table } from "../gen/warroom/v1/lobby_pb";
import { openAssignment } from "../lib/assign";
import { session } from "../lib/session";
import { useAsync } from "../lib/hooks";
import { BotPicker, defaultBot, type BotChoice, type CatalogBotKind } from "../components/BotPicker";
import { variantLabel } from "./Lobby";

const WAIT_KEY = "warroom.table";

interface Waiting {
  tableId: string;
  inviteCode: string;
}

export function Tables(props: { title: Title; cat: GameCatalog; kinds: CatalogBotKind[] }) {
  const [waiting, setWaiting] = useState<Waiting | null>(() => {
    try {
      return JSON.parse(localStorage.getItem(WAIT_KEY) ?? "null") as Waiting | null;
    } catch {
      return null;
    }
  });
  const wait = (w: Waiting | null) => {
    if (w) localStorage.setItem(WAIT_KEY, JSON.stringify(w));
    else localStorage.removeItem(WAIT_KEY);
    setWaiting(w);
  };
  return (
    <>
      {waiting ? <WaitingRoom w={waiting} kinds={props.kinds} onLeave={() => wait(null)} /> : <CreateTable {...props} onCreated={wait} />}
      <OpenTables title={props.title} onJoined={wait} />
    </>
  );
}

function CreateTable(props: { title: Title; cat: GameCatalog; kinds: CatalogBotKind[]; onCreated: (w: Waiting) => void }) {
  const variants = props.cat.raw.variants;
  const [variant, setVariant] = useState(variants.find((v) => v.isDefault)?.id ?? variants[0]?.id ?? "");
  const [priv, setPriv] = useState(true);
  const [side, setSide] = useState("");
  const [spectators, setSpectators] = useState(true);
  const [bot, setBot] = useState<BotChoice>(defaultBot(props.kinds));
  const [code, setCode] = useState("");
  const [tableId, setTableId] = useState("");
  const [error, setError] = useState("");
  const v = variants.find((x) => x.id === variant);

  async function create() {
    setError("");
    try {
      const res = await lobby.createTable({ rulesId: props.title.rulesId, variant, private: priv, allowSpectators: spectators, hostSide: side, fillBot: { kind: bot.kind, difficulty: bot.difficulty } });
      const t = res.table;
      if (t) props.onCreated({ tableId: t.tableId, inviteCode: t.inviteCode });
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function join() {
    setError("");
    try {
      const res = await lobby.joinTable({ tableId: tableId.trim(), inviteCode: code.trim() });
      if (res.assignment) openAssignment(res.assignment);
      else if (res.table) props.onCreated({ tableId: res.table.tableId, inviteCode: code.trim() });
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section class="card" aria-labelledby="tables-h" data-testid="tables">
      <h2 id="tables-h">Custom table</h2>
      <div class="stack">
        <label>
          Variant
          <select value={variant} onChange={(e) => setVariant((e.target as HTMLSelectElement).value)} data-testid="table-variant">
            {variants.map((x) => (
              <option value={x.id}>{variantLabel(x)}</option>
            ))}
          </select>
        </label>
        <label>
          Your side
          <select value={side} onChange={(e) => setSide((e.target as HTMLSelectElement).value)} data-testid="table-side">
            <option value="">first free seat</option>
            {(v?.seats ?? []).filter((s) => !s.automated).map((s) => (
              <option value={s.side}>{s.side}</option>
            ))}
          </select>
        </label>
        <label class="inline">
          <input type="checkbox" checked={priv} onChange={(e) => setPriv((e.target as HTMLInputElement).checked)} data-testid="table-private" /> private (invite code)
        </label>
        <label class="inline">
          <input type="checkbox" checked={spectators} onChange={(e) => setSpectators((e.target as HTMLInputElement).checked)} data-testid="table-spectators" /> allow spectators
        </label>
        <span>
          Bots for empty seats at start: <BotPicker kinds={props.kinds.filter((k) => !k.kind.endsWith("official"))} value={bot} onChange={setBot} label="Fill bot" testid="table-bot" />
        </span>
        <button class="primary" onClick={create} data-testid="table-create">
          Create table
        </button>
      </div>
      <h3>Join with an invite</h3>
      <div class="row">
        <input placeholder="table id" aria-label="Table id" value={tableId} onInput={(e) => setTableId((e.target as HTMLInputElement).value)} data-testid="join-table-id" />
        <input placeholder="invite code" aria-label="Invite code" value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} data-testid="join-code" />
        <button onClick={join} disabled={!tableId.trim()} data-testid="join-submit">
          Join
        </button>
      </div>
      {error && <p class="error" role="alert" data-testid="table-error">{error}</p>}
    </section>
  );
}

function WaitingRoom(props: { w: Waiting; kinds: CatalogBotKind[]; onLeave: () => void }) {
  const [table, setTable] = useState<Table | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
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
      if (live) timer = setTimeout(poll, 2000);
    };
    let timer = setTimeout(poll, 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.w.tableId]);
  const me = session.value?.playerId;
  const host = table?.hostPlayerId === me;
  const invite = `${location.origin}${location.pathname}#/join/${props.w.tableId}?code=${encodeURIComponent(table?.inviteCode || props.w.inviteCode)}`;

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
  void props.kinds;
  return (
    <section class="card" aria-labelledby="wait-h" data-testid="waiting-room">
      <h2 id="wait-h">Table {table?.private ? "(private)" : ""}</h2>
      <p>
        Table id <code data-testid="table-id">{props.w.tableId}</code>
        {(table?.inviteCode || props.w.inviteCode) && (
          <>
            {" "}· invite code <code data-testid="invite-code">{table?.inviteCode || props.w.inviteCode}</code>
          </>
        )}
      </p>
      {host && (
        <p>
          <button onClick={() => navigator.clipboard?.writeText(invite)} data-testid="copy-invite">
            Copy invite link
          </button>
        </p>
      )}
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

function OpenTables(props: { title: Title; onJoined: (w: Waiting) => void }) {
  const list = useAsync(() => lobby.listTables({ rulesId: props.title.rulesId, openOnly: true, page: { pageSize: 20 } }), [props.title.rulesId]);
  const [error, setError] = useState("");
  useEffect(() => {
    const t = setInterval(list.reload, 5000);
    return () => clearInterval(t);
  }, [props.title.rulesId]);
  async function join(t: Table) {
    try {
      const res = await lobby.joinTable({ tableId: t.tableId });
      if (res.assignment) openAssignment(res.assignment);
      else props.onJoined({ tableId: t.tableId, inviteCode: "" });
    } catch (err) {
      setError(errorText(err));
    }
  }
  const tables = list.data?.tables ?? [];
  return (
    <section class="card" aria-labelledby="open-h" data-testid="open-tables">
      <h2 id="open-h">Open tables</h2>
      {tables.length === 0 && <p class="muted">{list.loading ? "Loading…" : "No open table. Create one!"}</p>}
      <ul class="table-list">
        {tables.map((t) => (
          <li data-testid="open-table">
            <span>
              <strong>{t.variant}</strong> · {t.seats.filter((s) => s.playerId || s.isBot).map((s) => s.displayName || s.side).join(", ") || "empty"} · {t.openSeats} open
            </span>
            <button onClick={() => join(t)} data-testid={`join-${t.tableId}`}>
              Join
            </button>
          </li>
        ))}
      </ul>
      {(error || list.error) && <p class="error" role="alert">{error || list.error}</p>}
    </section>
  );
}
