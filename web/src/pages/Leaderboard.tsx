// The leaderboard of each title.
import { useState } from "preact/hooks";
import { lobby } from "../lib/api";
import { useAsync } from "../lib/hooks";
import { TITLES } from "../lib/titles";
import { session } from "../lib/session";

export function Leaderboard() {
  const [rulesId, setRulesId] = useState("ncw");
  // the title travels with its answer: the table never shows one title's rows under another's name
  const list = useAsync(async () => ({ rulesId, res: await lobby.getLeaderboard({ rulesId, page: { pageSize: 50 } }) }), [rulesId]);
  const me = session.value?.playerId;
  const player = useAsync(() => lobby.getPlayer({}), [rulesId]);
  const mine = player.data?.player?.ratings.find((r) => r.rulesId === rulesId);
  return (
    <main class="page" data-testid="leaderboard-page">
      <h1>Leaderboard</h1>
      <label class="inline">
        Game
        <select value={rulesId} onChange={(e) => setRulesId((e.target as HTMLSelectElement).value)} data-testid="leaderboard-game">
          {TITLES.map((t) => (
            <option value={t.rulesId}>{t.name}</option>
          ))}
        </select>
      </label>
      {list.error && <p class="error" role="alert">{list.error}</p>}
      <p class="muted" data-testid="my-rating">
        {mine ? `Your rating: ${mine.ordinal.toFixed(1)} after ${mine.games} game${mine.games === 1 ? "" : "s"} (μ ${mine.mu.toFixed(1)}, σ ${mine.sigma.toFixed(1)})` : player.data?.player?.guest ? "Guests are not rated: register an account to appear here." : "You have no rated game of this title yet."}
      </p>
      <section class="card">
        <table class="leaderboard" data-testid="leaderboard" data-rules-id={list.data?.rulesId === rulesId && !player.loading ? rulesId : ""}>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Player</th>
              <th scope="col">Rating</th>
              <th scope="col">Games</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.res.entries ?? []).map((e) => (
              <tr class={e.player?.playerId === me ? "me" : ""} data-testid="leaderboard-row" data-player-id={e.player?.playerId} data-player-name={e.player?.displayName}>
                <td>{e.rank}</td>
                <td>
                  {e.player?.displayName}
                  {e.player?.bot && <span class="badge">bot</span>}
                </td>
                <td title={e.rating ? `μ ${e.rating.mu.toFixed(1)}, σ ${e.rating.sigma.toFixed(1)}` : undefined}>{e.rating?.ordinal.toFixed(1)}</td>
                <td>{e.rating?.games}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {!list.loading && !(list.data?.res.entries.length) && <p class="muted">No rated game yet.</p>}
      </section>
    </main>
  );
}
