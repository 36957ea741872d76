// New Cold War: control, stability and tokens per country, VP/prestige/media tracks,
// negotiating center, access padlocks, hands and secret objectives.
import type { View } from "../gen/warroom/games/ncw/v1/ncw_pb";
import { type Adapter, type BoardModel, emptyModel, overlay, vpMax } from "./model";

export const POWER_COLOURS: Record<string, string> = { US: "#0072B2", EU: "#56B4E9", China: "#D55E00", Russia: "#CC79A7" };
const POWER_GLYPH: Record<string, string> = { US: "US", EU: "EU", China: "CN", Russia: "RU" };
const MODES = ["", "event", "OPs", "reserve"];

function trackRange(cat: Parameters<Adapter>[2], id: string, min: number, max: number): [number, number] {
  const t = cat.raw.tracks.find((x) => x.id === id || x.id.startsWith(id));
  return t && t.max > t.min ? [t.min, t.max] : [min, max];
}

export const ncwAdapter: Adapter = (seatView, typed, cat) => {
  const v = typed as View;
  const m: BoardModel = emptyModel();
  m.legend = "Ring and letters: controlling power (US, EU, CN China, RU Russia) · a|b: stability blue|red · B / R disc: blue / red stability token · padlock: regions a power has no access to";
  const powers = v.powers.map((p) => p.power);
  const colour = (i: number) => POWER_COLOURS[powers[i]] ?? "#999";
  for (const c of v.countries) {
    const o = overlay(m.overlays, c.id);
    const space = cat.spacesById.get(c.id);
    if (c.control >= 0) {
      o.ownerColour = colour(c.control);
      o.ownerGlyph = POWER_GLYPH[powers[c.control]] ?? powers[c.control];
      o.notes.push(`Controlled by ${powers[c.control]}`);
    } else o.notes.push("Uncontrolled");
    if (space) {
      const st = space.stability;
      const blue = st["blue"];
      const red = st["red"];
      if (blue !== undefined || red !== undefined) o.badges.push(`${blue ?? "-"}|${red ?? "-"}`);
      o.notes.push(`Stability blue ${blue ?? "-"}, red ${red ?? "-"}`);
      if (space.type) o.notes.push(space.type.replace("_", " ").replace("geo", "GEO"));
      if (space.orbit) o.notes.push(`ORBIT of ${space.orbit}`);
    }
    if (c.token) {
      const blueTok = c.token === 1;
      o.pieces.push({ glyph: blueTok ? "B" : "R", colour: blueTok ? "#0072B2" : "#D55E00", shape: "circle", title: `${blueTok ? "Blue" : "Red"} stability token` });
      o.notes.push(`${blueTok ? "Blue" : "Red"} stability token`);
    }
    if (c.vpModifier) o.notes.push(`VP modifier ${c.vpModifier > 0 ? "+" : ""}${c.vpModifier}`);
  }
  const [pmin, pmax] = trackRange(cat, "prestige", -5, 5);
  m.tracks.push({ name: "Victory points", min: Math.min(0, ...v.powers.map((p) => p.vp)), max: vpMax(v.powers.map((p) => p.vp)), entries: v.powers.map((p, i) => ({ label: POWER_GLYPH[p.power] ?? p.power, value: p.vp, colour: colour(i) })) });
  m.tracks.push({ name: "Prestige", min: pmin, max: pmax, entries: v.powers.map((p, i) => ({ label: POWER_GLYPH[p.power] ?? p.power, value: p.prestige, colour: colour(i) })) });
  const [mmin, mmax] = trackRange(cat, "media", -5, 5);
  m.tracks.push({ name: "Media (− red, + blue)", min: mmin, max: mmax, entries: [{ label: "M", value: v.media, colour: "#444" }] });
  m.status.push(`Turn ${v.turn}`, `Round ${v.round}`);
  if (v.phase) m.status.push(v.phase.replace(/_/g, " "));
  m.status.push(`Deck ${v.deckCount}`);
  // Access padlocks: a region a power has no access to.
  for (const r of cat.raw.map?.regions ?? []) {
    if (r.kind !== "region" || r.index < 0) continue;
    const shown = v.powers.filter((p) => !((p.access >> r.index) & 1)).map((p) => p.power);
    if (shown.length) m.regionNotes.set(r.id, [`no access: ${shown.join(", ")}`]);
  }
  // Negotiating center.
  const center: string[] = [];
  v.placements.forEach((pl) => {
    if (!pl.placed) center.push(`${pl.power}: —`);
    else if (!pl.visible || !pl.play) center.push(`${pl.power}: card face down`);
    else {
      const card = cat.cards.get(pl.play.card);
      const mode = MODES[pl.play.mode] ?? "";
      center.push(`${pl.power}: ${card?.name ?? `card ${pl.play.card}`}${mode ? ` (${mode})` : ""}${pl.play.vetoed ? " — vetoed" : ""}`);
    }
  });
  if (center.length) m.panels.push({ title: "Negotiating center", lines: center, testid: "negotiating-center" });
  const me = v.viewer;
  if (me >= 0) {
    m.mine.push({ title: "Your hand", kind: "card", ids: [...v.hand], testid: "hand" });
    m.mine.push({ title: "Your secret objectives", kind: "objective", ids: [...v.objectives], testid: "my-objectives" });
    if (v.objectiveOffer.length) m.mine.push({ title: "Objectives offered", kind: "objective", ids: [...v.objectiveOffer], testid: "objective-offer" });
  }
  for (const seat of seatView.seats) {
    const pi = powers.indexOf(seat.side);
    const p = v.powers[pi];
    if (!p) continue;
    const placement = v.placements.find((x) => x.power === p.power);
    m.seats.push({
      seat: seat.index,
      lines: [`VP ${p.vp} · prestige ${p.prestige}`, `${p.secretObjectives} secret objectives`, `coups left ${p.coupsLeft}${p.declared.length ? ` · declared ${p.declared.length}` : ""}`],
      faceDown: placement?.placed && !placement.visible ? 1 : 0,
      handCount: p.handCount,
      faceUp: [],
    });
  }
  if (v.discard.length) m.common.push({ title: "Discard pile", kind: "card", ids: [...v.discard].reverse(), testid: "discard" });
  if (v.removed.length) m.common.push({ title: "Removed from play", kind: "card", ids: [...v.removed], testid: "removed" });
  return m;
};
