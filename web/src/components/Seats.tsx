// The players around the table: side, name, bot, who acts now, public counts and cards.
import type { SeatView } from "../gen/warroom/v1/game_pb";
import type { GameCatalog } from "../lib/catalog";
import type { SeatPublic } from "../games/model";
import { CardBack } from "./Cards";
import { PALETTE } from "../games/model";
import { POWER_COLOURS } from "../games/ncw";

export function seatName(view: SeatView, index: number): string {
  const s = view.seats.find((x) => x.index === index);
  if (!s) return `seat ${index}`;
  return `${s.side}${s.displayName ? ` (${s.displayName})` : ""}`;
}

export function seatColour(view: SeatView, index: number): string {
  const s = view.seats.find((x) => x.index === index);
  return POWER_COLOURS[s?.side ?? ""] ?? PALETTE[index % PALETTE.length];
}

export function Seats(props: { view: SeatView; cat: GameCatalog; info: SeatPublic[] }) {
  const acting = new Set(props.view.decision?.seats ?? []);
  return (
    <section class="seats card" aria-label="Players" data-testid="seats">
      {props.view.seats.map((s) => {
        const info = props.info.find((i) => i.seat === s.index);
        const isMe = s.index === props.view.seat;
        return (
          <div class={`seat${acting.has(s.index) ? " acting" : ""}${isMe ? " me" : ""}`} data-testid={`seat-${s.index}`} data-acting={acting.has(s.index) ? "true" : "false"}>
            <div class="seat-head">
              <i class="swatch" style={{ background: seatColour(props.view, s.index) }} />
              <strong>{s.side}</strong>
              <span class="seat-who">{s.displayName || (s.isBot ? "bot" : "")}</span>
              {s.isBot && <span class="badge">bot{s.bot?.kind ? ` ${s.bot.kind}` : ""}</span>}
              {isMe && <span class="badge me">you</span>}
              {acting.has(s.index) && <span class="badge acting" title="to act">▶ to act</span>}
            </div>
            {info && (
              <div class="seat-info">
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
