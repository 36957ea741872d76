// Public matchmaking: enqueue, live ticket status (WatchTicket, resumed after drops), cancel.
import { useEffect, useState } from "preact/hooks";
import { lobby, errorText, isTransient } from "../lib/api";
import type { GameCatalog } from "../lib/catalog";
import type { Title } from "../lib/titles";
import { TicketStatus, type WatchTicketResponse } from "../gen/warroom/v1/lobby_pb";
import { openAssignment } from "../lib/assign";
import { BotPicker, defaultBot, type BotChoice, type CatalogBotKind } from "../components/BotPicker";
import { variantLabel, useTitle, GameSelect } from "./Lobby";
import { titleOf } from "../lib/titles";
import { partyStore } from "./Parties";
import { useStore } from "../lib/store";
import { session } from "../lib/session";

const TICKET_KEY = "warroom.ticket";

export function Matchmaking() {
  const [rulesId, setRulesId] = useState("ncw");
  const t = useTitle(rulesId);
  return (
    <section class="card" aria-labelledby="mm-h" data-testid="matchmaking">
      <h2 id="mm-h">Public matchmaking</h2>
      <GameSelect value={rulesId} onChange={setRulesId} testid="queue-game" />
      {t.error && <p class="error">{t.error}</p>}
      {t.data && t.data.rulesId === rulesId ? <Queue key={rulesId} title={titleOf(rulesId)} cat={t.data.cat} kinds={t.data.kinds} /> : !t.error && <p class="muted">Loading…</p>}
    </section>
  );
}

function Queue(props: { title: Title; cat: GameCatalog; kinds: CatalogBotKind[] }) {
  const variants = props.cat.raw.variants.filter((v) => v.playerCount >= 2 || v.seats.filter((s) => !s.automated).length >= 2);
  const [variant, setVariant] = useState("");
  const [allowBots, setAllowBots] = useState(false);
  const [botAfter, setBotAfter] = useState(10);
  const [bot, setBot] = useState<BotChoice>(defaultBot(props.kinds));
  const [side, setSide] = useState("");
  const [ticketId, setTicketId] = useState<string>(() => localStorage.getItem(TICKET_KEY) ?? "");
  const [status, setStatus] = useState<WatchTicketResponse | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [withParty, setWithParty] = useState(true);
  const party = useStore(partyStore)?.party;
  const leader = !!party && party.leaderPlayerId === session.value?.playerId && party.members.some((m) => m.accepted && m.playerId !== party.leaderPlayerId);
  useEffect(() => {
    if (ticketId) return;
    // Resume a ticket queued from another tab or before a reload.
    lobby.listMyTickets({}).then((r) => {
      const t = r.tickets.find((x) => x.status === TicketStatus.SEARCHING || x.status === TicketStatus.MATCHED);
      if (t) setTicketId(t.ticketId);
    }, () => undefined);
  }, []);
  const sides = [...new Set(props.cat.raw.variants.flatMap((v) => v.seats.filter((s) => !s.automated).map((s) => s.side)))];

  useEffect(() => {
    if (!ticketId) return;
    const ctl = new AbortController();
    let stopped = false;
    (async () => {
      for (let attempt = 0; !stopped; attempt++) {
        try {
          for await (const msg of lobby.watchTicket({ ticketId }, { signal: ctl.signal })) {
            attempt = 0;
            setStatus(msg);
            setError("");
            if (msg.status === TicketStatus.MATCHED && msg.assignment) {
              localStorage.removeItem(TICKET_KEY);
              openAssignment(msg.assignment);
              return;
            }
            if (msg.status === TicketStatus.CANCELLED || msg.status === TicketStatus.EXPIRED) {
              localStorage.removeItem(TICKET_KEY);
              setTicketId("");
              return;
            }
          }
        } catch (err) {
          if (stopped) return;
          if (!isTransient(err)) {
            setError(errorText(err));
            localStorage.removeItem(TICKET_KEY);
            setTicketId("");
            return;
          }
          setError(`Connection lost, reconnecting… (${errorText(err)})`);
        }
        await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** attempt)));
      }
    })();
    return () => {
      stopped = true;
      ctl.abort();
    };
  }, [ticketId]);

  async function enqueue() {
    setBusy(true);
    setError("");
    try {
      const res = await lobby.enqueueTicket({
        rulesId: props.title.rulesId,
        variants: variant ? [variant] : [],
        sidePreferences: side ? [side] : [],
        allowBots,
        botFillAfterS: allowBots ? botAfter : 0,
        fillBot: allowBots ? { kind: bot.kind, difficulty: bot.difficulty } : undefined,
        withParty: leader && withParty,
      });
      const id = res.ticket?.ticketId ?? "";
      localStorage.setItem(TICKET_KEY, id);
      setStatus(null);
      setTicketId(id);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  async function cancel() {
    setBusy(true);
    try {
      await lobby.cancelTicket({ ticketId });
      localStorage.removeItem(TICKET_KEY);
      setTicketId("");
      setStatus(null);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      {ticketId ? (
        <div class="ticket" aria-live="polite" data-testid="ticket-status" data-status={status ? TicketStatus[status.status].toLowerCase() : "searching"}>
          <p>
            <span class="spinner" aria-hidden="true" /> {status ? TicketStatus[status.status].toLowerCase() : "queued"}
            {status && status.status === TicketStatus.SEARCHING && (
              <span class="muted">
                {" "}· waited {Math.round(status.waitedS)} s · {status.poolSize} in pool · rating window ±{status.ratingWindow.toFixed(0)}
              </span>
            )}
          </p>
          <button onClick={cancel} disabled={busy} data-testid="queue-cancel">
            Cancel search
          </button>
        </div>
      ) : (
        <div class="stack">
          <label>
            Variant
            <select value={variant} onChange={(e) => setVariant((e.target as HTMLSelectElement).value)} data-testid="queue-variant">
              <option value="">any variant</option>
              {variants.map((v) => (
                <option value={v.id}>{variantLabel(v)}</option>
              ))}
            </select>
          </label>
          <label>
            Preferred side
            <select value={side} onChange={(e) => setSide((e.target as HTMLSelectElement).value)} data-testid="queue-side">
              <option value="">no preference</option>
              {sides.map((s) => (
                <option value={s}>{s}</option>
              ))}
            </select>
          </label>
          <label class="inline">
            <input type="checkbox" checked={allowBots} onChange={(e) => setAllowBots((e.target as HTMLInputElement).checked)} data-testid="queue-allow-bots" /> fill empty seats with bots after
            <input type="number" min={0} max={600} value={botAfter} class="narrow" aria-label="seconds before bots fill" onInput={(e) => setBotAfter(Number((e.target as HTMLInputElement).value))} data-testid="queue-bot-fill-after" /> s
          </label>
          {leader && (
            <label class="inline">
              <input type="checkbox" checked={withParty} onChange={(e) => setWithParty((e.target as HTMLInputElement).checked)} data-testid="mm-with-party" /> queue with my party
            </label>
          )}
          <BotPicker kinds={props.kinds.filter((k) => !k.kind.endsWith("official"))} value={bot} onChange={setBot} label="Fill bot" testid="queue-bot" />
          <button class="primary" onClick={enqueue} disabled={busy} data-testid="queue-submit">
            Find a game
          </button>
        </div>
      )}
      {error && <p class="error" role="alert" data-testid="mm-error">{error}</p>}
    </div>
  );
}
