/**
 * Node's parser errors in the error envelope (issue 11 item 7) on the server factory the
 * `serve` command uses, with short timeouts so the 408 comes quickly. (The 400 and 431 are
 * also checked end to end in intake.test.ts.)
 */
import type { Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer } from "../src/ClientError.js"
import { raw } from "./rawHttp.js"

describe("Node's parser errors answer in the envelope", () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = createServer({ headersTimeout: 400, requestTimeout: 600, connectionsCheckingInterval: 100 } as any)
    // answers once the body has ended, as a route that reads its body does
    server.on("request", (req, res) => req.resume().on("end", () => res.end("ok")))
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  })

  it("headers that never end: 408 request_timeout", async () => {
    const res = await raw(port, "GET / HTTP/1.1\r\nHost: x\r\n")
    expect(res.status).toBe(408)
    expect(res.json).toEqual({ error: { code: "request_timeout", message: expect.any(String) } })
  })

  it("a malformed request line: 400 bad_request; headers too large: 431", async () => {
    const bad = await raw(port, "NOT HTTP\r\n\r\n")
    expect([bad.status, bad.json?.error?.code]).toEqual([400, "bad_request"])
    const big = await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`)
    expect([big.status, big.json?.error?.code]).toEqual([431, "request_header_fields_too_large"])
  })

  it("a bad chunk after a good request line: 400 in the envelope", async () => {
    const res = await raw(port, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n")
    expect([res.status, res.json?.error?.code]).toEqual([400, "bad_request"])
  })
})
