// The board as SVG, drawn only from the catalogue's map (spaces at their layout
// coordinates, adjacency lines, regions) plus the title adapter's overlays.
import { useMemo } from "preact/hooks";
import type { GameCatalog } from "../lib/catalog";
import type { BoardModel, PieceMark, SpaceOverlay } from "../games/model";
import type { Option } from "../gen/warroom/v1/common_pb";
import { hull, polygonPath, type Pt } from "./geometry";
import { placeLabels, placeRegionLabel, type LabelSpot } from "./labels";

const REGION_FILLS = ["#e8d9b5", "#cfe3c4", "#d7d0ea", "#f2d0c4", "#c9e0e8", "#efe3a8", "#dccfc0", "#d3e8d9", "#ead3e3"];

interface Props {
  cat: GameCatalog;
  model: BoardModel;
  targets: Map<string, Option[]>;
  selected: string;
  onPick: (spaceId: string) => void;
}

export function Board(props: Props) {
  const map = props.cat.raw.map;
  const width = map?.width || 1600;
  const height = map?.height || 900;
  const spaces = map?.spaces ?? [];
  const pos = useMemo(() => new Map(spaces.map((s) => [s.id, { x: s.layout?.x ?? 0, y: s.layout?.y ?? 0 }])), [props.cat]);
  const placement = useMemo(() => placeLabels(spaces.map((s) => ({ id: s.id, name: s.name, x: s.layout?.x ?? 0, y: s.layout?.y ?? 0 }))), [props.cat]);
  const labels = placement.spots;
  const regions = useMemo(() => {
    return (map?.regions ?? [])
      .filter((r) => r.kind === "region" || r.kind === "minor_country")
      .map((r, i) => {
        const pts = r.members.map((m) => pos.get(m)).filter((p): p is Pt => !!p);
        const h = hull(pts);
        const mine = new Set(r.members);
        const others = spaces.filter((s) => !mine.has(s.id)).map((s) => ({ x: s.layout?.x ?? 0, y: s.layout?.y ?? 0 }));
        const label = pts.length ? placeRegionLabel(r.name, pts, placement.taken, others) : { x: 0, y: 0 };
        return { r, path: polygonPath(h), label, fill: REGION_FILLS[i % REGION_FILLS.length] };
      })
      .filter((x) => x.path);
  }, [props.cat]);
  const edges = map?.adjacencies ?? [];
  // Crop to the drawn spaces (with room for labels and pieces) so the board fills its box.
  const xs = [...spaces.map((s) => s.layout?.x ?? 0), ...regions.flatMap(({ r, label }) => [label.x - r.name.length * 7, label.x + r.name.length * 7])];
  const ys = [...spaces.map((s) => s.layout?.y ?? 0), ...regions.map(({ label }) => label.y + 40)];
  const x0 = xs.length ? Math.max(-20, Math.min(...xs) - 80) : -20;
  const y0 = ys.length ? Math.max(-20, Math.min(...ys) - 90) : -20;
  const x1 = xs.length ? Math.min(width + 20, Math.max(...xs) + 80) : width + 20;
  const y1 = ys.length ? Math.min(height + 20, Math.max(...ys) + 60) : height + 20;
  return (
    <svg class="board" viewBox={`${x0} ${y0} ${x1 - x0} ${y1 - y0}`} role="group" aria-label={`${props.cat.raw.title} board`} data-testid="board">
      <rect x={x0} y={y0} width={x1 - x0} height={y1 - y0} class="board-bg" />
      <g class="regions">
        {regions.map(({ r, path, fill }) => (
          <path d={path} fill={fill} stroke={fill} class="region" data-region={r.id} />
        ))}
      </g>
      <g class="edges">
        {edges.map((e) => {
          const a = pos.get(e.a);
          const b = pos.get(e.b);
          if (!a || !b) return null;
          return <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class={`edge edge-${e.kind || "land"}`} />;
        })}
      </g>
      <g class="region-labels">
        {regions.map(({ r, label }) => {
          const key = `region:${r.id}`;
          const opts = props.targets.get(key);
          const notes = props.model.regionNotes.get(r.id) ?? [];
          return (
            <g
              class={opts ? "region-label target" : "region-label"}
              transform={`translate(${label.x},${label.y})`}
              data-testid={`region-${r.id}`}
              {...(opts ? clickable(r.name, opts, () => props.onPick(key)) : {})}
            >
              <text class="region-name" text-anchor="middle">
                {r.name}
              </text>
              {notes.map((n, i) => (
                <g class="region-note" transform={`translate(0,${20 + i * 18})`}>
                  <Padlock x={-(n.length * 3.6) - 14} y={-11} />
                  <text text-anchor="middle">{n}</text>
                </g>
              ))}
            </g>
          );
        })}
      </g>
      <g class="spaces">
        {spaces.map((s) => {
          const p = pos.get(s.id)!;
          const o = props.model.overlays.get(s.id);
          const opts = props.targets.get(s.id);
          return (
            <SpaceNode
              id={s.id}
              name={s.name}
              sea={s.terrain === "sea" || s.terrain === "water"}
              x={p.x}
              y={p.y}
              o={o}
              label={labels.get(s.id)}
              options={opts}
              selected={props.selected === s.id}
              onPick={() => props.onPick(s.id)}
            />
          );
        })}
      </g>
    </svg>
  );
}

/** A padlock icon (New Cold War access markers). */
function Padlock(props: { x: number; y: number }) {
  return (
    <g class="padlock" transform={`translate(${props.x},${props.y})`} aria-hidden="true">
      <path d="M3,6 v-2.5 a4,4 0 0 1 8,0 v2.5" fill="none" stroke="#4a3f2a" stroke-width="2" />
      <rect x={1} y={6} width={12} height={9} rx={2} fill="#4a3f2a" />
    </g>
  );
}

function clickable(name: string, opts: Option[], pick: () => void) {
  return {
    // lower-case: on SVG elements Preact sets attributes, and only `tabindex` makes them focusable
    tabindex: 0,
    role: "button" as const,
    "aria-label": opts.length === 1 ? `${name}: ${opts[0].label}` : `${name}: ${opts.length} options`,
    onClick: pick,
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        pick();
      }
    },
  };
}

function groupPieces(pieces: PieceMark[]): { p: PieceMark; n: number }[] {
  const out: { p: PieceMark; n: number }[] = [];
  for (const p of pieces) {
    const g = out.find((x) => x.p.glyph === p.glyph && x.p.colour === p.colour && x.p.shape === p.shape);
    if (g) g.n++;
    else out.push({ p, n: 1 });
  }
  return out;
}

function Piece(props: { p: PieceMark; n: number; x: number; y: number }) {
  const { p, x, y } = props;
  const r = 11;
  let shape;
  if (p.shape === "circle") shape = <circle cx={x} cy={y} r={r - 1} fill={p.colour} />;
  else if (p.shape === "triangle") shape = <path d={`M${x},${y - r - 1}L${x + r + 1},${y + r - 1}L${x - r - 1},${y + r - 1}Z`} fill={p.colour} />;
  else if (p.shape === "diamond") shape = <path d={`M${x},${y - r - 1}L${x + r + 1},${y}L${x},${y + r + 1}L${x - r - 1},${y}Z`} fill={p.colour} />;
  else shape = <rect x={x - r} y={y - r} width={2 * r} height={2 * r} rx={3} fill={p.colour} />;
  return (
    <g class="piece">
      <title>{`${props.n > 1 ? `${props.n} × ` : ""}${p.title}`}</title>
      {shape}
      <text x={x} y={y + 4.5} class="piece-glyph" text-anchor="middle">
        {p.glyph}
      </text>
      {props.n > 1 && (
        <text x={x + r + 1} y={y - r + 4} class="piece-count">
          {props.n}
        </text>
      )}
    </g>
  );
}

function SpaceNode(props: { id: string; name: string; sea: boolean; x: number; y: number; o?: SpaceOverlay; label?: LabelSpot; options?: Option[]; selected: boolean; onPick: () => void }) {
  const { x, y, o } = props;
  const spot = props.label ?? { dx: 0, dy: 31, anchor: "middle" as const };
  const groups = groupPieces(o?.pieces ?? []);
  const perRow = 4;
  const step = 25;
  const cls = ["space", props.sea ? "sea" : "land", props.options ? "target" : "", props.selected ? "selected" : "", o?.highlight ? "highlight" : ""].filter(Boolean).join(" ");
  const notes = [props.name, ...(o?.notes ?? [])].join("\n");
  return (
    <g class={cls} data-testid="board-space" data-space-id={props.id} data-targetable={props.options ? "true" : undefined} {...(props.options ? clickable(props.name, props.options, props.onPick) : {})}>
      <title>{notes}</title>
      {props.options && <circle cx={x} cy={y} r={25} class="target-ring" />}
      {props.sea ? <rect x={x - 21} y={y - 14} width={42} height={28} rx={14} class="node" /> : <circle cx={x} cy={y} r={16} class="node" />}
      {o?.ownerColour && (props.sea ? <rect x={x - 21} y={y - 14} width={42} height={28} rx={14} class="owner-ring" stroke={o.ownerColour} /> : <circle cx={x} cy={y} r={16} class="owner-ring" stroke={o.ownerColour} />)}
      {o?.ownerGlyph && (
        <text x={x} y={y + 5} class="owner-glyph" text-anchor="middle">
          {o.ownerGlyph}
        </text>
      )}
      <text x={x + spot.dx} y={y + spot.dy} class="space-name" text-anchor={spot.anchor}>
        {props.name}
      </text>
      {o && o.badges.length > 0 && (
        <text x={x + spot.dx} y={y + spot.dy + 15} class="space-badges" text-anchor={spot.anchor}>
          {o.badges.join(" ")}
        </text>
      )}
      {groups.map((g, i) => {
        const row = Math.floor(i / perRow);
        const inRow = Math.min(perRow, groups.length - row * perRow);
        const col = i % perRow;
        return <Piece p={g.p} n={g.n} x={x + (col - (inRow - 1) / 2) * step} y={y - 29 - row * step} />;
      })}
    </g>
  );
}
