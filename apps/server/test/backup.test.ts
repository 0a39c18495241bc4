/**
 * `switchboard backup --to FILE` as an operator of a SQLite installation uses it: while the
 * server runs and writes, the backup is a whole, consistent database that a new server starts
 * on with the same stores; an existing target, a missing database and PostgreSQL are one line
 * each and exit 1, and write nothing.
 */
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { postgresAdminUrl } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, runCli, startServer } from "./harness.js"

const cli = runCli

describe("switchboard backup (SQLite, while the server runs)", { timeout: 120_000 }, () => {
  let h: Harness
  let store: CreatedStore
  const dir = mkdtempSync(join(tmpdir(), "sb-backup-"))
  beforeAll(async () => {
    h = await startServer()
    store = h.createStore("Backed up")
  })
  afterAll(async () => {
    await h?.stop()
  })

  it("copies the live database into a new file that a server starts on, while writes go on", async () => {
    // writes while the backup runs: opt-outs, one request after another
    let writing = true
    let written = 0
    const writer = (async () => {
      while (writing) {
        const res = await h.request("POST", "/chat/opt-outs", store.test_key, { phone: `+1555${String(2000000 + written).padStart(7, "0")}` })
        expect(res.status, res.text).toBeLessThan(300)
        written++
      }
    })()
    await new Promise((r) => setTimeout(r, 300))
    const to = join(dir, "copy.sqlite")
    const run = await cli(["backup", "--to", to], h.env)
    writing = false
    await writer
    expect(run.code, run.stderr).toBe(0)
    const printed = JSON.parse(run.stdout)
    expect(printed).toMatchObject({ to, pages: expect.any(Number), bytes: expect.any(Number) })
    expect(written).toBeGreaterThan(0)

    const copy = new Database(to, { readonly: true })
    try {
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok")
      expect(copy.prepare("SELECT name FROM stores WHERE id = ?").get(store.id)).toEqual({ name: "Backed up" })
      // a moment's copy: some of the opt-outs written during the run, none half-written
      const copied = (copy.prepare("SELECT count(*) AS n FROM opt_outs").get() as { n: number }).n
      expect(copied).toBeLessThanOrEqual(written)
    } finally {
      copy.close()
    }
    // a server (here the CLI's migrate and stores list) runs on the copy
    expect((await cli(["migrate"], { ...h.env, DATABASE_URL: to })).code).toBe(0)
    const list = await cli(["stores", "list", "--json"], { ...h.env, DATABASE_URL: to })
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toContain(store.id)
  })

  it("refuses an existing target, a missing database and PostgreSQL in one line, exit 1, writing nothing", async () => {
    const to = join(dir, "twice.sqlite")
    expect((await cli(["backup", "--to", to], h.env)).code).toBe(0)
    const again = await cli(["backup", "--to", to], h.env)
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already exists: name a new file\n$/)

    const missing = await cli(["backup", "--to", join(dir, "m.sqlite")], { ...h.env, DATABASE_URL: join(dir, "nowhere.sqlite") })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no database at .*nowhere\.sqlite\n$/)
    expect(existsSync(join(dir, "nowhere.sqlite"))).toBe(false)
    expect(existsSync(join(dir, "m.sqlite"))).toBe(false)

    const pg = await cli(["backup", "--to", join(dir, "pg.sqlite")], { ...h.env, DATABASE_URL: postgresAdminUrl })
    expect(pg.code).toBe(1)
    expect(pg.stderr).toMatch(/is PostgreSQL: use pg_dump/)
    expect(existsSync(join(dir, "pg.sqlite"))).toBe(false)
  })
})
