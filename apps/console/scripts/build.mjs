#!/usr/bin/env node
/**
 * Builds the console to `dist/`: esbuild bundles `src/main.tsx` (Preact, JSX) into one
 * minified `app.js`, beside `index.html` and `app.css`. The server serves `dist/` at
 * `/console` (apps/server `Layers.ts`). A second or so; `pnpm install` runs it (the root
 * `prepare`), as `pnpm build` does.
 */
import { build } from "esbuild"
import { copyFileSync, mkdirSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const app = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(app, "dist")
const started = Date.now()
rmSync(dist, { recursive: true, force: true })
mkdirSync(dist, { recursive: true })
await build({
  absWorkingDir: app,
  entryPoints: ["src/main.tsx"],
  outfile: "dist/app.js",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  logLevel: "warning"
})
for (const file of ["index.html", "app.css"]) copyFileSync(join(app, "src", file), join(dist, file))
console.log(`switchboard console built to ${dist} in ${Date.now() - started} ms`)
