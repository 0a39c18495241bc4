/**
 * The flow preview page in a real headless browser (issue 15): Debian's Chromium loads the
 * signed preview link of a flow, runs the page, and the DOM it renders shows the first
 * screen's title and its input. Without a Chromium on the machine (CHROMIUM, or `chromium`
 * on the PATH) the test is skipped, loudly: install it with `apt-get install chromium`.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signUpFlow } from "./fixtures/flows.js"
import { type CreatedStore, type Harness, startServer } from "./harness.js"

const chromium = (() => {
  const candidates = [process.env.CHROMIUM, "chromium", "chromium-browser"].filter((c): c is string => c !== undefined && c !== "")
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ["--version"], { stdio: "ignore" })
      return candidate
    } catch {
      // not this one
    }
  }
  const line = "!".repeat(78)
  console.warn(`\n${line}\n!! No Chromium found (CHROMIUM, chromium): the preview-in-a-browser test is SKIPPED.\n${line}\n`)
  return undefined
})()

/** The DOM Chromium renders for `url`, headless, in a profile of its own. */
const renderedDom = (url: string) =>
  new Promise<string>((resolve, reject) => {
    const profile = mkdtempSync(join(tmpdir(), "sb-chromium-"))
    const child = spawn(chromium!, [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      "--dump-dom",
      url
    ])
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += String(d)))
    child.stderr.on("data", (d) => (err += String(d)))
    child.on("close", (code) => {
      rmSync(profile, { recursive: true, force: true })
      code === 0 ? resolve(out) : reject(new Error(`chromium exited ${code}: ${err.slice(-2000)}`))
    })
  })

describe.skipIf(chromium === undefined)("the flow preview page in a headless Chromium (SQLite)", () => {
  let h: Harness
  let a: CreatedStore
  beforeAll(async () => {
    h = await startServer()
    a = h.createStore("Preview shop")
  }, 90_000)
  afterAll(async () => {
    await h?.stop()
  })

  it("renders the first screen's title and its input", { timeout: 60_000 }, async () => {
    const flow = (await h.request("POST", "/chat/flows", a.live_key, { name: "Browser preview", categories: ["OTHER"] })).json
    expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.live_key, { json: signUpFlow })).status).toBe(200)
    const preview = await h.request("GET", `/chat/flows/${flow.id}/preview`, a.live_key)
    expect(preview.status).toBe(200)
    const dom = await renderedDom(preview.json.preview_url)
    expect(dom).toContain("<h1>Sign up</h1>")
    expect(dom).toMatch(/<input[^>]*name="email"/)
    // a tampered link renders our 404, not the flow
    const tampered = await renderedDom(preview.json.preview_url.replace(/signature=.{4}/, "signature=AAAA"))
    expect(tampered).not.toContain("<h1>Sign up</h1>")
  })
})
