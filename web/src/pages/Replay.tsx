// Replay viewer of a finished game: GetReplay for the option log and result, and the view
// of every version from 0 (the setup) paged by GetReplayViews (the viewer's own seat, or the
// public view), stepped forward and back or jumped to any version.
import { useEffect, useMemo, useState } from "preact/hooks";
import { lobby, games, errorText } from "../lib/api";
import { loadCatalog, type GameCatalog } from "../lib/catalog";
import { seatFor, session } from "../lib/session";
import type { GetReplayResponse, SeatView } from "../gen/warroom/v1/game_pb";
import type { GameEvent } from "../gen/warroom/v1/common_pb";
import { titleOf } from "../lib/titles";
import { GameView } from "./GameView";

interface Frame {
  version: number;
  view: SeatView;
  events: GameEvent[];
}

interface Pass {
  label: string;
  token: string;
  // GetReplayViews.seat: unset = the token's own view, -1 = the public view
  seat?: number;
}

const PAGE = 100; // GetReplayViews' largest page

// Every version's view (0 .. final) of a finished game as `pass` sees it, page by page.
async function replayFrames(gameId: string, pass: Pass, signal: AbortSignal, progress: (n: number) => void): Promise<Frame[]> {
  const got: Frame[] = [];
  let from = 0n;
  for (;;) {
    const page = await games.getReplayViews({ gameId, token: pass.token, fromVersion: from, count: PAGE, seat: pass.seat }, { signal });
    for (const v of page.views) got.push({ version: Number(v.version), view: v, events: v.events });
    progress(got.length);
    if (!page.views.length || page.nextVersion > page.finalVersion) return got;
    from = page.nextVersion;
  }
}

async function passesFor(gameId: string): Promise<Pass[]> {
  const out: Pass[] = [];
  const mine = seatFor(gameId);
  if (mine && mine.seat >= 0 && (!mine.playerId || mine.playerId === session.value?.playerId)) out.push({ label: `your seat (${mine.side})`, token: mine.token });
  if (!mine && session.value) {
    try {
      const a = (await lobby.getSeatAccess({ gameId })).assignment;
      if (a) out.push({ label: `your seat (${a.side})`, token: a.seatToken });
    } catch {
      /* not seated */
    }
  }
  // A seat holder sees the public view with its own token (GetReplayViews seat -1): a
  // spectator token would wait for the replay delay after the end.
  const seat = out[0];
  if (seat) return [...out, { label: "public view", token: seat.token, seat: -1 }];
  try {
    const g = (await lobby.getSpectatorAccess({ gameId })).game;
    if (g?.spectatorToken) return [{ label: "public view (spectator)", token: g.spectatorToken }];
  } catch {
    /* not watchable */
  }
  return out;
}

export function ReplayPage(props: { gameId: string; token: string | null }) {
  const [passes, setPasses] = useState<Pass[]>([]);
  const [passIdx, setPassIdx] = useState(0);
  const [replay, setReplay] = useState<GetReplayResponse | null>(null);
  const [frames, setFrames] = useState<Frame[]>([]);
  const [loaded, setLoaded] = useState(0);
  const [done, setDone] = useState(false);
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [error, setError] = useState("");
  const [cat, setCat] = useState<GameCatalog | null>(null);

  useEffect(() => {
    (async () => {
      const ps = props.token ? [{ label: "given token", token: props.token }] : await passesFor(props.gameId);
      if (!ps.length) throw new Error("no seat or spectator access to this game");
      setPasses(ps);
    })().catch((e) => setError(errorText(e)));
  }, [props.gameId, props.token]);

  const pass = passes[passIdx];
  useEffect(() => {
    if (!pass) return;
    const ctl = new AbortController();
    setFrames([]);
    setLoaded(0);
    setDone(false);
    setError("");
    (async () => {
      const r = await games.getReplay({ gameId: props.gameId, token: pass.token }, { signal: ctl.signal });
      setReplay(r);
      loadCatalog(r.rulesId || titleOf(r.game).rulesId).then(setCat, (e) => setError(errorText(e)));
      const got = await replayFrames(props.gameId, pass, ctl.signal, setLoaded);
      setFrames(got);
      setAt((cur) => (cur === 0 ? got.length - 1 : cur));
      setDone(true);
    })().catch((e) => {
      if (!ctl.signal.aborted) setError(errorText(e));
    });
    return () => ctl.abort();
  }, [pass?.token, pass?.seat]);

  useEffect(() => {
    if (!playing) return;
    const t = setInterval(() => setAt((a) => (a + 1 < frames.length ? a + 1 : (setPlaying(false), a))), 600);
    return () => clearInterval(t);
  }, [playing, frames.length]);

  const frame = frames[Math.min(at, frames.length - 1)];
  const events = useMemo(() => frames.slice(0, at + 1).flatMap((f) => f.events), [frames, at]);
  const onKey = (e: KeyboardEvent) => {
    if ((e.target as HTMLElement).tagName === "INPUT") return;
    if (e.key === "ArrowRight") setAt((a) => Math.min(frames.length - 1, a + 1));
    if (e.key === "ArrowLeft") setAt((a) => Math.max(0, a - 1));
  };
  useEffect(() => {
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [frames.length]);

  if (error) return <main class="page"><p class="error" role="alert" data-testid="replay-error">{error}</p></main>;
  if (!done || !frame || !cat || !replay) return <main class="page" data-testid="replay-loading"><p class="muted">Loading the replay… {loaded ? `${loaded} versions` : ""}</p></main>;
  const last = frames.length - 1;
  const jump = (v: number) => {
    const i = frames.findIndex((f) => f.version >= v);
    setAt(i < 0 ? last : i);
  };
  const action = replay.actions.find((a) => Number(a.version) === frame.version);
  const header = (
    <>
      <h1 class="game-title">
        Replay: {titleOf(replay.rulesId || replay.game).name} <span class="muted">{replay.variant}</span>
      </h1>
      <div class="replay-controls" data-testid="replay-viewer" data-version={String(frame.version)} data-last-version={String(frames[last].version)} data-first-version={String(frames[0].version)} role="group" aria-label="Replay controls">
        <button class="small" onClick={() => setAt(0)} disabled={at === 0} aria-label="First version" data-testid="replay-first">«</button>
        <button class="small" onClick={() => setAt(Math.max(0, at - 1))} disabled={at === 0} aria-label="Step back" data-testid="replay-prev">◀</button>
        <button class="small" onClick={() => setPlaying(!playing)} aria-pressed={playing} data-testid="replay-play">{playing ? "Pause" : "Play"}</button>
        <button class="small" onClick={() => setAt(Math.min(last, at + 1))} disabled={at >= last} aria-label="Step forward" data-testid="replay-next">▶</button>
        <button class="small" onClick={() => setAt(last)} disabled={at >= last} aria-label="Last version" data-testid="replay-last">»</button>
        <input type="range" min={0} max={last} value={at} aria-label="Version" onInput={(e) => setAt(Number((e.target as HTMLInputElement).value))} data-testid="replay-slider" />
        <label class="inline">
          version
          <input
            type="number"
            class="narrow"
            min={frames[0].version}
            max={frames[last].version}
            value={frame.version}
            data-testid="replay-jump"
            onKeyDown={(e) => {
              if (e.key === "Enter") jump(Number((e.target as HTMLInputElement).value));
            }}
            onChange={(e) => jump(Number((e.target as HTMLInputElement).value))}
          />
          / {frames[last].version}
          {!done && " (loading…)"}
        </label>
        {passes.length > 1 && (
          <select aria-label="See the view of" value={passIdx} onChange={(e) => setPassIdx(Number((e.target as HTMLSelectElement).value))} data-testid="replay-seat">
            {passes.map((p, i) => (
              <option value={i}>{p.label}</option>
            ))}
          </select>
        )}
      </div>
      {action && (
        <span class="muted small" data-testid="replay-action">
          v{String(action.version)} · {replay.seats.find((s) => s.index === action.seat)?.side ?? `seat ${action.seat}`}
          {frame.events.length ? `: ${frame.events.map((e) => e.text).join(" · ")}` : ""}
        </span>
      )}
    </>
  );
  return <GameView view={frame.view} events={events} cat={cat} header={header} mode="replay" />;
}
