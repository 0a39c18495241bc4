/**
 * `switchboard webhooks listen`, the local caller-webhook receiver of the README's
 * walk-through, against a real server (both dialects): it registers itself through
 * `POST /chat/webhooks`, prints each delivery it verified as one JSON line, refuses a forged
 * one, and removes its registration on Ctrl-C (SIGINT) or SIGTERM. A server that does not
 * allow private URLs refuses its loopback URL, and the command says what to set. A caller
 * webhook URL whose host name does not resolve is a 400 that says so.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { cliArgs, DIALECTS, root } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, eventually, type Harness, startServer } from "./harness.js"

interface Listener {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

const listen = (args: ReadonlyArray<string>, env: Record<string, string>): Listener => {
  const child = spawn(process.execPath, cliArgs("webhooks", "listen", ...args), { cwd: root, env: { ...process.env, ...env } })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += String(d)))
  child.stderr.on("data", (d) => (stderr += String(d)))
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

const ready = async (l: Listener): Promise<string> => {
  await eventually(() => Promise.resolve(/^Ready: /m.test(l.stderr()) || l.child.exitCode !== null), "the Ready line", 30_000)
  const url = /to (http:\/\/127\.0\.0\.1:\d+\/);/.exec(l.stderr())?.[1]
  expect(url, l.stderr()).toBeDefined()
  return url!
}

describe("webhooks listen: what it needs", () => {
  it("without a key: one line saying what to pass, exit 1", async () => {
    const l = listen([], { SWITCHBOARD_API_KEY: "", SWITCHBOARD_URL: "http://127.0.0.1:9" })
    expect(await l.exited).toBe(1)
    expect(l.stderr()).toBe("webhooks listen needs the store's API key: pass --key sk_… or set SWITCHBOARD_API_KEY\n")
  })

  it("an unknown event type: one line listing the accepted ones, exit 1", async () => {
    const l = listen(["--key", "sk_test_x", "--events", "message.received,message.teleported"], { SWITCHBOARD_URL: "http://127.0.0.1:9" })
    expect(await l.exited).toBe(1)
    expect(l.stderr()).toMatch(/^--events names unknown event types \(message\.teleported\): use some of .*message\.received.*\n$/)
  })
})

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`webhooks listen (${dialect.name}, real HTTP)`, { timeout: 120_000 }, () => {
    let h: Harness
    let strict: Harness
    let shop: CreatedStore
    beforeAll(async () => {
      ;[h, strict] = await Promise.all([startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect }), startServer({}, { dialect })])
      shop = h.createStore("Listening shop")
    })
    afterAll(async () => {
      await Promise.all([h?.stop(), strict?.stop()])
    })

    const inbound = (key: string, text: string) =>
      h.request("POST", "/chat/sandbox/inbound-messages", key, { from: "+15551230001", text }).then((r) => expect(r.status).toBe(202))

    it("registers itself, prints each verified event as one JSON line, refuses a forged one, and unregisters on Ctrl-C", async () => {
      const l = listen(["--key", shop.test_key, "--events", "message.received,message.status"], { ...h.env, SWITCHBOARD_URL: h.base })
      try {
        const url = await ready(l)
        const registered = await h.request("GET", "/chat/webhooks", shop.test_key)
        expect(registered.json.data).toEqual([expect.objectContaining({ url, events: ["message.received", "message.status"], status: "enabled" })])

        await inbound(shop.test_key, "hello from the sandbox")
        await eventually(() => Promise.resolve(l.stdout().includes('"type":"message.received"')), "the event printed", 30_000)
        const lines = l.stdout().trim().split("\n")
        const received = lines.map((line) => JSON.parse(line)).find((e) => e.type === "message.received")
        expect(received).toMatchObject({ id: expect.stringMatching(/^evt_/), data: { from: "+15551230001", text: "hello from the sandbox" } })

        // a delivery signed with another secret is refused and not printed
        const printed = l.stdout()
        const forged = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "webhook-id": "evt_forged",
            "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
            "webhook-signature": "v1,bm90IHRoZSBzaWduYXR1cmU="
          },
          body: JSON.stringify({ id: "evt_forged", type: "message.received", data: {} })
        })
        expect(forged.status).toBe(400)
        expect(l.stdout()).toBe(printed)
        await eventually(() => Promise.resolve(l.stderr().includes('Refused a delivery (webhook-id "evt_forged")')), "the refusal said", 10_000)

        l.child.kill("SIGINT")
        expect(await l.exited).toBe(0)
        expect(l.stderr()).toMatch(/Removed webhook whe_\w+\.\n$/)
        expect((await h.request("GET", "/chat/webhooks", shop.test_key)).json.data).toEqual([])
      } finally {
        l.child.kill("SIGKILL")
      }
    })

    it("SIGTERM removes the registration too, even when the signal comes twice (a terminal's Ctrl-C that pnpm passes on); another store's listener is untouched", async () => {
      const other = h.createStore("Other shop")
      const mine = listen(["--key", shop.live_key], { ...h.env, SWITCHBOARD_URL: h.base })
      const theirs = listen(["--key", other.live_key], { ...h.env, SWITCHBOARD_URL: h.base })
      try {
        await Promise.all([ready(mine), ready(theirs)])
        mine.child.kill("SIGTERM")
        // the repeat comes a moment later, while the registration is being removed
        await new Promise((r) => setTimeout(r, 15))
        mine.child.kill("SIGINT")
        expect(await mine.exited).toBe(0)
        expect(mine.stderr()).toMatch(/Removed webhook whe_\w+\.\n$/)
        expect((await h.request("GET", "/chat/webhooks", shop.live_key)).json.data).toEqual([])
        expect((await h.request("GET", "/chat/webhooks", other.live_key)).json.data).toHaveLength(1)
      } finally {
        mine.child.kill("SIGKILL")
        theirs.child.kill("SIGINT")
        await theirs.exited
      }
    })

    it("a server that refuses private URLs: one line saying to set SWITCHBOARD_ALLOW_PRIVATE_URLS=true, exit 1", async () => {
      const store = strict.createStore("Strict shop")
      const l = listen(["--key", store.test_key], { ...strict.env, SWITCHBOARD_URL: strict.base })
      expect(await l.exited).toBe(1)
      const lines = l.stderr().trim().split("\n")
      expect(lines, l.stderr()).toHaveLength(1)
      expect(lines[0]).toMatch(/refused the receiver's URL http:\/\/127\.0\.0\.1:\d+\/ .*start the server with SWITCHBOARD_ALLOW_PRIVATE_URLS=true/)
      expect((await strict.request("GET", "/chat/webhooks", store.test_key)).json.data).toEqual([])
    })

    it("a webhook URL whose host name does not resolve is a 400 that says so", async () => {
      const store = strict.createStore("Typo shop")
      const answer = await strict.request("POST", "/chat/webhooks", store.test_key, {
        url: "https://hooks.switchboard-test.invalid/hook",
        events: ["message.status"]
      })
      expect(answer.status).toBe(400)
      expect(answer.json.error).toMatchObject({
        code: "validation_failed",
        message: "url: host name hooks.switchboard-test.invalid could not be resolved"
      })
    })
  })
