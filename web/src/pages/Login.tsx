// Log in as a guest, log in with a password, or register an account.
import { useState } from "preact/hooks";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { lobby, errorText } from "../lib/api";
import { setSession } from "../lib/session";
import { go } from "../lib/router";

type Mode = "guest" | "login" | "register";

export function Login() {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(mode: Mode) {
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
        <h1>★ Warroom</h1>
        <p class="muted">New Cold War · QMG: The Cold War · QMG: South Front</p>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void submit(password ? "login" : "guest");
          }}
        >
          <label>
            Name
            <input data-testid="login-name" required maxLength={40} value={name} autoComplete="username" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <button class="primary" type="button" disabled={busy || !name.trim()} data-testid="login-guest" onClick={() => submit("guest")}>
            Play as guest
          </button>
          <fieldset class="stack account">
            <legend>Account</legend>
            <label>
              Password <span class="muted small">(8 characters or more to register)</span>
              <input data-testid="login-password" type="password" value={password} autoComplete="current-password" onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
            </label>
            <div class="row">
              <button type="submit" disabled={busy || !name.trim() || !password} data-testid="login-submit">
                Log in
              </button>
              <button type="button" disabled={busy || !name.trim() || password.length < 8} data-testid="login-register" onClick={() => submit("register")}>
                Register
              </button>
            </div>
          </fieldset>
          {error && <p class="error" role="alert" data-testid="login-error">{error}</p>}
        </form>
      </div>
    </main>
  );
}
