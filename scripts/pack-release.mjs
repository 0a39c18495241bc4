#!/usr/bin/env node
/**
 * The last step of `pnpm release` (after `changeset version` and `pnpm build`): packs every
 * public workspace package with `pnpm pack` (which turns `workspace:` ranges into the
 * versions just written) into one folder, `release/` unless `--out DIR` says otherwise, and
 * prints each tarball's path. The README's "Embedding the API in your app" says how to
 * install them until the packages are published.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const at = process.argv.indexOf("--out")
const out = resolve(root, at === -1 ? "release" : process.argv[at + 1])
mkdirSync(out, { recursive: true })

/** The public packages: `packages/*` without `"private": true`. */
const publicPackages = () =>
  readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((dir) => {
      try {
        return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).private !== true
      } catch {
        return false
      }
    })

for (const dir of publicPackages()) {
  const printed = execFileSync("pnpm", ["pack", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim().split("\n")
  console.log(printed.at(-1))
}
