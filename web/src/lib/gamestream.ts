// One game as this browser sees it: the latest SeatView, the event log and the connection
// state. WatchGame is resumed from the last version seen after any drop, so every version's
// events are appended exactly once.
import { create } from "@bufbuild/protobuf";
import { ConnectError, Code } from "@connectrpc/connect";
import type { SeatView } from "../gen/warroom/v1/game_pb";
import type { GameEvent } from "../gen/warroom/v1/common_pb";
import { SubmitActionRequestSchema } from "../gen/warroom/v1/game_pb";
import { games, errorText, isTransient } from "./api";
import { Store } from "./store";
import { describe, errorReason, netState } from "./errors";

export type LinkState = "connecting" | "live" | "reconnecting" | "offline" | "ended" | "failed";

export interface GameSnapshot {
  view: SeatView | null;
  events: GameEvent[];
  link: LinkState;
  error: string;
  /** Last version whose events are in `events`. */
  streamVersion: bigint;
  /** Reconnections so far (visible in the status bar). */
  reconnects: number;
  /** An answer is on its way: the options stay disabled until it is answered. */
  submitting: boolean;
}

const RETRY_MS = [250, 500, 1000, 2000, 4000];
const RECENT_CAP = 50;
// Refusals that only mean "your view was behind": answered by reading the view again.
const STALE = ["STALE_VERSION", "VERSION_CONFLICT"];

export class GameConnection {
  readonly state = new Store<GameSnapshot>({
    view: null,
    events: [],
    link: "connecting",
    error: "",
    streamVersion: -1n,
    reconnects: 0,
    submitting: false,
  });
  private abort: AbortController | null = null;
  private stopped = false;
  private inflight = "";
  private attempt = 0;
  private wake: (() => void) | null = null;
  private readonly onOnline = () => this.wake?.();
  private readonly onOffline = () => {
    this.patch({ link: "offline" });
    this.abort?.abort(); // a dead connection may hang: drop it, resume when back online
  };

  constructor(
    readonly gameId: string,
    readonly token: string,
  ) {}

  start(): void {
    addEventListener("online", this.onOnline);
    addEventListener("offline", this.onOffline);
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    removeEventListener("online", this.onOnline);
    removeEventListener("offline", this.onOffline);
    this.abort?.abort();
    this.wake?.();
    netState.set(navigator.onLine ? "online" : "offline");
  }

  private patch(p: Partial<GameSnapshot>): void {
    this.state.set({ ...this.state.value, ...p });
    const link = this.state.value.link;
    const net = link === "offline" || !navigator.onLine ? "offline" : link === "reconnecting" || link === "failed" ? "reconnecting" : "online";
    if (!this.stopped && netState.value !== net) netState.set(net);
  }

  /** Accept a view if it is newer than the one shown (SubmitAction answers, stream updates). */
  acceptView(view: SeatView | undefined): void {
    if (!view) return;
    const cur = this.state.value.view;
    if (!cur || view.version >= cur.version) this.patch({ view });
  }

  private appendEvents(version: bigint, events: GameEvent[]): void {
    const s = this.state.value;
    if (version <= s.streamVersion) return; // already have this version: never doubled
    this.patch({ events: events.length ? [...s.events, ...events] : s.events, streamVersion: version });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        if (this.state.value.streamVersion < 0n) await this.initial();
        await this.watch(this.abort.signal);
        if (this.state.value.view?.result) {
          this.patch({ link: "ended" });
          return;
        }
        // The server closed the stream without a result (e.g. a replica restart): resume.
      } catch (err) {
        if (this.stopped) return;
        if (!isTransient(err) && !(err instanceof ConnectError && err.code === Code.Canceled)) {
          this.patch({ link: "failed", error: errorText(err) });
          return;
        }
        this.patch({ link: navigator.onLine ? "reconnecting" : "offline", error: describe(err) });
      }
      if (this.stopped) return;
      await this.pause(RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)]);
      if (!this.stopped) this.patch({ reconnects: this.state.value.reconnects + 1 });
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }

  /** First contact: the current view and its recent events. */
  private async initial(): Promise<void> {
    const res = await games.getView({ gameId: this.gameId, token: this.token }, { signal: this.abort?.signal });
    const view = res.view;
    if (!view) throw new Error("empty view");
    // The view's recent events are capped (50): when full, the oldest version in it may be
    // cut short, so keep only whole versions.
    let events = [...view.events];
    if (events.length >= RECENT_CAP && events.length) {
      const oldest = events.reduce((m, e) => (e.version < m ? e.version : m), events[0].version);
      if (events.some((e) => e.version !== oldest)) events = events.filter((e) => e.version !== oldest);
    }
    this.patch({ view, events, streamVersion: view.version, error: "" });
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const from = this.state.value.streamVersion;
    const stream = games.watchGame({ gameId: this.gameId, token: this.token, fromVersion: from }, { signal });
    this.patch({ link: "live", error: "" });
    for await (const update of stream) {
      this.attempt = 0;
      if (this.state.value.link !== "live") this.patch({ link: "live", error: "" });
      this.appendEvents(update.version, update.events);
      this.acceptView(update.view);
      if (update.view?.result) return;
    }
  }

  /** Answer the pending decision; returns an error text, or "" when accepted.
   *
   * One answer at a time: while one is on its way (`submitting`, the options are disabled)
   * another is ignored, so a fast second click (or a view that moved on meanwhile) never
   * sends a second answer for one decision. */
  async submit(decisionId: string, optionId: string): Promise<string> {
    const view = this.state.value.view;
    if (!view) return "no view yet";
    if (this.inflight) return "";
    const key = `${decisionId}@${view.version}`;
    this.inflight = key;
    this.patch({ submitting: true });
    try {
      return await this.send(view, decisionId, optionId);
    } finally {
      this.inflight = "";
      this.patch({ submitting: false });
    }
  }

  /** The view again (after an answer the game had moved past): shown without an error. */
  private async refresh(): Promise<void> {
    try {
      const res = await games.getView({ gameId: this.gameId, token: this.token });
      this.acceptView(res.view);
    } catch {
      /* the stream brings the next view anyway */
    }
  }

  private async send(view: SeatView, decisionId: string, optionId: string): Promise<string> {
    const req = create(SubmitActionRequestSchema, {
      gameId: this.gameId,
      token: this.token,
      expectedVersion: view.version,
      decisionId,
      optionId,
      idempotencyKey: `${this.gameId}:${view.seat}:${view.version}:${decisionId}:${optionId}`,
    });
    for (let i = 0; ; i++) {
      try {
        const res = await games.submitAction(req);
        this.acceptView(res.view);
        return "";
      } catch (err) {
        // Same idempotency key on every retry: a retry never applies the answer twice.
        if (i < 4 && err instanceof ConnectError && [Code.Unavailable, Code.DeadlineExceeded, Code.Unknown].includes(err.code)) {
          await new Promise((r) => setTimeout(r, RETRY_MS[i]));
          continue;
        }
        // The view answered was already behind (e.g. an update still on its way): nothing
        // went wrong for the player, so read the view again instead of showing an error.
        if (err instanceof ConnectError && err.code === Code.Aborted && STALE.includes(errorReason(err))) {
          await this.refresh();
          return "";
        }
        return errorText(err);
      }
    }
  }

  async resign(): Promise<string> {
    try {
      await games.resign({ gameId: this.gameId, token: this.token });
      return "";
    } catch (err) {
      return errorText(err);
    }
  }
}
