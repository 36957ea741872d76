// The app shell: header with navigation and the player's name, and the routed page.
import { useEffect } from "preact/hooks";
import { useStore } from "./lib/store";
import { route, go } from "./lib/router";
import { session, setSession } from "./lib/session";
import { Login } from "./pages/Login";
import { Lobby } from "./pages/Lobby";
import { MyGames } from "./pages/MyGames";
import { Watch } from "./pages/Watch";
import { Leaderboard } from "./pages/Leaderboard";
import { GamePage } from "./pages/Game";
import { ReplayPage } from "./pages/Replay";
import { JoinPage } from "./pages/Join";
import { banner, netState } from "./lib/errors";

function ConnStatus() {
  const state = useStore(netState);
  const text = state === "online" ? "Online" : state === "offline" ? "Offline — reconnecting when the network is back" : "Connection lost — reconnecting…";
  return (
    <span class={`conn conn-${state}`} role="status" aria-live="polite" data-testid="conn-status" data-state={state}>
      <i aria-hidden="true">{state === "online" ? "●" : "⚠"}</i> {text}
    </span>
  );
}

function ErrorBanner() {
  const b = useStore(banner);
  useEffect(() => {
    if (!b) return;
    const t = setTimeout(() => banner.value === b && banner.set(null), 12000);
    return () => clearTimeout(t);
  }, [b]);
  if (!b) return null;
  return (
    <div class="error-banner" role="alert" data-testid="error-banner" data-reason={b.reason}>
      <span>{b.message}</span>
      {b.reason && <code class="small">{b.reason}</code>}
      <button class="small" onClick={() => banner.set(null)} aria-label="Dismiss the error">
        ✕
      </button>
    </div>
  );
}

const NAV = [
  ["lobby", "Lobby"],
  ["games", "My games"],
  ["watch", "Watch"],
  ["leaderboard", "Leaderboard"],
] as const;

export function App() {
  const r = useStore(route);
  const s = useStore(session);
  const [page, id] = r.path;
  const spectating = page === "spectate";
  let body;
  if (!s && !spectating) body = <Login />;
  else if (page === "game" && id) body = <GamePage gameId={id} spectate={false} token={null} />;
  else if (spectating && id) body = <GamePage gameId={id} spectate token={r.query.get("token")} />;
  else if (page === "replay" && id) body = <ReplayPage gameId={id} token={r.query.get("token")} />;
  else if (page === "join" && id) body = <JoinPage tableId={id} code={r.query.get("code") ?? ""} />;
  else if (page === "games") body = <MyGames />;
  else if (page === "watch") body = <Watch />;
  else if (page === "leaderboard") body = <Leaderboard />;
  else body = <Lobby />;
  return (
    <>
      <a class="skip" href="#main-content" onClick={(e) => { e.preventDefault(); document.getElementById("main-content")?.focus(); }}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/lobby">
          ★ Warroom
        </a>
        {s && (
          <nav class="mainnav" aria-label="Main">
            {NAV.map(([p, label]) => (
              <a href={`#/${p}`} class={page === p || (!page && p === "lobby") ? "active" : ""} aria-current={page === p ? "page" : undefined} data-testid={`nav-${p}`}>
                {label}
              </a>
            ))}
          </nav>
        )}
        <ConnStatus />
        {s && (
          <span class="user">
            <span data-testid="whoami">{s.displayName}</span>
            {s.guest && <span class="badge">guest</span>}
            <button class="small" onClick={() => { setSession(null); go("/"); }} data-testid="nav-logout">
              Log out
            </button>
          </span>
        )}
      </header>
      <ErrorBanner />
      <div id="main-content" tabIndex={-1}>{body}</div>
    </>
  );
}
