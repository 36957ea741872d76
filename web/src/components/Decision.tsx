// The pending decision: prompt, every option as a keyboard-operable button, undo, and
// "waiting for X" while other seats act.
import { useEffect, useRef, useState } from "preact/hooks";
import type { SeatView } from "../gen/warroom/v1/game_pb";
import type { Option } from "../gen/warroom/v1/common_pb";
import { isUndo } from "../lib/targets";
import { seatName } from "./Seats";

interface Props {
  view: SeatView;
  /** An answer is on its way (from this list or the board): every option is disabled. */
  submitting: boolean;
  /** Options narrowed by a click on the board (empty: none). */
  focus: { label: string; options: Option[] } | null;
  onClearFocus: () => void;
  onChoose: (o: Option) => Promise<string>;
  targetOf: (o: Option) => string | undefined;
  spaceName: (id: string) => string;
  onHover: (spaceId: string) => void;
  /** The full text of a card or objective the option names, if any (shown on hover and to screen readers). */
  explain: (o: Option) => string;
}

export function Decision(props: Props) {
  const d = props.view.decision;
  // Busy only for the decision being answered: the next decision's options are live at once.
  const [busyKey, setBusyKey] = useState("");
  const key = `${d?.decisionId}:${props.view.version}`;
  const busy = busyKey === key || props.submitting;
  // The keyboard user who chose keeps the focus in the list when the next options come.
  const refocus = useRef(false);
  const [error, setError] = useState("");
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    setError("");
    if (listRef.current) listRef.current.scrollTop = 0;
  }, [d?.decisionId, props.view.version]);
  useEffect(() => {
    if (busy || !refocus.current) return;
    const active = document.activeElement;
    if (active && active !== document.body && !listRef.current?.contains(active)) return;
    refocus.current = false;
    (listRef.current?.querySelector("button.option:not([disabled])") as HTMLButtonElement | null)?.focus();
  });
  useEffect(() => {
    if (props.focus) (listRef.current?.querySelector("button.option") as HTMLButtonElement | null)?.focus();
  }, [props.focus]);
  if (props.view.result) return null;
  if (!d || !d.decisionId) return <section class="decision card"><p class="muted">Nothing to decide.</p></section>;
  const options = d.options;
  const me = props.view.seat;
  const mine = options.length > 0;
  const others = d.seats.filter((s) => s !== me);
  const waiting = others.map((s) => seatName(props.view, s)).join(", ");
  if (!mine) {
    return (
      <section class="decision card waiting" aria-live="polite">
        <p data-testid="waiting">
          <span class="spinner" aria-hidden="true" /> Waiting for <strong>{waiting || "the other players"}</strong>
          {me >= 0 && d.seats.includes(me) ? "" : ""}
        </p>
        <p class="muted">{d.prompt}</p>
      </section>
    );
  }
  const undo = options.find(isUndo);
  const regular = options.filter((o) => !isUndo(o));
  const shown = props.focus ? props.focus.options.filter((o) => !isUndo(o)) : regular;
  async function choose(o: Option) {
    if (busy) return;
    refocus.current = !!listRef.current?.contains(document.activeElement) || document.activeElement?.getAttribute("data-undo") === "true";
    setBusyKey(key);
    setError("");
    const err = await props.onChoose(o);
    setBusyKey((k) => (k === key ? "" : k));
    if (err) setError(err);
  }
  return (
    <section class="decision card mine" aria-labelledby="decision-prompt" data-testid="decision" data-decision-id={d.decisionId}>
      <h2 id="decision-prompt" class="your-turn" data-testid="decision-prompt">
        <span class="badge turn">Your turn</span> {d.prompt}
      </h2>
      {others.length > 0 && <p class="muted small">Also deciding: {waiting}</p>}
      {props.focus && (
        <p class="focus-note">
          Options for <strong>{props.focus.label}</strong>{" "}
          <button class="small" onClick={props.onClearFocus} data-testid="options-show-all">
            show all {regular.length}
          </button>
        </p>
      )}
      <div class="options" ref={listRef} role="list" data-testid="options">
        {shown.map((o) => {
          const t = props.targetOf(o);
          return (
            <div role="listitem">
              <button class="option" disabled={busy} title={props.explain(o) || undefined} aria-description={props.explain(o) || undefined} onClick={() => choose(o)} data-testid="option" data-option-id={o.id} data-target={t} onMouseEnter={() => t && props.onHover(t)} onFocus={() => t && props.onHover(t)} onMouseLeave={() => props.onHover("")} onBlur={() => props.onHover("")}>
                {o.label || o.id}
                {t && !t.startsWith("region:") && !o.label.toLowerCase().includes(props.spaceName(t).toLowerCase()) && <span class="muted"> · {props.spaceName(t)}</span>}
              </button>
            </div>
          );
        })}
      </div>
      {undo && (
        <button class="undo" disabled={busy} onClick={() => choose(undo)} data-testid="undo-button" data-option-id={undo.id} data-undo="true">
          ↶ {undo.label || "Undo"}
        </button>
      )}
      {error && <p class="error" role="alert" data-testid="decision-error">{error}</p>}
    </section>
  );
}
