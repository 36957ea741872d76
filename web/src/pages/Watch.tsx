// Live public games to spectate, filterable by title.
import { useEffect, useState } from "preact/hooks";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { lobby } from "../lib/api";
import { useAsync } from "../lib/hooks";
import { TITLES, titleOf } from "../lib/titles";

export function Watch() {
  const [rulesId, setRulesId] = useState("");
  const list = useAsync(() => lobby.listLiveGames({ rulesId, page: { pageSize: 50 } }), [rulesId]);
  useEffect(() => {
    const t = setInterval(list.reload, 5000);
    return () => clearInterval(t);
  }, [rulesId]);
  const gamesList = list.data?.games ?? [];
  return (
    <main class="page" data-testid="watch-page">
      <h1>Watch live games</h1>
      <label>
        Game{" "}
        <select value={rulesId} onChange={(e) => setRulesId((e.target as HTMLSelectElement).value)} data-testid="watch-filter">
          <option value="">all titles</option>
          {TITLES.map((t) => (
            <option value={t.rulesId}>{t.name}</option>
          ))}
        </select>
      </label>
      {list.error && <p class="error" role="alert">{list.error}</p>}
      <section class="card">
        {gamesList.length === 0 ? (
          <p class="muted">{list.loading ? "Loading…" : "No live game to watch right now."}</p>
        ) : (
          <ul class="game-list">
            {gamesList.map((g) => (
              <li class="game-row" data-testid="live-game-row" data-game-id={g.gameId} data-rules-id={g.rulesId}>
                <div>
                  <strong>{titleOf(g.rulesId || g.game).name}</strong> <span class="muted">{g.variant}</span>
                  <div class="small muted">{g.seats.map((s) => `${s.side}: ${s.displayName || (s.isBot ? "bot" : "?")}`).join(" · ")}</div>
                  {g.startedAt && <div class="small muted">started {new Date(timestampMs(g.startedAt)).toLocaleTimeString()}</div>}
                </div>
                <a class="button primary" href={`#/spectate/${g.gameId}?token=${encodeURIComponent(g.spectatorToken)}`} data-testid="live-game-watch">
                  Watch
                </a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
