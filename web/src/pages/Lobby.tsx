// The lobby: play now against bots (or open a custom table), matchmaking, joining tables,
// open tables, parties. Each section picks its title.
import { useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import { loadCatalog, type GameCatalog } from "../lib/catalog";
import { useAsync } from "../lib/hooks";
import { TITLES, titleOf } from "../lib/titles";
import { openAssignment } from "../lib/assign";
import { BotPicker, botKindsFor, defaultBot, type BotChoice, type CatalogBotKind } from "../components/BotPicker";
import { Matchmaking } from "./Matchmaking";
import { Tables, waitAt } from "./Tables";
import { Parties } from "./Parties";
import { ClockSpec_Fallback, ClockSpec_Mode } from "../gen/warroom/v1/common_pb";

/** Turn clocks a table may use (each human seat's clock; a bot takes over when it runs out). */
const CLOCKS: { id: string; label: string; spec?: { mode: ClockSpec_Mode; initialSeconds: number; incrementSeconds: number; fallback: ClockSpec_Fallback } }[] = [
  { id: "none", label: "no clock" },
  { id: "live-10", label: "live: 10 min + 10 s per decision", spec: { mode: ClockSpec_Mode.LIVE, initialSeconds: 600, incrementSeconds: 10, fallback: ClockSpec_Fallback.BOT } },
  { id: "live-30", label: "live: 30 min + 20 s per decision", spec: { mode: ClockSpec_Mode.LIVE, initialSeconds: 1800, incrementSeconds: 20, fallback: ClockSpec_Fallback.BOT } },
  { id: "corr-1d", label: "correspondence: 1 day per decision", spec: { mode: ClockSpec_Mode.CORRESPONDENCE, initialSeconds: 86400, incrementSeconds: 0, fallback: ClockSpec_Fallback.BOT } },
];

export function variantLabel(v: { id: string; title: string }): string {
  return v.title ? `${v.id} — ${v.title}` : v.id;
}

export interface TitleData {
  rulesId: string;
  cat: GameCatalog;
  kinds: CatalogBotKind[];
}

/** The catalogue and bot kinds of a title. */
export function useTitle(rulesId: string) {
  return useAsync<TitleData>(async () => {
    const cat = await loadCatalog(rulesId);
    return { rulesId, cat, kinds: await botKindsFor(rulesId, cat) };
  }, [rulesId]);
}

export function GameSelect(props: { value: string; onChange: (v: string) => void; testid: string; label?: string }) {
  return (
    <label>
      {props.label ?? "Game"}
      <select value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)} data-testid={props.testid}>
        {TITLES.map((t) => (
          <option value={t.rulesId}>{t.name}</option>
        ))}
      </select>
    </label>
  );
}

export function Lobby() {
  return (
    <main class="page lobby" data-testid="lobby-page">
      <div class="lobby-grid">
        <PlayNow />
        <Matchmaking />
        <Tables />
        <Parties />
      </div>
    </main>
  );
}

function PlayNow() {
  const [rulesId, setRulesId] = useState("ncw");
  const t = useTitle(rulesId);
  return (
    <section class="card" aria-labelledby="playnow-h" data-testid="play-now">
      <h2 id="playnow-h">Play now against bots</h2>
      <GameSelect value={rulesId} onChange={setRulesId} testid="playnow-game" />
      {t.error && <p class="error">{t.error}</p>}
      {t.data && t.data.rulesId === rulesId ? <PlayNowForm key={rulesId} rulesId={rulesId} data={t.data} /> : !t.error && <p class="muted">Loading…</p>}
    </section>
  );
}

function PlayNowForm(props: { rulesId: string; data: TitleData }) {
  const { cat, kinds } = props.data;
  const variants = cat.raw.variants;
  const [variantId, setVariantId] = useState(variants.find((v) => v.isDefault)?.id ?? variants[0]?.id ?? "");
  const variant = variants.find((v) => v.id === variantId) ?? variants[0];
  const seatsOf = variant?.seats ?? [];
  const [side, setSide] = useState("");
  const [all, setAll] = useState<BotChoice>(defaultBot(kinds.filter((k) => !k.kind.endsWith("official"))));
  const [choices, setChoices] = useState<Record<number, BotChoice>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [clockId, setClockId] = useState("none");
  const clock = CLOCKS.find((c) => c.id === clockId)?.spec;
  // A new variant has other seats: its side and bot choices start afresh. Reset here, in the
  // change itself, not in an effect (an effect runs after the paint and could undo a side the
  // player picked just after the variant).
  const chooseVariant = (id: string) => {
    setVariantId(id);
    setSide("");
    setChoices({});
  };
  const official = kinds.find((k) => k.kind.endsWith("official"));
  const playable = kinds.filter((k) => !k.kind.endsWith("official") || props.rulesId === "ncw");
  const human = seatsOf.filter((s) => !s.automated);
  const mySeat = (side ? human.find((s) => s.side === side) : human[0])?.index ?? -1;
  const choice = (i: number, automated: boolean): BotChoice => choices[i] ?? (automated && official ? { kind: official.kind, difficulty: all.kind === official.kind ? all.difficulty : official.defaultDifficulty || official.difficulties[0] } : all);

  async function start(mode: "bots" | "private" | "public") {
    setBusy(true);
    setError("");
    try {
      const mine = seatsOf.find((s) => s.index === mySeat);
      if (mode === "bots") {
        const seats = seatsOf.map((s) => (s.index === mySeat ? { side: s.side } : { side: s.side, bot: choice(s.index, s.automated) }));
        const res = await lobby.createTable({ rulesId: props.rulesId, variant: variantId, seats, hostSide: mine?.side ?? "", startNow: true, allowSpectators: true, fillBot: all, clock });
        if (!res.assignment) throw new Error("the lobby did not return an assignment");
        openAssignment(res.assignment);
        return;
      }
      const res = await lobby.createTable({ rulesId: props.rulesId, variant: variantId, hostSide: side, private: mode === "private", allowSpectators: true, fillBot: all, clock });
      if (res.table) waitAt({ tableId: res.table.tableId, inviteCode: res.table.inviteCode });
    } catch (err) {
      setError(errorText(err));
    }
    setBusy(false);
  }

  return (
    <div class="stack">
      <label>
        Variant
        <select data-testid="playnow-variant" value={variantId} onChange={(e) => chooseVariant((e.target as HTMLSelectElement).value)}>
          {variants.map((v) => (
            <option value={v.id}>{variantLabel(v)}</option>
          ))}
        </select>
      </label>
      <label>
        Your side
        <select data-testid="playnow-side" value={side} onChange={(e) => setSide((e.target as HTMLSelectElement).value)}>
          <option value="">any</option>
          {human.map((s) => (
            <option value={s.side}>{s.side}</option>
          ))}
        </select>
      </label>
      <label>
        Turn clock
        <select data-testid="playnow-clock" value={clockId} onChange={(e) => setClockId((e.target as HTMLSelectElement).value)}>
          {CLOCKS.map((c) => (
            <option value={c.id}>{c.label}</option>
          ))}
        </select>
      </label>
      <div>
        <span class="label">Bots</span>
        <BotPicker kinds={playable} value={all} onChange={(c) => { setAll(c); setChoices({}); }} label="Every bot seat" testid="playnow-bot" />
      </div>
      <table class="seats-table">
        <thead>
          <tr>
            <th scope="col">Seat</th>
            <th scope="col">Played by</th>
          </tr>
        </thead>
        <tbody>
          {seatsOf.map((s) => (
            <tr data-testid={`playnow-seat-${s.index}`}>
              <td>
                {s.side}
                {s.team && s.team !== s.side ? <span class="muted small"> ({s.team})</span> : null}
              </td>
              <td>
                {s.index === mySeat ? (
                  <strong>you</strong>
                ) : (
                  <BotPicker kinds={s.automated && official ? [official] : playable} value={choice(s.index, s.automated)} onChange={(c) => setChoices({ ...choices, [s.index]: c })} label={`Seat ${s.side}`} testid={`playnow-seat-${s.index}`} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button class="primary" disabled={busy || !variant} onClick={() => start("bots")} data-testid="playnow-start">
        {busy ? "Starting…" : "Play now against bots"}
      </button>
      <div class="row">
        <button disabled={busy || !variant} onClick={() => start("private")} data-testid="private-create">
          Create private table
        </button>
        <button disabled={busy || !variant} onClick={() => start("public")} data-testid="public-create">
          Create public table
        </button>
      </div>
      <p class="muted small">A table waits for players; its host starts it, bots fill the empty seats.</p>
      {error && <p class="error" role="alert" data-testid="playnow-error">{error}</p>}
    </div>
  );
}

export { titleOf };
