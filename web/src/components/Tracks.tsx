// Score tracks (VP, prestige, media, Victory Stars): a scale with each side's marker,
// labelled with its letters and value, not colour alone.
import type { TrackRow } from "../games/model";

export function Tracks(props: { tracks: TrackRow[] }) {
  return (
    <div class="tracks" data-testid="tracks">
      {props.tracks.map((t) => {
        const span = Math.max(1, t.max - t.min);
        // Stagger markers that would overlap: a marker close to one already in a row goes up a row.
        const rows: number[][] = [];
        const rowOf = new Map<number, number>();
        [...t.entries.keys()].sort((a, b) => t.entries[a].value - t.entries[b].value).forEach((i) => {
          const at = ((Math.min(Math.max(t.entries[i].value, t.min), t.max) - t.min) / span) * 100;
          let r = rows.findIndex((row) => row.every((p) => Math.abs(p - at) > 9));
          if (r < 0) r = rows.push([]) - 1;
          rows[r].push(at);
          rowOf.set(i, r);
        });
        return (
          <div class="track" data-testid={`track-${t.name.split(" ")[0].toLowerCase()}`}>
            <div class="track-name">{t.name}</div>
            <div class="track-bar" role="img" aria-label={`${t.name}: ${t.entries.map((e) => `${e.label} ${e.value}`).join(", ")}`}>
              <span class="track-min">{t.min}</span>
              {t.entries.map((e, i) => (
                <span class="track-marker" style={{ left: `${((Math.min(Math.max(e.value, t.min), t.max) - t.min) / span) * 100}%`, background: e.colour, bottom: `${2 + (rowOf.get(i) ?? 0) * 15}px` }}>
                  {e.label}
                </span>
              ))}
              <span class="track-max">{t.max}</span>
            </div>
            <div class="track-values">
              {t.entries.map((e) => (
                <span>
                  <i class="swatch" style={{ background: e.colour }} /> {e.label} <strong>{e.value}</strong>
                </span>
              ))}
            </div>
          </div>
        );
      })}
    </div>
  );
}
