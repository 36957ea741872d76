// My games: live games with the ones where it is my turn first, my clock, last activity;
// recently finished games with a replay link.
import { useEffect } from "preact/hooks";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { lobby } from "../lib/api";
import { useAsync, useNow, formatDuration } from "../lib/hooks";
import { titleOf } from "../lib/titles";
import { Table_Status, type MyGame } from "../gen/warroom/v1/lobby_pb";

function ago(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export function MyGames() {
  const list = useAsync(() => lobby.listMyGames({ includeFinished: true, page: { pageSize: 50 } }), []);
  const now = useNow(1000);
  useEffect(() => {
    const t = setInterval(list.reload, 5000);
    return () => clearInterval(t);
  }, []);
  const all = list.data?.games ?? [];
  // the games where it is my turn first (the lobby lists by activity), each group in the lobby's order
  const live = all.filter((g) => g.status !== Table_Status.FINISHED).sort((a, b) => Number(b.myTurn) - Number(a.myTurn));
  const finished = all.filter((g) => g.status === Table_Status.FINISHED);
  const row = (g: MyGame) => {
    const t = titleOf(g.rulesId || g.game);
    const deadline = g.clockDeadline ? timestampMs(g.clockDeadline) : 0;
    const toAct = g.toAct.map((i) => g.seats.find((s) => s.index === i)?.side ?? `seat ${i}`).join(", ");
    return (
      <li class={`game-row${g.myTurn ? " my-turn" : ""}`} data-testid="mygame-row" data-game-id={g.gameId} data-rules-id={g.rulesId} data-my-turn={g.myTurn ? "true" : "false"} data-finished={g.status === Table_Status.FINISHED ? "true" : "false"}>
        <div>
          <strong>{t.name}</strong> <span class="muted">{g.variant}</span> · you play <strong>{g.side}</strong>
          <div class="small muted">
            {g.seats.map((s) => `${s.side}: ${s.displayName || (s.isBot ? "bot" : "?")}`).join(" · ")}
          </div>
          <div class="small">
            {g.status === Table_Status.FINISHED
              ? `finished ${g.finishedAt ? ago(timestampMs(g.finishedAt)) : ""} · ${g.result?.seats.find((s) => s.seat === g.seat)?.winner ? "you won" : "you did not win"}`
              : g.myTurn
                ? "your turn"
                : g.liveInfo
                  ? `waiting for ${toAct || "—"}`
                  : "status unknown"}
            {g.lastActivity && ` · last move ${ago(timestampMs(g.lastActivity))}`}
          </div>
        </div>
        <div class="row">
          {deadline > 0 && g.status !== Table_Status.FINISHED && (
            <span class={`clock${deadline - now < 60000 ? " low" : ""}`} data-testid="mygame-clock">
              ◷ {formatDuration(deadline - now)}
            </span>
          )}
          {g.myTurn && <span class="badge turn">Your turn</span>}
          {g.status === Table_Status.FINISHED ? (
            <a class="button" href={`#/replay/${g.gameId}`} data-testid="mygame-replay">Replay</a>
          ) : (
            <a class="button primary" href={`#/game/${g.gameId}`} data-testid="mygame-open">{g.myTurn ? "Play" : "Open"}</a>
          )}
        </div>
      </li>
    );
  };
  return (
    <main class="page" data-testid="my-games-page">
      <h1>My games</h1>
      {list.error && <p class="error" role="alert">{list.error}</p>}
      <section class="card">
        <h2>Live</h2>
        {live.length === 0 ? <p class="muted">{list.loading ? "Loading…" : "No live game. Start one from the lobby."}</p> : <ul class="game-list">{live.map(row)}</ul>}
      </section>
      {finished.length > 0 && (
        <section class="card">
          <h2>Recently finished</h2>
          <ul class="game-list">{finished.map(row)}</ul>
        </section>
      )}
    </main>
  );
}
