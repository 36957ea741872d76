// Score tracks (VP, prestige, media, Victory Stars): a scale with each side's marker,
// labelled with its letters and value, not colour alone.
import type { TrackRow } from "../games/model";

export function Tracks(props: { tracks: TrackRow[] }) {
  return (
    <div class="tracks" data-testid="tracks">
      {props.tracks.map((t) => {
        const span = Math.max(1, t.max - t.min);
        return (
          <div class="track" data-testid={`track-${t.name.split(" ")[0].toLowerCase()}`}>
            <div class="track-name">{t.name}</div>
            <div class="track-bar" role="img" aria-label={`${t.name}: ${t.entries.map((e) => `${e.label} ${e.value}`).join(", ")}`}>
              <span class="track-min">{t.min}</span>
              {t.entries.map((e, i) => (
                <span class="track-marker" style={{ left: `${(Math.min(Math.max(e.value, t.min), t.max) - t.min) / span * 100}%`, background: e.colour, top: `${2 + (i % 2) * 14}px` }}>
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
