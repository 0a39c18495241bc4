/**
 * esbuild's options for a node bundle of our TypeScript sources, shared by the CLI's build
 * (`build.mjs`) and the test run's bundles of its fixtures (`test/globalSetup.ts`).
 */
export const nodeBundle = {
  format: "esm",
  platform: "node",
  target: "node20",
  conditions: ["@switchboard/source"],
  external: ["better-sqlite3", "pg-native"],
  // CommonJS dependencies bundled into ES modules still call require() for node's built-ins
  banner: { js: "import { createRequire as __switchboardRequire } from 'node:module'; const require = __switchboardRequire(import.meta.url);" }
}
