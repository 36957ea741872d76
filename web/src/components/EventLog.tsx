// The game log: every event as it streams in, with its version; newest at the bottom.
import { useEffect, useRef } from "preact/hooks";
import type { GameEvent } from "../gen/warroom/v1/common_pb";

export function EventLog(props: { events: GameEvent[] }) {
  const ref = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [props.events.length]);
  const indexes: number[] = [];
  let prev = -1n;
  let n = 0;
  for (const e of props.events) {
    n = e.version === prev ? n + 1 : 0;
    prev = e.version;
    indexes.push(n);
  }
  return (
    <section class="log card" aria-label="Game log">
      <h2>Log</h2>
      <ol ref={ref} class="events" aria-live="polite" aria-relevant="additions" data-testid="event-log">
        {props.events.map((e, i) => (
          <li class={`event kind-${e.kind}${e.public ? "" : " private"}`} data-testid="event-item" data-version={String(e.version)} data-index={indexes[i]}>
            <span class="ev-version">{String(e.version)}</span> {e.text}
            {!e.public && <span class="muted small"> (only you)</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
