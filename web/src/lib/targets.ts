// Which board space an option targets: the option's structured fields when they name a
// space, else a space id inside the option id (New Cold War "pos:costa_rica"), else the
// last space name its label mentions ("Move UK tank #4 to El Alamein").
import type { Option } from "../gen/warroom/v1/common_pb";
import type { GameCatalog } from "./catalog";

const FIELD_KEYS = ["space", "country", "target", "to", "where", "destination", "region"];

export function isUndo(o: Option): boolean {
  return o.id === "undo" || (o as { kind?: number }).kind === 2 || o.fields.some((f) => f.key === "undo");
}

function lookup(cat: GameCatalog, value: string): string | undefined {
  if (cat.spacesById.has(value)) return value;
  const lower = value.toLowerCase();
  return cat.names.find(([n]) => n === lower)?.[1];
}

export function targetOf(o: Option, cat: GameCatalog): string | undefined {
  if (isUndo(o)) return undefined;
  for (const key of FIELD_KEYS) {
    const f = o.fields.find((x) => x.key === key);
    const id = f && lookup(cat, f.value);
    if (id) return id;
  }
  for (const part of o.id.split(/[:]/).reverse()) {
    if (cat.spacesById.has(part)) return part;
    if (cat.regionIds.has(part)) return `region:${part}`;
  }
  const label = o.label.toLowerCase();
  const hits: { start: number; end: number; id: string }[] = [];
  for (const [name, id] of cat.names) {
    if (name.length < 3) continue;
    for (let from = 0; ; ) {
      const i = label.indexOf(name, from);
      if (i < 0) break;
      const okBefore = i === 0 || !/[a-z0-9]/.test(label[i - 1]);
      const okAfter = i + name.length >= label.length || !/[a-z0-9]/.test(label[i + name.length]);
      if (okBefore && okAfter) hits.push({ start: i, end: i + name.length, id });
      from = i + 1;
    }
  }
  // Drop a name inside a longer one ("Sudan" in "South Sudan"); the last-mentioned space wins.
  const kept = hits.filter((h) => !hits.some((o) => o !== h && o.start <= h.start && o.end >= h.end && o.end - o.start > h.end - h.start));
  kept.sort((a, b) => b.start - a.start);
  return kept[0]?.id;
}

/** Space id -> the options that target it. */
export function targetsOf(options: Option[], cat: GameCatalog | null): Map<string, Option[]> {
  const out = new Map<string, Option[]>();
  if (!cat) return out;
  for (const o of options) {
    const id = targetOf(o, cat);
    if (!id) continue;
    const list = out.get(id) ?? [];
    list.push(o);
    out.set(id, list);
  }
  return out;
}
