/**
 * Releases (README, "Embedding the API in your app"): `pnpm release` runs `changeset version`,
 * builds and packs. What can be checked cheaply, on a copy of the workspace's manifests and
 * pending changesets in a temporary folder (the checkout is left alone):
 * - `changeset version` consumes the changesets, raises each public package's version and
 *   writes its `CHANGELOG.md` with the changesets' text;
 * - the `release` script runs those steps in that order, and `scripts/pack-release.mjs` packs
 *   every public package and nothing private.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { root } from "@switchboard/testing"

const packages = readdirSync(join(root, "packages")).filter((name) => existsSync(join(root, "packages", name, "package.json")))
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
const publicNames = packages.filter((name) => manifest(join(root, "packages", name)).private !== true)

describe("releases", () => {
  const dir = mkdtempSync(join(tmpdir(), "sb-release-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("changeset version writes each public package's CHANGELOG and raises its version", () => {
    writeFileSync(join(dir, "package.json"), readFileSync(join(root, "package.json")))
    writeFileSync(join(dir, "pnpm-workspace.yaml"), readFileSync(join(root, "pnpm-workspace.yaml")))
    cpSync(join(root, ".changeset"), join(dir, ".changeset"), { recursive: true })
    mkdirSync(join(dir, "apps", "server"), { recursive: true })
    writeFileSync(join(dir, "apps", "server", "package.json"), readFileSync(join(root, "apps", "server", "package.json")))
    for (const name of packages) {
      mkdirSync(join(dir, "packages", name), { recursive: true })
      writeFileSync(join(dir, "packages", name, "package.json"), readFileSync(join(root, "packages", name, "package.json")))
    }
    const pending = readdirSync(join(dir, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md")
    expect(pending.length).toBeGreaterThan(0)
    execFileSync(process.execPath, [join(root, "node_modules", "@changesets", "cli", "bin.js"), "version"], { cwd: dir, stdio: "pipe" })

    expect(readdirSync(join(dir, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md")).toEqual([])
    for (const name of publicNames) {
      const before = manifest(join(root, "packages", name)).version
      const after = manifest(join(dir, "packages", name)).version
      expect(after, name).not.toBe(before)
      const changelog = readFileSync(join(dir, "packages", name, "CHANGELOG.md"), "utf8")
      expect(changelog).toContain(`## ${after}`)
    }
    // this change's own changeset is in the domain's changelog
    expect(readFileSync(join(dir, "packages", "domain", "CHANGELOG.md"), "utf8")).toContain("GET /metrics")
    // the server (private: versioned, never published) gets its changelog too
    expect(readFileSync(join(dir, "apps", "server", "CHANGELOG.md"), "utf8")).toContain("GET /metrics")
  }, 60_000)

  it("the release script versions, builds, then packs every public package, with versions instead of workspace ranges", () => {
    const steps = (manifest(root).scripts.release as string).split("&&").map((s) => s.trim())
    expect(steps).toEqual(["changeset version", "turbo run build", "node scripts/pack-release.mjs"])
    const out = join(dir, "tarballs")
    execFileSync(process.execPath, [join(root, "scripts", "pack-release.mjs"), "--out", out], { cwd: root, stdio: "pipe" })
    const tarballs = readdirSync(out).sort()
    expect(tarballs).toEqual(publicNames.map((name) => `switchboard-${name}-${manifest(join(root, "packages", name)).version}.tgz`).sort())
    expect(tarballs.some((t) => t.includes("testing"))).toBe(false)
    for (const tarball of tarballs) {
      const packed = JSON.parse(execFileSync("tar", ["-xzOf", join(out, tarball), "package/package.json"], { encoding: "utf8" }))
      expect(JSON.stringify(packed.dependencies ?? {}), tarball).not.toContain("workspace:")
    }
  }, 600_000)
})
