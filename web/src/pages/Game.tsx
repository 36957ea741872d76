// Playing or spectating a live game: finds the seat (or spectator) token, keeps one
// GameConnection open, and renders the game screen.
import { useEffect, useMemo, useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import { GameConnection } from "../lib/gamestream";
import { loadCatalog, type GameCatalog } from "../lib/catalog";
import { saveSeat, seatFor, session, type SeatPass } from "../lib/session";
import { titleOf } from "../lib/titles";
import { useStore } from "../lib/store";
import { go } from "../lib/router";
import { GameView } from "./GameView";
import { Clock, LinkBadge } from "../components/Status";

async function resolvePass(gameId: string, spectate: boolean, token: string | null): Promise<SeatPass> {
  if (spectate) {
    if (token) return { gameId, token, seat: -1, side: "", rulesId: "", variant: "", savedAt: Date.now(), playerId: "" };
    const res = await lobby.getSpectatorAccess({ gameId });
    const g = res.game;
    if (!g?.spectatorToken) throw new Error("this game cannot be watched");
    return { gameId, token: g.spectatorToken, seat: -1, side: "", rulesId: g.rulesId, variant: g.variant, savedAt: Date.now(), playerId: "" };
  }
  const saved = seatFor(gameId);
  if (saved && (!saved.playerId || saved.playerId === session.value?.playerId)) return saved;
  const res = await lobby.getSeatAccess({ gameId });
  const a = res.assignment;
  if (!a) throw new Error("you have no seat in this game");
  const pass = { gameId, token: a.seatToken, seat: a.seat, side: a.side, rulesId: titleOf(a.game).rulesId, variant: a.variant, savedAt: Date.now(), playerId: session.value?.playerId ?? "" };
  saveSeat(pass);
  return pass;
}

export function GamePage(props: { gameId: string; spectate: boolean; token: string | null }) {
  const [pass, setPass] = useState<SeatPass | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    setPass(null);
    setError("");
    resolvePass(props.gameId, props.spectate, props.token).then(setPass, (e) => setError(errorText(e)));
  }, [props.gameId, props.spectate, props.token]);
  if (error)
    return (
      <main class="page">
        <p class="error" role="alert" data-testid="game-error">{error}</p>
        <a href="#/lobby">Back to the lobby</a>
      </main>
    );
  if (!pass) return <main class="page"><p class="muted">Opening the game…</p></main>;
  return <LiveGame pass={pass} spectate={props.spectate} />;
}

function LiveGame(props: { pass: SeatPass; spectate: boolean }) {
  const conn = useMemo(() => new GameConnection(props.pass.gameId, props.pass.token), [props.pass.gameId, props.pass.token]);
  useEffect(() => {
    conn.start();
    return () => conn.stop();
  }, [conn]);
  const snap = useStore(conn.state);
  const rulesId = snap.view?.rulesId || props.pass.rulesId;
  const [cat, setCat] = useState<GameCatalog | null>(null);
  const [catError, setCatError] = useState("");
  useEffect(() => {
    if (rulesId) loadCatalog(rulesId).then(setCat, (e) => setCatError(errorText(e)));
  }, [rulesId]);
  const [resignAsk, setResignAsk] = useState(false);
  const view = snap.view;
  if (!view || !cat)
    return (
      <main class="page">
        <LinkBadge link={snap.link} error={snap.error} reconnects={snap.reconnects} />
        <p class="muted">{catError || snap.error || "Loading the game…"}</p>
      </main>
    );
  const title = titleOf(view.rulesId);
  const header = (
    <>
      <h1 class="game-title">
        {title.name} <span class="muted">{view.variant}</span>
      </h1>
      {props.spectate ? <span class="badge">spectating</span> : <span class="badge me">{view.seats.find((s) => s.index === view.seat)?.side}</span>}
      <Clock view={view} />
      <LinkBadge link={snap.link} error={snap.error} reconnects={snap.reconnects} />
      <span class="muted small" data-testid="version">v{String(view.version)}</span>
      {!props.spectate && !view.result && (
        resignAsk ? (
          <span class="row">
            Resign?{" "}
            <button class="small danger" onClick={async () => { setResignAsk(false); await conn.resign(); }} data-testid="resign-confirm">Yes, resign</button>
            <button class="small" onClick={() => setResignAsk(false)}>No</button>
          </span>
        ) : (
          <button class="small" onClick={() => setResignAsk(true)} data-testid="resign">Resign</button>
        )
      )}
    </>
  );
  return (
    <GameView
      view={view}
      events={snap.events}
      cat={cat}
      header={header}
      mode={props.spectate ? "watch" : "play"}
      submitting={snap.submitting}
      onChoose={(o) => conn.submit(view.decision?.decisionId ?? "", o.id)}
      onReplay={() => go(`/replay/${view.gameId}`)}
    />
  );
}
