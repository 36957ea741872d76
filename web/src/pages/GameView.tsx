// The game screen for one SeatView: board, tracks, decision, players, hand, log, result.
// Used for playing, spectating and the replay viewer.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { SeatView } from "../gen/warroom/v1/game_pb";
import type { GameEvent, Option } from "../gen/warroom/v1/common_pb";
import type { GameCatalog } from "../lib/catalog";
import { buildModel } from "../games";
import { targetOf, targetsOf } from "../lib/targets";
import { Board } from "../board/Board";
import { Tracks } from "../components/Tracks";
import { Decision } from "../components/Decision";
import { Seats } from "../components/Seats";
import { EventLog } from "../components/EventLog";
import { CardGroupView } from "../components/Cards";
import { Result } from "../components/Status";
import type { ComponentChildren } from "preact";

interface Props {
  view: SeatView;
  events: GameEvent[];
  cat: GameCatalog;
  header: ComponentChildren;
  onChoose?: (o: Option) => Promise<string>;
  onReplay?: () => void;
  mode: "play" | "watch" | "replay";
  /** An answer is on its way: nothing can be chosen until it is answered. */
  submitting?: boolean;
}

export function GameView(props: Props) {
  const { view, cat } = props;
  const model = useMemo(() => buildModel(view, cat), [view, cat]);
  const options = useMemo(() => (props.mode === "play" && !props.submitting ? (view.decision?.options ?? []) : []), [props.mode, props.submitting, view]);
  const targets = useMemo(() => targetsOf(options, cat), [options, cat]);
  const [focus, setFocus] = useState<{ key: string; label: string; options: Option[] } | null>(null);
  const [hover, setHover] = useState("");
  const [zoom, setZoom] = useState(() => innerWidth < 700);
  const decisionKey = `${view.decision?.decisionId}:${view.version}`;
  useEffect(() => setFocus(null), [decisionKey]);
  const spaceName = (id: string) => (id.startsWith("region:") ? cat.raw.map?.regions.find((r) => `region:${r.id}` === id)?.name ?? id : cat.spacesById.get(id)?.name ?? id);

  // Cards and objectives an option may name: the viewer's own (hand, offers) and public piles.
  const known = useMemo(() => {
    const cards = new Map<string, string>();
    for (const g of [...model.mine, ...model.common]) {
      for (const id of g.ids) {
        if (g.kind === "card") {
          const c = cat.cards.get(id);
          if (c) cards.set(c.name.toLowerCase(), `${c.name}: ${c.text}`);
        }
      }
    }
    return [...cards.entries()].sort((a, b) => b[0].length - a[0].length);
  }, [model, cat]);
  const explain = (o: Option): string => {
    const label = o.label.toLowerCase();
    const objective = label.match(/objective (\d+)/);
    if (objective) {
      const ob = cat.objectives.get(Number(objective[1]));
      if (ob) return `${ob.name || `Objective ${ob.id}`} (${ob.vp} VP): ${ob.text}`;
    }
    return known.find(([name]) => label.includes(name))?.[1] ?? "";
  };

  async function pick(key: string) {
    const opts = targets.get(key) ?? [];
    if (opts.length === 1 && props.onChoose) {
      await props.onChoose(opts[0]);
      return;
    }
    if (opts.length) setFocus({ key, label: spaceName(key), options: opts });
  }

  return (
    <main class={`page game-page mode-${props.mode}`} data-testid="game-screen" data-game-id={view.gameId} data-rules-id={view.rulesId} data-version={String(view.version)} data-seat={String(view.seat)} data-finished={view.result ? "true" : "false"}>
      <header class="game-header">
        {props.header}
        <span class="status-line" data-testid="game-status">
          {model.status.join(" · ")}
        </span>
      </header>
      <div class="game-layout">
        <div class="board-col">
          {view.result && <Result view={view} onReplay={props.onReplay} />}
          <div class={`board-wrap${zoom ? " zoomed" : ""}`}>
            <button class="small zoom" onClick={() => setZoom(!zoom)} aria-pressed={zoom} data-testid="board-zoom">
              {zoom ? "Fit board" : "Zoom board"}
            </button>
            <Board cat={cat} model={model} targets={targets} selected={focus?.key ?? hover} onPick={pick} />
          </div>
          {model.legend && (
            <p class="legend small" data-testid="board-legend">
              {model.legend} · pulsing dashed ring: a place you can choose now (click it or press Enter)
            </p>
          )}
          <Tracks tracks={model.tracks} />
          {model.panels.map((p) => (
            <section class="panel card" data-testid={p.testid}>
              <h3>{p.title}</h3>
              <ul>
                {p.lines.map((l) => (
                  <li>{l}</li>
                ))}
              </ul>
            </section>
          ))}
        </div>
        <aside class="side-col">
          {props.mode === "play" && (
            <Decision view={view} submitting={!!props.submitting} focus={focus} onClearFocus={() => setFocus(null)} onChoose={props.onChoose ?? (async () => "")} targetOf={(o) => targetOf(o, cat)} spaceName={spaceName} onHover={setHover} explain={explain} />
          )}
          {props.mode !== "play" && view.decision?.decisionId && !view.result && (
            <section class="decision card waiting">
              <p data-testid="waiting">
                Waiting for <strong>{view.decision.seats.map((s) => view.seats.find((x) => x.index === s)?.side ?? s).join(", ")}</strong>
              </p>
              <p class="muted">{view.decision.prompt}</p>
            </section>
          )}
          <Seats view={view} cat={cat} info={model.seats} />
          <EventLog events={props.events} />
        </aside>
      </div>
      {model.mine.length > 0 && (
        <section class="my-cards" aria-label="Your cards" data-testid="my-cards">
          {model.mine.map((g) => (
            <CardGroupView cat={cat} group={g} />
          ))}
        </section>
      )}
      {model.common.length > 0 && (
        <details class="common-cards">
          <summary>Public piles</summary>
          {model.common.map((g) => (
            <CardGroupView cat={cat} group={g} />
          ))}
        </details>
      )}
    </main>
  );
}
