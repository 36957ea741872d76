// QMG: The Cold War: each bloc's pieces (space*32 + nat*4 + kind), supply tokens
// (space*8 + nat), supply spaces, VP track and escalation, seats' public cards.
import type { View } from "../gen/warroom/games/qmg_cw/v1/qmg_cw_pb";
import { type Adapter, type BoardModel, emptyModel, overlay, vpMax } from "./model";
import type { GameCatalog } from "../lib/catalog";

const NAT_NAMES = ["Soviet", "Western", "Chinese", "Indian", "Nationalist"];
const BLOC_NAMES = ["Soviet", "Western", "Non-Aligned"];
export const NAT_COLOURS = ["#D55E00", "#0072B2", "#E69F00", "#009E73", "#CC79A7"];
const BLOC_COLOURS = ["#D55E00", "#0072B2", "#009E73"];
const KINDS = [
  { glyph: "A", name: "army", shape: "square" as const },
  { glyph: "N", name: "navy", shape: "triangle" as const },
  { glyph: "F", name: "air force", shape: "diamond" as const },
];

function sideNames(cat: GameCatalog, kind: string, fallback: string[]): string[] {
  const out = [...fallback];
  for (const s of cat.raw.sides) if (s.kind === kind && s.index >= 0) out[s.index] = s.name;
  return out;
}

export const qmgCwAdapter: Adapter = (seatView, typed, cat) => {
  const v = typed as View;
  const m: BoardModel = emptyModel();
  m.legend = "Pieces: A army (square), N navy (triangle), F air force (diamond), S supply token (disc); letters on the ring: nationality (SO Soviet, WE Western, CH Chinese, IN Indian, NA Nationalist) · ✪ supply space";
  const nats = sideNames(cat, "nationality", NAT_NAMES);
  const blocs = sideNames(cat, "bloc", BLOC_NAMES);
  const spaceId = (i: number) => cat.spacesByIndex.get(i)?.id ?? `#${i}`;
  for (const s of cat.raw.map?.spaces ?? []) {
    const o = overlay(m.overlays, s.id);
    if (s.supply) o.badges.push("✪ supply");
    o.notes.push(s.terrain === "sea" ? "Sea space" : "Land space");
  }
  for (const code of v.pieces) {
    const space = code >> 5;
    const nat = (code >> 2) & 7;
    const kind = KINDS[code & 3] ?? KINDS[0];
    const o = overlay(m.overlays, spaceId(space));
    const who = nats[nat] ?? `nat ${nat}`;
    o.pieces.push({ glyph: kind.glyph, colour: NAT_COLOURS[nat] ?? "#999", shape: kind.shape, title: `${who} ${kind.name}${v.organic.includes(code) ? " (organic supply)" : ""}` });
    o.notes.push(`${who} ${kind.name}`);
    o.ownerColour = NAT_COLOURS[nat];
    o.ownerGlyph = who.slice(0, 2).toUpperCase();
  }
  for (const t of v.tokens) {
    const nat = t & 7;
    const o = overlay(m.overlays, spaceId(t >> 3));
    o.pieces.push({ glyph: "S", colour: NAT_COLOURS[nat] ?? "#999", shape: "circle", title: `${nats[nat]} supply token` });
    o.notes.push(`${nats[nat]} supply token`);
  }
  if (v.lastSpace >= 0) overlay(m.overlays, spaceId(v.lastSpace)).highlight = true;
  const track = cat.raw.tracks.find((t) => t.id.includes("vp"));
  m.tracks.push({
    name: "Victory points",
    min: track?.min ?? 0,
    max: vpMax(v.vp, track?.max),
    entries: v.vp.map((x, i) => ({ label: blocs[i]?.slice(0, 3) ?? `B${i}`, value: x, colour: BLOC_COLOURS[i] ?? "#999" })),
  });
  m.status.push(`Round ${v.round}`, `${blocs[v.active] ?? "?"} bloc's turn`);
  if (v.stack.length) m.status.push(v.stack[v.stack.length - 1].kind.replace(/_/g, " "));
  const esc: string[] = [];
  for (let of = 0; of < 3; of++)
    for (let against = 0; against < 3; against++) {
      const lvl = v.esc[of * 3 + against];
      if (of !== against && lvl) esc.push(`${blocs[of]} → ${blocs[against]}: ${lvl}`);
    }
  m.panels.push({ title: "Escalation", lines: esc.length ? esc : ["none"], testid: "escalation" });
  v.seats.forEach((s, i) => {
    m.seats.push({
      seat: i,
      lines: [`${blocs[s.bloc]} bloc`, `${s.deckCount} in deck`, `${s.espionageCount} espionage · ${s.discardDownCount} discarded face down`],
      faceDown: s.espionageCount,
      handCount: s.handCount,
      faceUp: [...s.prepared, ...s.discardUp.slice(-3)],
    });
  });
  const me = v.viewer;
  const mine = me >= 0 ? v.seats[me] : undefined;
  if (mine) {
    m.mine.push({ title: "Your hand", kind: "card", ids: [...mine.hand], testid: "hand" });
    if (mine.opening.length) m.mine.push({ title: "Opening draw", kind: "card", ids: [...mine.opening], testid: "opening" });
    m.mine.push({ title: "Your espionage cards (face down)", kind: "card", ids: [...mine.espionage], testid: "my-espionage" });
    if (mine.prepared.length) m.mine.push({ title: "Prepared", kind: "card", ids: [...mine.prepared], testid: "prepared" });
  }
  void seatView;
  return m;
};
