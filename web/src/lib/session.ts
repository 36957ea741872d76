// The logged-in player (lobby token) and the seats they hold, kept in localStorage so a
// reload or a second tab resumes where the player was.
import { Store } from "./store";

export interface Session {
  playerId: string;
  displayName: string;
  token: string;
  expiresAt: number; // ms since epoch, 0 = unknown
  guest: boolean;
}

/** A seat this browser plays (from an Assignment), or a spectator pass. */
export interface SeatPass {
  gameId: string;
  token: string;
  seat: number; // -1 spectator
  side: string;
  rulesId: string;
  variant: string;
  savedAt: number;
  playerId: string; // who holds it ("" spectator pass)
}

const SESSION_KEY = "warroom.session";
const SEATS_KEY = "warroom.seats";

function load<T>(key: string, fallback: T): T {
  try {
    const raw = localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : fallback;
  } catch {
    return fallback;
  }
}

function initialSession(): Session | null {
  const s = load<Session | null>(SESSION_KEY, null);
  if (s && s.expiresAt && s.expiresAt < Date.now()) return null;
  return s;
}

export const session = new Store<Session | null>(initialSession());

export function setSession(s: Session | null): void {
  if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else localStorage.removeItem(SESSION_KEY);
  session.set(s);
}

export const seats = new Store<Record<string, SeatPass>>(load(SEATS_KEY, {}));

export function saveSeat(pass: SeatPass): void {
  const next = { ...seats.value, [pass.gameId]: pass };
  localStorage.setItem(SEATS_KEY, JSON.stringify(next));
  seats.set(next);
}

export function seatFor(gameId: string): SeatPass | undefined {
  return seats.value[gameId];
}
