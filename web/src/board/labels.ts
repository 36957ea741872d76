// Label placement: each space's name (and badge line) goes below its node unless that
// overlaps a node or a label already placed; then above, right or left, whichever is free
// (greedy, spaces in reading order). Computed once per catalogue.
export interface LabelSpot {
  dx: number;
  dy: number;
  anchor: "middle" | "start" | "end";
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const CHAR = 7.4; // average glyph width of the 14px label font, in layout units
const LINE = 15;
const NODE = 18;

function overlaps(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

function boxOf(x: number, y: number, w: number, spot: LabelSpot): Box {
  const top = y + spot.dy - LINE + 3;
  const left = spot.anchor === "middle" ? x + spot.dx - w / 2 : spot.anchor === "start" ? x + spot.dx : x + spot.dx - w;
  return { x0: left, y0: top, x1: left + w, y1: top + 2 * LINE };
}

const SPOTS: LabelSpot[] = [
  { dx: 0, dy: 31, anchor: "middle" },
  { dx: 21, dy: 5, anchor: "start" },
  { dx: -21, dy: 5, anchor: "end" },
  { dx: 0, dy: -36, anchor: "middle" },
];

export interface Placement {
  spots: Map<string, LabelSpot>;
  /** Boxes already taken (nodes and labels), for placing region names around them. */
  taken: Box[];
}

export function placeLabels(spaces: { id: string; name: string; x: number; y: number }[]): Placement {
  const nodes: Box[] = spaces.map((s) => ({ x0: s.x - NODE, y0: s.y - NODE, x1: s.x + NODE, y1: s.y + NODE }));
  const placed: Box[] = [];
  const out = new Map<string, LabelSpot>();
  const order = [...spaces].sort((a, b) => a.y - b.y || a.x - b.x);
  for (const s of order) {
    const w = Math.max(s.name.length * CHAR, 30);
    let best = SPOTS[0];
    let bestHits = Infinity;
    for (const spot of SPOTS) {
      const box = boxOf(s.x, s.y, w, spot);
      const hits = nodes.filter((n) => overlaps(n, box)).length + placed.filter((p) => overlaps(p, box)).length * 2;
      if (hits < bestHits) {
        best = spot;
        bestHits = hits;
        if (hits === 0) break;
      }
    }
    out.set(s.id, best);
    placed.push(boxOf(s.x, s.y, w, best));
  }
  return { spots: out, taken: [...nodes, ...placed] };
}

/** Where a region's name goes: above, below, left or right of its spaces, the freest spot. */
export function placeRegionLabel(name: string, pts: { x: number; y: number }[], taken: Box[], others: { x: number; y: number }[]): { x: number; y: number } {
  const w = name.length * 13 + 20;
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const candidates = [
    { x: cx, y: y0 - 44 },
    { x: cx, y: y1 + 62 },
    { x: x0 - w / 2 - 24, y: cy },
    { x: x1 + w / 2 + 24, y: cy },
    { x: x0 + w / 2, y: y0 - 44 },
    { x: x1 - w / 2, y: y1 + 62 },
  ];
  let best = candidates[0];
  let bestHits = Infinity;
  for (const c of candidates) {
    const box = { x0: c.x - w / 2, y0: c.y - 22, x1: c.x + w / 2, y1: c.y + 24 };
    // Nodes and labels in the way, and other regions' spaces close by (a name belongs by its own region).
    const near = others.filter((p) => Math.abs(p.x - c.x) < w / 2 + 40 && Math.abs(p.y - c.y) < 60).length;
    const hits = taken.filter((t) => overlaps(t, box)).length + near;
    if (hits < bestHits) {
      best = c;
      bestHits = hits;
    }
  }
  return best;
}
