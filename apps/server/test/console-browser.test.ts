/**
 * The console (issue 31, item 1) in a real headless Chromium driven by playwright-core, on
 * SQLite over real HTTP with the emulator: `GET /console` answers the page without a key
 * and the admin routes answer 401 without the token; a test key signs in and watches a
 * sandbox campaign launched from the API reach `completed`; a failed delivery is opened and
 * redelivered to the receiver once it works; the admin token signs in and sees two stores.
 * Each page is captured at 1280 px (to SWITCHBOARD_SCREENSHOTS, default a folder under the system temp directory) and
 * checked at phone width (390 px) for a page that does not overflow sideways.
 * Without a Chromium (CHROMIUM, or /usr/bin/chromium) the test is skipped, loudly.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium as playwright, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, root, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"
import { approvedTemplate } from "./steps.js"

const chromium = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((c) => c !== undefined && c !== "" && existsSync(c))
if (chromium === undefined) {
  const line = "!".repeat(78)
  console.warn(`\n${line}\n!! No Chromium found (CHROMIUM, /usr/bin/chromium): the console browser test is SKIPPED.\n${line}\n`)
}

const ADMIN_TOKEN = "console-admin-token-0123456789"
const screens = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-console-screens")

describe.skipIf(chromium === undefined)("the console in a headless Chromium (SQLite)", () => {
  let h: Harness
  let a: CreatedStore
  let browser: Browser
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    // the server reads the console's files at start: build them when a fresh checkout has not
    if (!existsSync(join(root, "apps/console/dist/index.html"))) execFileSync(process.execPath, [join(root, "apps/console/scripts/build.mjs")])
    mkdirSync(screens, { recursive: true })
    h = await startServer({ SWITCHBOARD_ADMIN_TOKEN: ADMIN_TOKEN, SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" })
    a = h.createStore("Shop A")
    h.createStore("Shop B")
    receiver = await startReceiver(500)
    browser = await playwright.launch({ executablePath: chromium, args: ["--no-sandbox", "--disable-dev-shm-usage"] })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await h?.stop()
    receiver?.server.close()
  })

  const signIn = async (token: string, width = 1280) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    await page.goto(`${h.base}/console`)
    await page.fill("input[name=token]", token)
    await page.click("button[type=submit]")
    await page.waitForSelector("header nav")
    return page
  }
  const shoot = (page: Page, name: string) => page.screenshot({ path: join(screens, `${name}.png`), fullPage: true })
  /** At phone width the page itself never scrolls sideways (wide tables scroll in their box). */
  const fitsPhone = async (page: Page) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.waitForTimeout(200)
    const overflow = await page.evaluate(() => {
      const doc = (globalThis as any).document
      const wide = [...doc.querySelectorAll("body *")].filter((e: any) => e.getBoundingClientRect().right > 392 && e.closest(".scroll") === null)
      return { width: doc.documentElement.scrollWidth as number, culprits: wide.slice(-3).map((e: any) => `${e.tagName}.${e.className}`) }
    })
    expect(overflow.width, overflow.culprits.join(" ")).toBeLessThanOrEqual(392)
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  it("serves the page without a key; the admin routes need the token", async () => {
    const page = await h.request("GET", "/console")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(page.text).toContain("/console/app.js")
    expect((await h.request("GET", "/console/app.js")).status).toBe(200)
    expect((await h.request("GET", "/admin/stores")).status).toBe(401)
    expect((await h.request("GET", "/admin/stores", "wrong-token")).status).toBe(401)
    expect((await h.request("GET", "/admin/stores", a.test_key)).status).toBe(401)
    expect((await h.request("GET", "/admin/jobs", ADMIN_TOKEN)).status).toBe(200)
  })

  it("a test key watches a sandbox campaign launched from the API reach completed", async () => {
    const key = a.test_key
    await approvedTemplate(h.request, key, "console_sale")
    const campaign = (
      await h.request("POST", "/chat/campaigns", key, {
        name: "Console sale",
        template: { name: "console_sale", language: "en_US", parameters: ["x"] }
      })
    ).json
    const phones = Array.from({ length: 12 }, (_, i) => `+155570200${String(i).padStart(2, "0")}`)
    expect((await h.request("POST", `/chat/campaigns/${campaign.id}/recipients`, key, { phones })).status).toBe(201)

    const page = await signIn(key)
    await page.goto(`${h.base}/console#/campaigns/${campaign.id}`)
    await page.waitForSelector(`section[data-campaign="${campaign.id}"]`)
    expect((await h.request("POST", `/chat/campaigns/${campaign.id}/launch`, key, {})).status).toBe(200)
    const detail = page.locator(`section[data-campaign="${campaign.id}"]`)
    await detail.locator("h2 .badge", { hasText: "completed" }).waitFor({ timeout: 60_000 })
    expect(await detail.locator('[data-counter="total"]').textContent()).toBe(String(phones.length))
    expect(await detail.locator('[data-counter="pending"]').textContent()).toBe("0")
    await detail.locator("svg.chart polyline").waitFor()
    // the list above the detail follows the status too (it reloads when the detail sees the status change)
    await page.locator("tr", { hasText: "Console sale" }).locator(".badge", { hasText: "completed" }).waitFor({ timeout: 5000 })
    await shoot(page, "campaigns")
    await fitsPhone(page)

    for (const name of ["stores", "templates", "orders", "calls", "flows"]) {
      await page.goto(`${h.base}/console#/${name}`)
      await page.waitForSelector("main table, main p.muted")
      await page.waitForFunction(() => !(globalThis as any).document.querySelector("main").textContent.includes("Loading…"))
      if (name === "templates") expect(await page.locator("main table").first().textContent()).toContain("console_sale")
      await shoot(page, name)
      await fitsPhone(page)
    }
    await page.close()
  }, 120_000)

  it("opens a failed delivery and redelivers it", async () => {
    const key = a.test_key
    const hook = await h.request("POST", "/chat/webhooks", key, { url: receiver.url, events: ["campaign.completed"] })
    expect(hook.status, hook.text).toBe(201)
    const page = await signIn(key)
    await page.goto(`${h.base}/console#/webhooks`)
    await page.getByRole("button", { name: "Send test event" }).click()
    await page.waitForSelector(".notice")
    const queued = (await page.locator(".notice").textContent())!.match(/dlv_\w+/)![0]
    await eventually(
      async () => (await h.request("GET", `/chat/webhook-deliveries/${queued}`, key)).json?.status_code === 500,
      "failed attempt",
      15_000
    )

    await page.selectOption("select", "failed")
    await page.locator("tr.clickable", { hasText: "webhook.test" }).first().click()
    const opened = page.locator("section.delivery")
    await opened.waitFor()
    expect(await opened.textContent()).toContain("HTTP 500")
    await shoot(page, "webhooks")
    await fitsPhone(page)

    receiver.setStatus(200)
    await opened.getByRole("button", { name: "Redeliver" }).click()
    await page.waitForFunction(() =>
      /Redelivery queued: delivery dlv_/.test((globalThis as any).document.querySelector(".notice")?.textContent ?? "")
    )
    const again = (await page.locator(".notice").textContent())!.match(/dlv_\w+/)![0]
    expect(again).not.toBe(queued)
    await page.locator(`section.delivery[data-delivery="${again}"] .badge`, { hasText: "succeeded" }).waitFor({ timeout: 20_000 })
    const event = (await h.request("GET", `/chat/webhook-deliveries/${queued}`, key)).json.event_id
    expect(receiver.received.filter((r) => r.headers["webhook-id"] === event).length).toBeGreaterThanOrEqual(2)
    await page.close()
  }, 60_000)

  it("the admin token sees both stores, rotates a key, and reads the inbox and the job queue", async () => {
    const page = await signIn(ADMIN_TOKEN)
    await page.waitForSelector("section.store")
    expect(await page.locator("section.store h2").allTextContents()).toEqual([expect.stringContaining("Shop A"), expect.stringContaining("Shop B")])
    await page.locator("section.store").first().getByRole("button", { name: "Rotate test key" }).click()
    await page.waitForSelector(".notice")
    const rotated = (await page.locator(".notice").textContent())!.match(/sk_test_\w+/)![0]
    expect((await h.request("GET", "/chat/account", rotated)).json).toMatchObject({ store_id: a.id, mode: "test" })
    await shoot(page, "admin-stores")
    await fitsPhone(page)
    await page.goto(`${h.base}/console#/operations`)
    await page.waitForSelector("main table")
    expect(await page.locator("main").textContent()).toContain("Operator inbox")
    await shoot(page, "operations")
    await fitsPhone(page)
    await page.close()
  }, 60_000)
})
