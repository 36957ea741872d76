// QMG: South Front: pieces by location (infantry, tanks, airplanes, fleets, carriers; carried
// pieces on their fleet), control, supply flags, Victory Stars, VP track, combat, hands.
import type { View } from "../gen/warroom/games/qmg_sf/v1/qmg_sf_pb";
import { type Adapter, type BoardModel, type PieceMark, emptyModel, overlay, vpMax } from "./model";

const SIDE_COLOURS = ["#D55E00", "#0072B2"];
const SIDE_NAMES = ["Axis", "Allies"];
const FACTION_COLOURS: Record<string, string> = { Germany: "#7F4F24", Pact: "#D55E00", UK: "#0072B2", USA: "#56B4E9", France: "#009E73" };
const KIND_MARK: Record<string, { glyph: string; shape: PieceMark["shape"] }> = {
  infantry: { glyph: "I", shape: "square" },
  tank: { glyph: "T", shape: "square" },
  airplane: { glyph: "P", shape: "diamond" },
  fleet: { glyph: "F", shape: "triangle" },
  carrier: { glyph: "C", shape: "triangle" },
};

export const qmgSfAdapter: Adapter = (seatView, typed, cat) => {
  const v = typed as View;
  const p = v.public;
  const m: BoardModel = emptyModel();
  m.legend = "Pieces: I infantry, T tank (squares), P airplane (diamond), F fleet, C carrier (triangles) · ring AX / AL: Axis / Allied control · ★ Victory Star · ⚑ supply flag";
  if (!p) return m;
  const pieceType = new Map<number, { owner: string; kind: string; name: string }>();
  for (const t of cat.raw.pieceTypes) for (const id of t.pieceIds) pieceType.set(id, { owner: t.owner, kind: t.kind, name: t.name });
  const spaces = cat.raw.map?.spaces ?? [];
  for (const s of spaces) {
    const o = overlay(m.overlays, s.id);
    const c = p.control[s.index];
    if (c === 0 || c === 1) {
      o.ownerColour = SIDE_COLOURS[c];
      o.ownerGlyph = c === 0 ? "AX" : "AL";
      o.notes.push(`Controlled by the ${SIDE_NAMES[c]}`);
    } else if (s.terrain !== "sea") o.notes.push("Neutral");
    if (s.victoryStar) o.badges.push("★");
    if (s.supplyFlags.length) {
      o.badges.push(`⚑ ${[...new Set(s.supplyFlags.map((f) => f.replace(/\s*\(.*\)/, "").slice(0, 3)))].join("/")}`);
      o.notes.push(`Supply flag: ${s.supplyFlags.join(", ")}`);
    }
    if (s.desert) o.notes.push("Desert");
    if (s.minorCountry) o.notes.push(`Minor country: ${s.minorCountry}`);
  }
  p.loc.forEach((loc, piece) => {
    if (loc < 0) return;
    const space = cat.spacesByIndex.get(loc);
    if (!space) return;
    const t = pieceType.get(piece);
    const kind = KIND_MARK[t?.kind ?? ""] ?? { glyph: "?", shape: "circle" as const };
    const carried = (p.on[piece] ?? -1) >= 0;
    const o = overlay(m.overlays, space.id);
    const who = t ? `${t.owner} ${t.kind}` : `piece ${piece}`;
    o.pieces.push({ glyph: kind.glyph, colour: FACTION_COLOURS[t?.owner ?? ""] ?? "#999", shape: kind.shape, title: `${who} #${piece}${carried ? " (carried)" : ""}` });
    o.notes.push(`${who} #${piece}${carried ? " (carried)" : ""}`);
  });
  const stars = [0, 0];
  for (const s of spaces) if (s.victoryStar && (p.control[s.index] === 0 || p.control[s.index] === 1)) stars[p.control[s.index]]++;
  const track = cat.raw.tracks.find((t) => t.id.includes("vp"));
  m.tracks.push({ name: "Victory points", min: track?.min ?? 0, max: vpMax(p.vp, track?.max), entries: p.vp.map((x, i) => ({ label: SIDE_NAMES[i].slice(0, 2), value: x, colour: SIDE_COLOURS[i] })) });
  m.tracks.push({ name: "Victory Stars held", min: 0, max: Math.max(1, spaces.filter((s) => s.victoryStar).length), entries: stars.map((x, i) => ({ label: SIDE_NAMES[i].slice(0, 2), value: x, colour: SIDE_COLOURS[i] })) });
  // `active` is the side whose turn the round is in (not who decides now: the decision panel says that)
  m.status.push(`Round ${p.round}`);
  if (p.phase !== "setup") m.status.push(`${SIDE_NAMES[p.active] ?? "?"} turn`);
  if (p.phase) m.status.push(p.phase.replace(/_/g, " "));
  if (p.hasCombat && p.combat) {
    const c = p.combat;
    const src = cat.spacesByIndex.get(c.src)?.name ?? c.src;
    const tgt = cat.spacesByIndex.get(c.tgt)?.name ?? c.tgt;
    m.panels.push({ title: "Combat", lines: [`${SIDE_NAMES[c.side]} attack from ${src} into ${tgt}${c.sea ? " (naval)" : ""}`, `${c.force.length} attacking pieces, round ${c.rounds + 1}`], testid: "combat" });
    const o = m.overlays.get(cat.spacesByIndex.get(c.tgt)?.id ?? "");
    if (o) o.highlight = true;
  }
  for (const seat of seatView.seats) {
    const i = seat.index;
    m.seats.push({
      seat: i,
      lines: [`${v.deckSizes[i] ?? 0} in deck`, `${v.discardSizes[i] ?? 0} discarded · ${v.lateSizes[i] ?? 0} late-war cards`],
      faceDown: 0,
      handCount: v.handSizes[i] ?? 0,
      faceUp: [...(v.revealed[i]?.values ?? [])],
    });
  }
  if (v.viewer >= 0) {
    m.mine.push({ title: "Your hand", kind: "card", ids: [...v.hand], testid: "hand" });
    if (v.ownDiscards.length) m.mine.push({ title: "Your discard pile", kind: "card", ids: [...v.ownDiscards].reverse(), testid: "own-discards" });
  }
  const cont = v.contingency.map((c) => `${c.faceName}${c.secondName ? ` / ${c.secondName}` : ""}${c.state === 2 ? " (used)" : ""}`);
  if (cont.length) m.panels.push({ title: "Contingency cards", lines: cont, testid: "contingency" });
  return m;
};
