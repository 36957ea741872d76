// The lobby of one title: play now against bots, matchmaking, private tables, open tables.
import { useEffect, useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import { loadCatalog, type GameCatalog } from "../lib/catalog";
import { useAsync } from "../lib/hooks";
import { TITLES, titleOf, type Title } from "../lib/titles";
import { openAssignment } from "../lib/assign";
import { route, go } from "../lib/router";
import { useStore } from "../lib/store";
import { BotPicker, botKindsFor, defaultBot, type BotChoice, type CatalogBotKind } from "../components/BotPicker";
import { Matchmaking } from "./Matchmaking";
import { Tables } from "./Tables";
import { Parties } from "./Parties";

export function Lobby() {
  const r = useStore(route);
  const title = titleOf(r.query.get("game") ?? "ncw");
  const cat = useAsync(() => loadCatalog(title.rulesId), [title.rulesId]);
  const kinds = useAsync(() => botKindsFor(title.rulesId, cat.data ?? null), [title.rulesId, cat.data]);
  return (
    <main class="page lobby" data-testid="lobby-page">
      <nav class="title-tabs" aria-label="Game">
        {TITLES.map((t) => (
          <a href={`#/lobby?game=${t.rulesId}`} class={t.rulesId === title.rulesId ? "tab active" : "tab"} aria-current={t.rulesId === title.rulesId ? "page" : undefined} data-testid={`title-${t.rulesId}`}>
            {t.name}
          </a>
        ))}
      </nav>
      {cat.error && <p class="error" role="alert">Catalogue: {cat.error}</p>}
      {cat.data && kinds.data ? (
        <div class="lobby-grid">
          <PlayNow title={title} cat={cat.data} kinds={kinds.data} />
          <Matchmaking title={title} cat={cat.data} kinds={kinds.data} />
          <Tables title={title} cat={cat.data} kinds={kinds.data} />
          <Parties title={title} />
        </div>
      ) : (
        !cat.error && <p class="muted">Loading {title.name}…</p>
      )}
      {kinds.error && <p class="error">Bots: {kinds.error}</p>}
    </main>
  );
}

export function variantLabel(v: { id: string; title: string }): string {
  return v.title ? `${v.id} — ${v.title}` : v.id;
}

function PlayNow(props: { title: Title; cat: GameCatalog; kinds: CatalogBotKind[] }) {
  const variants = props.cat.raw.variants;
  const [variantId, setVariantId] = useState(variants.find((v) => v.isDefault)?.id ?? variants[0]?.id ?? "");
  const variant = variants.find((v) => v.id === variantId) ?? variants[0];
  const seatsOf = variant?.seats ?? [];
  const humanSeats = seatsOf.filter((s) => !s.automated);
  const [mySeat, setMySeat] = useState(0);
  const [choices, setChoices] = useState<Record<number, BotChoice>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  useEffect(() => {
    setMySeat(humanSeats[0]?.index ?? 0);
    setChoices({});
  }, [variantId, props.title.rulesId]);
  const choice = (i: number) => choices[i] ?? defaultBot(props.kinds);
  const official = props.kinds.find((k) => k.kind.endsWith("official"));

  async function start() {
    setBusy(true);
    setError("");
    try {
      const seats = seatsOf.map((s) => {
        if (s.index === mySeat) return { side: s.side };
        if (s.automated && official) return { side: s.side, bot: { kind: official.kind, difficulty: choices[s.index]?.difficulty ?? official.defaultDifficulty } };
        const c = choice(s.index);
        return { side: s.side, bot: { kind: c.kind, difficulty: c.difficulty } };
      });
      const mine = seatsOf.find((s) => s.index === mySeat);
      const res = await lobby.createTable({ rulesId: props.title.rulesId, variant: variantId, seats, hostSide: mine?.side ?? "", startNow: true, allowSpectators: true, fillBot: choice(-1) });
      if (!res.assignment) throw new Error("the lobby did not return an assignment");
      openAssignment(res.assignment);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <section class="card" aria-labelledby="playnow-h" data-testid="play-now">
      <h2 id="playnow-h">Play now against bots</h2>
      <label>
        Variant
        <select data-testid="playnow-variant" value={variantId} onChange={(e) => setVariantId((e.target as HTMLSelectElement).value)}>
          {variants.map((v) => (
            <option value={v.id}>{variantLabel(v)}</option>
          ))}
        </select>
      </label>
      <table class="seats-table">
        <thead>
          <tr>
            <th scope="col">Seat</th>
            <th scope="col">Who plays it</th>
          </tr>
        </thead>
        <tbody>
          {seatsOf.map((s) => (
            <tr data-testid={`playnow-seat-${s.index}`}>
              <td>
                {s.side}
                {s.team && s.team !== s.side ? <span class="muted"> ({s.team})</span> : null}
              </td>
              <td>
                {!s.automated && (
                  <label class="inline">
                    <input type="radio" name="myseat" checked={mySeat === s.index} onChange={() => setMySeat(s.index)} data-testid={`playnow-me-${s.index}`} /> me
                  </label>
                )}
                {mySeat !== s.index &&
                  (s.automated ? (
                    <span class="muted">official bot {official && <BotPicker kinds={[official]} value={{ kind: official.kind, difficulty: choices[s.index]?.difficulty ?? official.defaultDifficulty }} onChange={(c) => setChoices({ ...choices, [s.index]: c })} label={`Seat ${s.side}`} testid={`playnow-bot-${s.index}`} />}</span>
                  ) : (
                    <BotPicker kinds={props.kinds} value={choice(s.index)} onChange={(c) => setChoices({ ...choices, [s.index]: c })} label={`Seat ${s.side}`} testid={`playnow-bot-${s.index}`} />
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button class="primary" disabled={busy || !variant} onClick={start} data-testid="playnow-start">
        {busy ? "Starting…" : "Start game"}
      </button>
      {error && <p class="error" role="alert" data-testid="playnow-error">{error}</p>}
    </section>
  );
}

export { go };
