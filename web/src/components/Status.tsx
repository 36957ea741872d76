// Connection state, clocks and the result screen.
import type { LinkState } from "../lib/gamestream";
import type { SeatView } from "../gen/warroom/v1/game_pb";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { formatDuration, useNow } from "../lib/hooks";
import { seatName } from "./Seats";

const LINK_TEXT: Record<LinkState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Connection lost — reconnecting…",
  offline: "You are offline — will reconnect when the network is back",
  ended: "Game over",
  failed: "Disconnected",
};

export function LinkBadge(props: { link: LinkState; error: string; reconnects: number }) {
  const bad = props.link === "reconnecting" || props.link === "offline" || props.link === "failed";
  return (
    <span class={`link-badge link-${props.link}`} role="status" aria-live="polite" data-testid="connection-status" data-state={props.link} title={props.error || undefined}>
      <i aria-hidden="true">{bad ? "⚠" : props.link === "live" ? "●" : "○"}</i> {LINK_TEXT[props.link]}
      {props.link === "failed" && props.error ? `: ${props.error}` : ""}
    </span>
  );
}

export function Clock(props: { view: SeatView }) {
  const now = useNow(500);
  const d = props.view.clockDeadline;
  if (!d || props.view.result) return null;
  const left = timestampMs(d) - now;
  return (
    <span class={`clock${left < 60000 ? " low" : ""}`} data-testid="clock" aria-label={`Your clock: ${formatDuration(left)} left`}>
      ◷ {formatDuration(left)}
    </span>
  );
}

export function Result(props: { view: SeatView; onReplay?: () => void }) {
  const r = props.view.result;
  if (!r) return null;
  const rows = [...r.seats].sort((a, b) => a.rank - b.rank);
  const me = props.view.seat;
  const won = rows.find((x) => x.seat === me)?.winner;
  return (
    <section class="result card" data-testid="result" data-winner-seats={rows.filter((s) => s.rank === 0).map((s) => s.seat).join(",")} aria-labelledby="result-h">
      <h2 id="result-h">{me >= 0 ? (won ? "🏆 You won!" : "Game over") : "Game over"}</h2>
      <p class="muted">Ended by {r.reason || "the rules"}</p>
      <table class="result-table">
        <thead>
          <tr>
            <th scope="col">Place</th>
            <th scope="col">Seat</th>
            <th scope="col">Score</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr class={s.winner ? "winner" : ""} data-testid="result-row">
              <td>{s.rank + 1}{s.winner ? " ★ winner" : ""}</td>
              <td>{seatName(props.view, s.seat)}{s.seat === me ? " (you)" : ""}</td>
              <td>{s.score}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="row">
        {props.onReplay && (
          <button onClick={props.onReplay} data-testid="result-replay">
            Watch the replay
          </button>
        )}
        <a class="button" href="#/lobby" data-testid="back-to-lobby">
          Back to the lobby
        </a>
      </div>
    </section>
  );
}
