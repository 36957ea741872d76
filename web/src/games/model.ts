// What a title's view adapter extracts from a typed view for the board and the panels.
// The board geometry comes from the catalogue; adapters only read the view's state.
import type { GameCatalog } from "../lib/catalog";
import type { SeatView } from "../gen/warroom/v1/game_pb";

export interface PieceMark {
  /** Short text drawn on the piece (e.g. "A", "F", "2"), never colour alone. */
  glyph: string;
  colour: string;
  title: string;
  shape: "square" | "circle" | "triangle" | "diamond";
}

export interface SpaceOverlay {
  /** Controller's colour, drawn as the space's ring, with `ownerGlyph` as text. */
  ownerColour?: string;
  ownerGlyph?: string;
  pieces: PieceMark[];
  /** Small text badges under the name (stability, VP value, supply, stars...). */
  badges: string[];
  /** Lines for the hover/focus description. */
  notes: string[];
  highlight?: boolean;
}

export interface TrackEntry {
  label: string;
  value: number;
  colour: string;
}

export interface TrackRow {
  name: string;
  min: number;
  max: number;
  entries: TrackEntry[];
}

export interface CardGroup {
  title: string;
  kind: "card" | "objective";
  ids: number[];
  testid: string;
}

export interface SeatPublic {
  seat: number;
  lines: string[];
  /** Cards lying face down (prepared, placed): shown as backs, never identified. */
  faceDown: number;
  handCount: number;
  /** Public cards of the seat (face-up prepared, discards). */
  faceUp: number[];
}

export interface BoardModel {
  overlays: Map<string, SpaceOverlay>;
  tracks: TrackRow[];
  status: string[];
  mine: CardGroup[];
  seats: SeatPublic[];
  common: CardGroup[];
  /** Region id -> a marker text (New Cold War access padlocks, region control). */
  regionNotes: Map<string, string[]>;
  /** Panels of extra facts (negotiating center, escalation, combat...). */
  panels: { title: string; lines: string[]; testid: string }[];
  /** How to read the board's marks (letters and shapes, never colour alone). */
  legend: string;
}

export function emptyModel(): BoardModel {
  return { overlays: new Map(), tracks: [], status: [], mine: [], seats: [], common: [], regionNotes: new Map(), panels: [], legend: "" };
}

export type Adapter = (view: SeatView, typed: unknown, cat: GameCatalog) => BoardModel;

// Okabe-Ito palette: distinguishable with the common colour-vision deficiencies; every
// mark also carries a letter, so no information rests on colour alone.
export const PALETTE = ["#0072B2", "#D55E00", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#999999"];

export function overlay(map: Map<string, SpaceOverlay>, id: string): SpaceOverlay {
  let o = map.get(id);
  if (!o) {
    o = { pieces: [], badges: [], notes: [] };
    map.set(id, o);
  }
  return o;
}

export function glyphOf(name: string): string {
  const words = name.replace(/[^A-Za-z0-9 ]/g, " ").split(/\s+/).filter(Boolean);
  if (words.length >= 2) return (words[0][0] + words[1][0]).toUpperCase();
  return (words[0] ?? "?").slice(0, 2).toUpperCase();
}

/** The right end of an open-ended VP track: a round number above every marker. */
export function vpMax(values: number[], trackMax = 0): number {
  const top = Math.max(0, ...values);
  return Math.max(trackMax, 30, Math.ceil((top + 5) / 10) * 10);
}
