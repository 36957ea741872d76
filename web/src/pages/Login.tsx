// Log in as a guest, register an account, or log in with a password.
import { useState } from "preact/hooks";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { lobby, errorText } from "../lib/api";
import { setSession } from "../lib/session";
import { go } from "../lib/router";

type Mode = "guest" | "login" | "register";

export function Login() {
  const [mode, setMode] = useState<Mode>("guest");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const res = await lobby.login({ name: name.trim(), password: mode === "guest" ? "" : password, register: mode === "register" });
      setSession({ playerId: res.playerId, displayName: res.displayName, token: res.token, guest: res.guest, expiresAt: res.expiresAt ? timestampMs(res.expiresAt) : 0 });
      go("/lobby");
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="login" data-testid="login-page">
      <div class="login-card card">
        <h1>Warroom</h1>
        <p class="muted">New Cold War · QMG: The Cold War · QMG: South Front</p>
        <div class="tabs" role="tablist" aria-label="How to log in">
          {(["guest", "login", "register"] as Mode[]).map((m) => (
            <button type="button" role="tab" aria-selected={mode === m} class={mode === m ? "tab active" : "tab"} data-testid={`login-tab-${m}`} onClick={() => setMode(m)}>
              {m === "guest" ? "Play as guest" : m === "login" ? "Log in" : "Register"}
            </button>
          ))}
        </div>
        <form onSubmit={submit} class="stack">
          <label>
            {mode === "guest" ? "Display name" : "Account name"}
            <input data-testid="login-name" required maxLength={40} value={name} autoComplete="username" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          {mode !== "guest" && (
            <label>
              Password{mode === "register" ? " (8 characters or more)" : ""}
              <input data-testid="login-password" type="password" required minLength={mode === "register" ? 8 : 1} value={password} autoComplete={mode === "register" ? "new-password" : "current-password"} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
            </label>
          )}
          <button class="primary" type="submit" disabled={busy || !name.trim()} data-testid="login-submit">
            {mode === "guest" ? "Enter as guest" : mode === "login" ? "Log in" : "Create account"}
          </button>
          {error && <p class="error" role="alert" data-testid="login-error">{error}</p>}
        </form>
      </div>
    </main>
  );
}
