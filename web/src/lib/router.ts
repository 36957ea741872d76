// Hash routing: "#/game/<id>?token=..." -> {path: ["game", id], query}.
import { Store } from "./store";

export interface Route {
  path: string[];
  query: URLSearchParams;
}

function parse(): Route {
  const raw = location.hash.replace(/^#\/?/, "");
  const [p, q] = raw.split("?", 2);
  return { path: (p ?? "").split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q ?? "") };
}

export const route = new Store<Route>(parse());
addEventListener("hashchange", () => route.set(parse()));

export function go(path: string): void {
  location.hash = path.startsWith("#") ? path : `#${path}`;
}
