/**
 * The `switchboard` CLI as a person uses it: `stores list` and `stores rotate-key` (the old
 * key works for the grace period the caller set, then 401), errors printed once and in
 * words, `--help` naming every environment variable, `campaigns watch` drawing a campaign's
 * progress from the HTTP API until it ends, and logs readable on a terminal.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { root } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AppConfig from "../src/Config.js"
import * as Environment from "../src/Environment.js"
import { type CreatedStore, eventually, type Harness, runCli, startServer } from "./harness.js"
import { approvedTemplate } from "./steps.js"

const cli = runCli

describe("help and errors", { timeout: 120_000 }, () => {
  it("--help lists every environment variable the service reads", async () => {
    const help = (await cli(["--help"])).stdout
    for (const v of Environment.variables) expect(help, v.name).toContain(v.name)
    // and the list is complete: every Config name read in the sources is in it
    const read = new Set<string>()
    const scan = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry)
        if (statSync(path).isDirectory()) scan(path)
        else if (path.endsWith(".ts")) for (const m of readFileSync(path, "utf8").matchAll(/Config\.[a-zA-Z]+\("([A-Z][A-Z0-9_]+)"/g)) read.add(m[1])
      }
    }
    for (const pkg of ["apps/server/src", ...readdirSync(join(root, "packages")).map((p) => `packages/${p}/src`)]) {
      try {
        scan(join(root, pkg))
      } catch {
        // a package without sources
      }
    }
    expect(read.size).toBeGreaterThan(10)
    const listed = new Set(Environment.variables.map((v) => v.name))
    // SWITCHBOARD_TEST_* are the tests' hooks (the harness sets them), not settings
    expect([...read].filter((name) => !listed.has(name) && !name.startsWith("SWITCHBOARD_TEST_"))).toEqual([])
    // and the README's configuration and .env.example name each of them
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const example = readFileSync(join(root, ".env.example"), "utf8")
    expect(Environment.variables.filter((v) => !readme.includes(`\`${v.name}\``)).map((v) => v.name)).toEqual([])
    expect(Environment.variables.filter((v) => !new RegExp(`^#? ?${v.name}=`, "m").test(example)).map((v) => v.name)).toEqual([])
  })

  it("--help names every command (webhooks listen too) and the values LOG_LEVEL and --log-level accept", async () => {
    const help = (await cli(["--help"])).stdout
    for (const command of ["serve", "worker", "migrate", "emulator", "stores create", "campaigns watch", "webhooks listen", "backup"])
      expect(help).toContain(`- ${command}`)
    const logLevel = help.slice(help.indexOf("LOG_LEVEL"), help.indexOf("LOG_FORMAT"))
    for (const level of ["trace", "debug", "info", "warn", "warning", "error", "fatal", "none"])
      expect(logLevel).toMatch(new RegExp(`\\b${level}\\b`))
    expect(help).toMatch(/--log-level all \| trace \| debug \| info \| warning \| error \| fatal \| none/)
  })

  it("prints an error once, in words, and exits 1", async () => {
    const missing = await cli(["stores", "create"], { DATABASE_URL: ":memory:" })
    expect(missing.code).toBe(1)
    expect(`${missing.stdout}${missing.stderr}`.match(/Expected to find option: '--name'/g)).toHaveLength(1)
    expect(missing.stderr).not.toMatch(/_tag|"message"|\n\s+at /)

    const empty = await cli(["stores", "create", "--name", " "], { DATABASE_URL: ":memory:" })
    expect(empty.code).toBe(1)
    expect(empty.stderr).toBe("--name must not be empty\n")
  })

  it("logs are readable on a terminal and JSON elsewhere, unless LOG_FORMAT says", async () => {
    const format = (isTTY: boolean, env: Record<string, string> = {}) => {
      const was = process.stderr.isTTY
      const saved = process.env.LOG_FORMAT
      process.stderr.isTTY = isTTY
      if (env.LOG_FORMAT === undefined) delete process.env.LOG_FORMAT
      else process.env.LOG_FORMAT = env.LOG_FORMAT
      try {
        return Effect.runSync(AppConfig.logFormat)
      } finally {
        process.stderr.isTTY = was
        if (saved === undefined) delete process.env.LOG_FORMAT
        else process.env.LOG_FORMAT = saved
      }
    }
    expect(format(true)).toBe("pretty")
    expect(format(false)).toBe("json")
    expect(format(true, { LOG_FORMAT: "json" })).toBe("json")
    expect(format(false, { LOG_FORMAT: "logfmt" })).toBe("logfmt")
  })
})

describe("stores and campaigns against a running server", { timeout: 180_000 }, () => {
  let h: Harness
  let shop: CreatedStore
  beforeAll(async () => {
    h = await startServer()
    shop = h.createStore("CLI shop")
  })
  afterAll(() => h?.stop())

  const run = (...args: ReadonlyArray<string>) => cli(args, h.env)
  const status = async (key: string) => (await h.request("GET", "/chat/templates", key)).status

  it("stores list shows the stores and their keys' hints, never the keys", async () => {
    const table = await run("stores", "list")
    expect(table.code).toBe(0)
    expect(table.stdout).toContain(shop.id)
    expect(table.stdout).toContain(`${shop.live_key.slice(0, 12)}…`)
    expect(table.stdout).not.toContain(shop.live_key)
    const json = JSON.parse((await run("stores", "list", "--json")).stdout)
    const mine = json.find((s: { id: string }) => s.id === shop.id)
    expect(mine).toMatchObject({ name: "CLI shop", live_account: null })
    expect(mine.keys.map((k: { mode: string; expires_at: unknown; active: boolean }) => [k.mode, k.expires_at, k.active])).toEqual([
      ["live", null, true],
      ["test", null, true]
    ])
    expect(JSON.stringify(json)).not.toContain(shop.test_key)
  })

  it("stores rotate-key: the old key works for the grace period, then is refused; the new key works", async () => {
    const other = h.createStore("Rotating shop")
    // (a key the server checked before its rotation may be accepted from its cache up to 30 s longer: not used here)
    const rotated = await run("stores", "rotate-key", "--store", other.id, "--mode", "live", "--grace", "3s")
    expect(rotated.code, rotated.stderr).toBe(0)
    const answer = JSON.parse(rotated.stdout)
    expect(answer).toMatchObject({ store: other.id, mode: "live", old_keys: 1 })
    expect(answer.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/)
    expect(await status(answer.key)).toBe(200)
    // inside the grace period: accepted, and cached no longer than its expiry
    expect(await status(other.live_key)).toBe(200)
    await eventually(async () => (await status(other.live_key)) === 401, "the old key refused after its grace period", 15_000)
    expect(Date.parse(answer.old_keys_expire_at)).toBeLessThanOrEqual(Date.now())
    expect(await status(answer.key)).toBe(200)
    // the other mode's key is untouched
    expect(await status(other.test_key)).toBe(200)

    // a grace of 0 stops the old key at once
    const third = h.createStore("Third shop")
    const now = JSON.parse((await run("stores", "rotate-key", "--store", third.id, "--mode", "test", "--grace", "0")).stdout)
    expect(await status(third.test_key)).toBe(401)
    expect(await status(now.key)).toBe(200)
    expect(await status(third.live_key)).toBe(200)

    const unknown = await run("stores", "rotate-key", "--store", "str_nope", "--mode", "live", "--grace", "1h")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("No store str_nope: see the ids with `switchboard stores list`\n")
    const bad = await run("stores", "rotate-key", "--store", other.id, "--mode", "live", "--grace", "a while")
    expect(bad.stderr).toBe('--grace "a while" is not a duration: use 0, 30m, 24h or 7d\n')
  })

  it("campaigns watch draws the campaign's progress from the HTTP API until it completes", async () => {
    const key = shop.test_key
    await approvedTemplate(h.request, key, "watch_me")
    const created = await h.request("POST", "/chat/campaigns", key, {
      name: "Watched",
      template: { name: "watch_me", language: "en_US", parameters: ["you"] }
    })
    expect(created.status).toBe(201)
    const id: string = created.json.id
    const phones = Array.from({ length: 12 }, (_, i) => `+1555321${String(1000 + i).padStart(4, "0")}`)
    expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones })).status).toBe(201)
    expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)

    const watched = await cli(["campaigns", "watch", id, "--interval-ms", "200"], { SWITCHBOARD_URL: h.base, SWITCHBOARD_API_KEY: key })
    expect(watched.code, watched.stderr).toBe(0)
    const lines = watched.stdout.trim().split("\n")
    expect(lines.at(-1)).toBe(`Campaign ${id} completed.`)
    const bars = lines.slice(0, -1)
    expect(bars.length).toBeGreaterThan(0)
    for (const line of bars)
      expect(line).toMatch(/^\[[█░]{30}\] +\d+% {2}\d+\/12 {2}sent \d+ · delivered \d+ · read \d+ · failed \d+ · skipped \d+ {2}\w+/)
    expect(bars.at(-1)).toMatch(/^\[█{30}\] 100% {2}12\/12 .* completed$/)

    const missing = await cli(["campaigns", "watch", "cmp_01JD00000000000000000000AA", "--url", h.base, "--key", key])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe("No campaign cmp_01JD00000000000000000000AA for this key (a test key sees test campaigns only)\n")
    const nokey = await cli(["campaigns", "watch", id, "--url", h.base], { SWITCHBOARD_API_KEY: "" })
    expect(nokey.code).toBe(1)
    expect(nokey.stderr).toBe("campaigns watch needs the store's API key: pass --key sk_… or set SWITCHBOARD_API_KEY\n")
  })
})
