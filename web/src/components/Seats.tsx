// The players around the table: side, name, bot, who acts now, public counts and cards.
import type { SeatView } from "../gen/warroom/v1/game_pb";
import type { Seat } from "../gen/warroom/v1/common_pb";
import type { GameCatalog } from "../lib/catalog";
import type { SeatPublic } from "../games/model";
import { CardBack } from "./Cards";
import { PALETTE } from "../games/model";
import { POWER_COLOURS } from "../games/ncw";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { formatDuration, useNow } from "../lib/hooks";

/** A seat's turn clock (public): counting down while the seat owes the decision, else what it has left. */
function SeatClock(props: { view: SeatView; seat: Seat }) {
  const now = useNow(500);
  const s = props.seat;
  if (!s.hasClock || props.view.result) return null;
  const running = s.clockRunning && !!s.clockDeadline;
  const left = running ? timestampMs(s.clockDeadline!) - now : Number(s.clockRemainingMs);
  const text = formatDuration(left);
  return (
    <span class={`clock${running ? " running" : " stopped"}${running && left < 60000 ? " low" : ""}`} data-testid="seat-clock" data-seat={String(s.index)} data-running={running ? "true" : "false"} data-ms={String(Math.max(0, Math.round(left)))} aria-label={`${s.side} clock: ${text} left${running ? ", running" : ", stopped"}`}>
      <i aria-hidden="true">{running ? (left < 60000 ? "⚠" : "◷") : "▮▮"}</i> {text}
    </span>
  );
}

export function seatName(view: SeatView, index: number): string {
  const s = view.seats.find((x) => x.index === index);
  if (!s) return `seat ${index}`;
  return `${s.side}${s.displayName ? ` (${s.displayName})` : ""}`;
}

const SIDE_COLOURS: [RegExp, string][] = [
  [/^(axis|soviet)/i, "#D55E00"],
  [/^(allies|western)/i, "#0072B2"],
  [/gold|yellow/i, "#E69F00"],
  [/orange|non-aligned/i, "#009E73"],
];

export function seatColour(view: SeatView, index: number): string {
  const side = view.seats.find((x) => x.index === index)?.side ?? "";
  return POWER_COLOURS[side] ?? SIDE_COLOURS.find(([re]) => re.test(side))?.[1] ?? PALETTE[index % PALETTE.length];
}

export function Seats(props: { view: SeatView; cat: GameCatalog; info: SeatPublic[] }) {
  const acting = new Set(props.view.decision?.seats ?? []);
  return (
    <section class="seats card" aria-label="Players" data-testid="seats">
      {props.view.seats.map((s) => {
        const info = props.info.find((i) => i.seat === s.index);
        const isMe = s.index === props.view.seat;
        return (
          <div class={`seat${acting.has(s.index) ? " acting" : ""}${isMe ? " me" : ""}`} data-testid="seat-panel" data-seat={String(s.index)} data-acting={acting.has(s.index) ? "true" : "false"}>
            <div class="seat-head">
              <i class="swatch" style={{ background: seatColour(props.view, s.index) }} />
              <strong>{s.side}</strong>
              <span class="seat-who">{s.displayName || (s.isBot ? "bot" : "")}</span>
              {s.isBot && <span class="badge">bot{s.bot?.kind ? ` ${s.bot.kind}` : ""}</span>}
              {isMe && <span class="badge me">you</span>}
              {acting.has(s.index) && <span class="badge acting" title="to act">▶ to act</span>}
              <SeatClock view={props.view} seat={s} />
            </div>
            {info && (
              <div class="seat-info">
                <div class="small">
                  <span data-testid="hand-count">{info.handCount}</span> card{info.handCount === 1 ? "" : "s"} in hand
                </div>
                {info.lines.map((l) => (
                  <div class="small">{l}</div>
                ))}
                {(info.faceDown > 0 || info.faceUp.length > 0) && (
                  <div class="mini-cards">
                    {Array.from({ length: Math.min(info.faceDown, 6) }, () => (
                      <CardBack label={`${s.side}: face-down card`} />
                    ))}
                    {info.faceUp.map((id) => {
                      const c = props.cat.cards.get(id);
                      return (
                        <span class="chip" title={c?.text} data-testid="public-card">
                          {c?.name ?? `card ${id}`}
                        </span>
                      );
                    })}
                  </div>
                )}
              </div>
            )}
          </div>
        );
      })}
    </section>
  );
}
