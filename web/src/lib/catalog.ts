// The game catalogue (CatalogService.GetCatalog), cached in memory and in localStorage under
// its content version: a second load asks with if_none_match and reuses the stored copy.
import { createClient } from "@connectrpc/connect";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CatalogService, CatalogSchema, type Catalog, type Card, type Objective, type Space } from "../gen/warroom/v1/catalog_pb";
import { transport } from "./api";

export const catalogClient = createClient(CatalogService, transport);

/** A catalogue with lookup tables the client needs. */
export interface GameCatalog {
  raw: Catalog;
  cards: Map<number, Card>;
  objectives: Map<number, Objective>;
  spacesById: Map<string, Space>;
  spacesByIndex: Map<number, Space>;
  /** Space names (lower case) to ids, longest first, for option-label matching. */
  names: [string, string][];
  regionIds: Set<string>;
}

const memory = new Map<string, Promise<GameCatalog>>();
const KEY = (rulesId: string) => `warroom.catalog.${rulesId}`;

function index(raw: Catalog): GameCatalog {
  const spaces = raw.map?.spaces ?? [];
  const names: [string, string][] = [];
  for (const s of spaces) {
    names.push([s.name.toLowerCase(), s.id]);
  }
  names.sort((a, b) => b[0].length - a[0].length);
  return {
    raw,
    cards: new Map(raw.cards.map((c) => [c.id, c])),
    objectives: new Map(raw.objectives.map((o) => [o.id, o])),
    spacesById: new Map(spaces.map((s) => [s.id, s])),
    spacesByIndex: new Map(spaces.map((s) => [s.index, s])),
    names,
    regionIds: new Set((raw.map?.regions ?? []).map((r) => r.id)),
  };
}

function stored(rulesId: string): { version: string; catalog: Catalog } | null {
  try {
    const raw = localStorage.getItem(KEY(rulesId));
    if (!raw) return null;
    const { version, data } = JSON.parse(raw) as { version: string; data: string };
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    return { version, catalog: fromBinary(CatalogSchema, bytes) };
  } catch {
    return null;
  }
}

function store(rulesId: string, version: string, catalog: Catalog): void {
  try {
    const bytes = toBinary(CatalogSchema, catalog);
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    localStorage.setItem(KEY(rulesId), JSON.stringify({ version, data: btoa(bin) }));
  } catch {
    /* storage full or disabled: the memory copy still serves this page */
  }
}

async function fetchCatalog(rulesId: string): Promise<GameCatalog> {
  const cached = stored(rulesId);
  const res = await catalogClient.getCatalog({ rulesId, ifNoneMatch: cached?.version ?? "" });
  if (res.notModified && cached) return index(cached.catalog);
  if (!res.catalog) throw new Error(`no catalogue for ${rulesId}`);
  store(rulesId, res.contentVersion, res.catalog);
  return index(res.catalog);
}

export function loadCatalog(rulesId: string): Promise<GameCatalog> {
  let p = memory.get(rulesId);
  if (!p) {
    p = fetchCatalog(rulesId);
    p.catch(() => memory.delete(rulesId));
    memory.set(rulesId, p);
  }
  return p;
}
