// Vite build of the browser app: Preact JSX through esbuild (no plugin), output in dist/.
// `npm run dev` proxies the Connect API to a running gateway (WARROOM_WEB_URL, default :8080).
import { defineConfig } from "vite";

const gateway = process.env.WARROOM_WEB_URL ?? "http://127.0.0.1:8080";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: { target: "es2022", outDir: "dist", assetsDir: "assets", sourcemap: false },
  server: { proxy: { "^/warroom\\.": gateway } },
});
