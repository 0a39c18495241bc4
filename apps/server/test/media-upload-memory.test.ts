/**
 * A 200 MiB upload to `POST /chat/media` and the server's memory (issue 32, "Done when"): the
 * intake spools the multipart body to a file within the route's limit (100 MiB, the largest
 * file the operator takes, plus 1 MiB), so the answer is 413 and the server's resident memory
 * grows by less than 50 MB. Measured as `upload-memory.test.ts` does (VmHWM reset, VmRSS
 * sampled every 10 ms), after a warm-up upload of a 32 MiB body.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sleep } from "@switchboard/testing"
import { startServer, type CreatedStore, type Harness } from "./harness.js"
import { upload } from "./rawHttp.js"

const MiB = 1024 * 1024

const rss = (pid: number): { VmRSS: number; VmHWM: number } => {
  const text = readFileSync(`/proc/${pid}/status`, "utf8")
  const read = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) / 1024
  return { VmRSS: read("VmRSS"), VmHWM: read("VmHWM") }
}

describe.skipIf(process.platform !== "linux")("a 200 MiB media upload (SQLite, real HTTP)", () => {
  let h: Harness
  let a: CreatedStore
  beforeAll(async () => {
    h = await startServer()
    a = h.createStore("Media memory")
  }, 240_000)
  afterAll(() => h?.stop(), 60_000)

  const send = (size: number) =>
    upload({
      port: Number(new URL(h.base).port),
      path: "/chat/media",
      size,
      chunked: true,
      chunkBytes: 256 * 1024,
      sendAll: true,
      timeoutMs: 300_000,
      headers: { authorization: `Bearer ${a.live_key}`, "content-type": "multipart/form-data; boundary=xyz" }
    })

  it("answers 413 and the peak RSS grows by less than 50 MB", { timeout: 600_000 }, async () => {
    await send(32 * MiB)
    await sleep(1500)
    let resettable = true
    try {
      writeFileSync(`/proc/${h.pid}/clear_refs`, "5")
    } catch {
      resettable = false
    }
    const before = rss(h.pid).VmRSS
    let sampled = before
    const sampler = setInterval(() => {
      try {
        sampled = Math.max(sampled, rss(h.pid).VmRSS)
      } catch {
        // gone: the assertions say so
      }
    }, 10)
    let answer: Awaited<ReturnType<typeof send>>
    try {
      answer = await send(200 * MiB)
    } finally {
      clearInterval(sampler)
    }
    const peak = Math.max(sampled, resettable ? rss(h.pid).VmHWM : 0)
    console.log(
      `media upload: 200 MiB -> ${answer.status}; RSS before ${before.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, growth ${(peak - before).toFixed(1)} MB`
    )
    expect(answer.status).toBe(413)
    expect(answer.json?.error?.code).toBe("payload_too_large")
    expect(peak - before).toBeLessThan(50)
  })
})
