/**
 * `GraphTransport.layer`'s HTTP/1.1 client against real servers on 127.0.0.1: `node:http` for
 * ordinary answers, a raw `net` server for hand-written byte streams (every framing, split
 * anywhere), and `node:https` with a certificate made for the run.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either, Exit, Fiber } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { GraphTransport } from "../src/index.js"

type Transport = ReturnType<typeof GraphTransport.make>

const transports: Array<Transport> = []
const closers: Array<() => Promise<void>> = []

const transport = (options: GraphTransport.Options = {}): Transport => {
  const made = GraphTransport.make(options)
  transports.push(made)
  return made
}

afterEach(async () => {
  for (const made of transports.splice(0)) await new Promise<void>((resolve) => made.close(resolve))
  for (const close of closers.splice(0)) await close()
})

const get = (url: string, headers: Record<string, string> = {}): GraphTransport.Request => ({ method: "GET", url, headers })

/** The answer or the transport error of one request. */
const run = (t: Transport, request: GraphTransport.Request, timeoutMs = 2000) => Effect.runPromise(Effect.either(t.request(request, timeoutMs)))

const answer = async (t: Transport, request: GraphTransport.Request, timeoutMs = 2000): Promise<GraphTransport.Answer> => {
  const result = await run(t, request, timeoutMs)
  if (Either.isLeft(result)) throw new Error(`expected an answer, got ${result.left.reason}`)
  return result.right
}

const failure = async (t: Transport, request: GraphTransport.Request, timeoutMs = 2000): Promise<GraphTransport.TransportError> => {
  const result = await run(t, request, timeoutMs)
  if (Either.isRight(result)) throw new Error(`expected a TransportError, got status ${result.right.status}`)
  return result.left
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (condition()) return
    await sleep(10)
  }
  throw new Error(`timed out waiting for ${what}`)
}

interface Counted {
  readonly url: string
  /** Connections accepted so far. */
  readonly connections: () => number
  /** Connections open now. */
  readonly open: () => number
  /** The most connections open at once. */
  readonly peak: () => number
}

const count = (server: net.Server, sockets: Array<net.Socket>) => {
  let connections = 0
  let open = 0
  let peak = 0
  server.on("connection", (socket: net.Socket) => {
    connections++
    open++
    peak = Math.max(peak, open)
    sockets.push(socket)
    socket.on("close", () => open--)
  })
  return { connections: () => connections, open: () => open, peak: () => peak }
}

const listen = async (server: net.Server, protocol: string): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `${protocol}://127.0.0.1:${(server.address() as net.AddressInfo).port}`
}

/** A `node:http` server. */
const httpServer = async (handler: http.RequestListener, configure: (server: http.Server) => void = () => {}): Promise<Counted> => {
  const server = http.createServer(handler)
  configure(server)
  const sockets: Array<net.Socket> = []
  const counted = count(server, sockets)
  const url = await listen(server, "http")
  closers.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url, ...counted }
}

/**
 * A raw server: `respond` gets each whole request (head and content-length body, latin1) with
 * its socket and writes whatever bytes it likes.
 */
const rawServer = async (
  respond: (socket: net.Socket, request: string, index: number) => void
): Promise<Counted & { readonly requests: Array<string>; readonly sockets: Array<net.Socket>; readonly closed: () => number }> => {
  const requests: Array<string> = []
  const sockets: Array<net.Socket> = []
  let closed = 0
  const server = net.createServer((socket) => {
    socket.setNoDelay(true)
    socket.on("error", () => {})
    socket.on("close", () => closed++)
    let buffered = ""
    socket.on("data", (data) => {
      buffered += data.toString("latin1")
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n")
        if (end < 0) return
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        const request = buffered.slice(0, end + 4 + length)
        buffered = buffered.slice(end + 4 + length)
        requests.push(request)
        respond(socket, request, requests.length - 1)
      }
    })
  })
  const counted = count(server, sockets)
  const url = await listen(server, "http")
  closers.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url, requests, sockets, closed: () => closed, ...counted }
}

/** Writes `bytes` one byte per write, a millisecond apart. */
const dribble = async (socket: net.Socket, bytes: string) => {
  for (const byte of Buffer.from(bytes, "utf8")) {
    if (socket.destroyed) return
    socket.write(Buffer.of(byte))
    await sleep(1)
  }
}

describe("GraphTransport.layer", () => {
  it("sends one request with host, headers and content-length and reads a JSON answer", async () => {
    let seen: { method?: string; url?: string; headers?: http.IncomingHttpHeaders; body?: string } = {}
    const server = await httpServer((req, res) => {
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (chunk) => (body += chunk))
      req.on("end", () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body }
        res.writeHead(200, { "content-type": "application/json", "x-trace": "T1" })
        res.end(JSON.stringify({ messages: [{ id: "wamid.1" }], echo: "héllo" }))
      })
    })
    const t = transport()
    const result = await answer(t, {
      method: "POST",
      url: `${server.url}/v23.0/pn/messages?x=1`,
      headers: { authorization: "Bearer token", "content-type": "application/json" },
      body: JSON.stringify({ text: "€ and ü" })
    })
    expect(result.status).toBe(200)
    expect(JSON.parse(result.text)).toEqual({ messages: [{ id: "wamid.1" }], echo: "héllo" })
    expect(result.headers["content-type"]).toBe("application/json")
    expect(result.headers["x-trace"]).toBe("T1")
    expect(seen.method).toBe("POST")
    expect(seen.url).toBe("/v23.0/pn/messages?x=1")
    expect(seen.headers?.host).toBe(new URL(server.url).host)
    expect(seen.headers?.authorization).toBe("Bearer token")
    expect(seen.headers?.["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify({ text: "€ and ü" }))))
    expect(seen.headers?.["transfer-encoding"]).toBeUndefined()
    expect(JSON.parse(seen.body!)).toEqual({ text: "€ and ü" })

    // any status is an answer
    const refused = await httpServer((_req, res) => res.writeHead(429, { "retry-after": "3" }).end('{"error":{}}'))
    const limited = await answer(t, get(refused.url))
    expect(limited).toMatchObject({ status: 429, text: '{"error":{}}' })
    expect(limited.headers["retry-after"]).toBe("3")
  })

  it("the send callback is called once with the answer", async () => {
    const server = await httpServer((_req, res) => res.end("pong"))
    const t = transport()
    const results: Array<GraphTransport.Answer | GraphTransport.TransportError> = []
    await new Promise<void>((resolve) =>
      t.send(get(server.url), 1000, (result) => {
        results.push(result)
        resolve()
      })
    )
    await sleep(50)
    expect(results).toHaveLength(1)
    expect((results[0] as GraphTransport.Answer).text).toBe("pong")
  })

  it("keeps the connection alive: 50 sequential requests on one socket", async () => {
    const server = await httpServer((req, res) => res.end(`${req.url}`))
    const t = transport()
    for (let i = 0; i < 50; i++) expect((await answer(t, get(`${server.url}/${i}`))).text).toBe(`/${i}`)
    expect(server.connections()).toBe(1)
  })

  it("opens at most `connections` sockets per origin; the other requests wait their turn", async () => {
    const server = await httpServer((req, res) => setTimeout(() => res.end(req.url), 30))
    const t = transport({ connections: 2 })
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => answer(t, get(`${server.url}/${i}`))))
    expect(results.map((r) => r.text)).toEqual(Array.from({ length: 10 }, (_, i) => `/${i}`))
    expect(server.peak()).toBeLessThanOrEqual(2)
    expect(server.connections()).toBe(2)
  })

  it("reads a chunked answer that arrives a byte at a time, extensions and trailers included", async () => {
    const body = "héllo wörld, chunked"
    const encoded = Buffer.from(body, "utf8")
    const wire =
      "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n" +
      `5;name=value\r\n${encoded.subarray(0, 5).toString("latin1")}\r\n` +
      `${(encoded.length - 5).toString(16).toUpperCase()} \r\n${encoded.subarray(5).toString("latin1")}\r\n` +
      "0\r\nx-checksum: abc\r\n\r\n"
    // the exact wire bytes (the body's UTF-8 split inside a character), one per write
    const exact = await rawServer((socket) => {
      void (async () => {
        for (const byte of Buffer.from(wire, "latin1")) {
          if (socket.destroyed) return
          socket.write(Buffer.of(byte))
          await sleep(1)
        }
      })()
    })
    const t = transport()
    const first = await answer(t, get(exact.url))
    expect(first.status).toBe(200)
    expect(first.text).toBe(body)
    expect(first.headers["transfer-encoding"]).toBe("chunked")
    // the socket is reused after a chunked answer
    const second = await answer(t, get(exact.url))
    expect(second.text).toBe(body)
    expect(exact.connections()).toBe(1)
  })

  it("reads a content-length answer that arrives a byte at a time", async () => {
    const body = JSON.stringify({ ok: "✓ fine" })
    const server = await rawServer(
      (socket) =>
        void dribble(socket, `HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
    )
    const t = transport()
    const result = await answer(t, get(server.url))
    expect(result).toMatchObject({ status: 201, text: body })
    expect((await answer(t, get(server.url))).text).toBe(body)
    expect(server.connections()).toBe(1)
  })

  it("reads an answer with no length until the server closes, then opens a new connection", async () => {
    const server = await rawServer((socket, _request, index) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\npart one, ")
      setTimeout(() => socket.end(`part two ${index}`), 20)
    })
    const t = transport()
    expect((await answer(t, get(server.url))).text).toBe("part one, part two 0")
    expect((await answer(t, get(server.url))).text).toBe("part one, part two 1")
    expect(server.connections()).toBe(2)
  })

  it("skips informational answers (several in one packet with the final one)", async () => {
    const server = await rawServer((socket) =>
      socket.write(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 4\r\nx-final: yes\r\n\r\ndone"
      )
    )
    const t = transport()
    const result = await answer(t, get(server.url))
    expect(result).toMatchObject({ status: 200, text: "done" })
    expect(result.headers["x-final"]).toBe("yes")
    expect(result.headers.link).toBeUndefined()
    expect((await answer(t, get(server.url))).text).toBe("done")
    expect(server.connections()).toBe(1)
  })

  it("a 204 and a 304 have no body, and the socket is reused after them", async () => {
    const server = await httpServer((req, res) => {
      res.statusCode = req.url === "/204" ? 204 : req.url === "/304" ? 304 : 200
      res.end(res.statusCode === 200 ? "after" : undefined)
    })
    const raw = await rawServer((socket) => socket.write("HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"))
    const t = transport()
    expect(await answer(t, get(`${server.url}/204`))).toMatchObject({ status: 204, text: "" })
    expect(await answer(t, get(`${server.url}/304`))).toMatchObject({ status: 304, text: "" })
    expect(await answer(t, get(`${server.url}/x`))).toMatchObject({ status: 200, text: "after" })
    expect(server.connections()).toBe(1)
    expect(await answer(t, get(raw.url))).toMatchObject({ status: 204, text: "" })
    expect(await answer(t, get(raw.url))).toMatchObject({ status: 204, text: "" })
    expect(raw.connections()).toBe(1)
  })

  it("honors connection: close (and HTTP/1.0 without keep-alive): the next request opens a new connection", async () => {
    // the server leaves the socket open: only the client's own closing makes the second request work
    const server = await rawServer((socket, request) =>
      socket.write(
        request.startsWith("GET /old")
          ? "HTTP/1.0 200 OK\r\ncontent-length: 3\r\n\r\nold"
          : "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
      )
    )
    const t = transport()
    expect((await answer(t, get(server.url), 1000)).text).toBe("ok")
    expect((await answer(t, get(server.url), 1000)).text).toBe("ok")
    expect(server.connections()).toBe(2)
    expect((await answer(t, get(`${server.url}/old`), 1000)).text).toBe("old")
    expect((await answer(t, get(`${server.url}/old`), 1000)).text).toBe("old")
    expect(server.connections()).toBe(4)
    await until(() => server.closed() === 4, "the client to close its sockets")
  })

  it("drops an idle socket the server closed; the next request goes on a new one", async () => {
    const server = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
      setTimeout(() => socket.end(), 50)
    })
    const t = transport()
    expect((await answer(t, get(server.url))).text).toBe("ok")
    await until(() => server.closed() === 1, "the server to close")
    await sleep(20)
    expect((await answer(t, get(server.url))).text).toBe("ok")
    expect(server.connections()).toBe(2)
  })

  it("keeps an idle socket one second less than the server's keep-alive hint", async () => {
    const server = await httpServer(
      (_req, res) => res.end("ok"),
      (s) => {
        s.keepAliveTimeout = 2500 // sends `keep-alive: timeout=2`
      }
    )
    const t = transport()
    expect((await answer(t, get(server.url))).text).toBe("ok")
    expect((await answer(t, get(server.url))).text).toBe("ok")
    expect(server.connections()).toBe(1)
    const idle = Date.now()
    await until(() => server.open() === 0, "the idle socket to close")
    const closedAfter = Date.now() - idle
    expect(closedAfter).toBeGreaterThan(800)
    expect(closedAfter).toBeLessThan(2000) // the client closed it, before the server would
    expect((await answer(t, get(server.url))).text).toBe("ok")
    expect(server.connections()).toBe(2)
  })

  it("closes idle sockets after the keep-alive timeout when the server gives no hint", async () => {
    const server = await rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"))
    const t = transport({ keepAliveTimeoutMs: 150 })
    expect((await answer(t, get(server.url))).text).toBe("ok")
    expect(server.open()).toBe(1)
    await until(() => server.open() === 0, "the client to close its idle socket")
  })

  it("reuses the most recently used idle socket first", async () => {
    const ids = new WeakMap<net.Socket, number>()
    const used: Array<number> = []
    let sockets = 0
    const server = await httpServer((req, res) => {
      if (!ids.has(req.socket)) ids.set(req.socket, sockets++)
      used.push(ids.get(req.socket)!)
      setTimeout(() => res.end("ok"), req.url === "/slow" ? 30 : 0)
    })
    const t = transport()
    await Promise.all([answer(t, get(`${server.url}/slow`)), answer(t, get(`${server.url}/slow`)), answer(t, get(`${server.url}/slow`))])
    expect(server.connections()).toBe(3)
    used.length = 0
    for (let i = 0; i < 6; i++) await answer(t, get(`${server.url}/fast`))
    expect(new Set(used).size).toBe(1)
  })

  it("a socket idle over a second is checked before it is written: one the server closed meanwhile is not used", async () => {
    // a server in another process, so that its FIN reaches this process while its event loop is blocked
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const s = require("net").createServer((c) => c.on("data", () => { c.write("HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\nok"); setTimeout(() => c.end(), 200) }));
         s.listen(0, "127.0.0.1", () => console.log(s.address().port))`
      ],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    closers.push(async () => {
      child.kill()
    })
    const port = await new Promise<string>((resolve) => child.stdout!.once("data", (data) => resolve(String(data).trim())))
    const url = `http://127.0.0.1:${port}`
    const t = transport()
    expect((await answer(t, get(url))).text).toBe("ok")
    // the server closes the idle socket after 200 ms; this process sees it only after the block
    const until = Date.now() + 1300
    while (Date.now() < until) {}
    const result = await answer(t, get(url))
    expect(result.text).toBe("ok")
  })

  it("an answer slower than the timeout fails with the timeout, and its socket is not reused", async () => {
    const server = await rawServer((socket, request) => {
      if (request.startsWith("GET /slow")) setTimeout(() => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nlate"), 600)
      else socket.write("HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nfast")
    })
    const t = transport()
    expect((await answer(t, get(server.url))).text).toBe("fast")
    const started = Date.now()
    const error = await failure(t, get(`${server.url}/slow`), 150)
    expect(error._tag).toBe("TransportError")
    expect(error.reason).toContain("no answer within 150 ms")
    expect(Date.now() - started).toBeLessThan(500)
    await until(() => server.closed() === 1, "the timed-out socket to close")
    expect((await answer(t, get(server.url))).text).toBe("fast")
    expect(server.connections()).toBe(2)
  })

  it("a request waiting for a connection times out too", async () => {
    const server = await rawServer(() => {})
    const t = transport({ connections: 1 })
    const [first, second] = await Promise.all([failure(t, get(server.url), 200), failure(t, get(server.url), 100)])
    expect(first.reason).toContain("no answer within 200 ms")
    expect(second.reason).toContain("no answer within 100 ms")
    expect(server.requests).toHaveLength(1)
  })

  it("a refused connection is a TransportError", async () => {
    const probe = net.createServer()
    const url = await listen(probe, "http")
    await new Promise((resolve) => probe.close(resolve))
    const error = await failure(transport(), get(url))
    expect(error.reason).toContain("ECONNREFUSED")
  })

  it("an unparsable answer is a TransportError and its socket is destroyed", async () => {
    const server = await rawServer((socket, request) => {
      if (request.startsWith("GET /garbage")) socket.write("hello there\r\n\r\n")
      else if (request.startsWith("GET /chunks")) socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n")
      else if (request.startsWith("GET /header")) socket.write("HTTP/1.1 200 OK\r\nbad header\r\ncontent-length: 0\r\n\r\n")
      else if (request.startsWith("GET /length")) socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nabc")
      else if (request.startsWith("GET /extra")) socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA")
      else socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
    })
    const t = transport()
    for (const path of ["/garbage", "/chunks", "/header", "/length"]) {
      const error = await failure(t, get(`${server.url}${path}`))
      expect(error.reason).toMatch(/^invalid answer/)
    }
    await until(() => server.closed() === 4, "the four sockets to close")
    expect(server.connections()).toBe(4)
    // bytes past the answer: the answer stands, the socket is not reused
    expect((await answer(t, get(`${server.url}/extra`))).text).toBe("ok")
    expect((await answer(t, get(`${server.url}/ok`))).text).toBe("ok")
    expect(server.connections()).toBe(6)
  })

  it("interrupting request closes its socket and never calls back", async () => {
    const server = await rawServer(() => {})
    const t = transport()
    const fiber = Effect.runFork(t.request(get(server.url), 5000))
    await until(() => server.requests.length === 1, "the request")
    const exit = await Effect.runPromise(Fiber.interrupt(fiber))
    expect(Exit.isInterrupted(exit)).toBe(true)
    await until(() => server.closed() === 1, "the server to see the socket closed")

    // a request waiting for a connection leaves the queue
    const one = transport({ connections: 1 })
    const busy = Effect.runFork(one.request(get(server.url), 5000))
    const waiting = Effect.runFork(one.request(get(`${server.url}/waiting`), 5000))
    await until(() => server.requests.length === 2, "the second request")
    await Effect.runPromise(Fiber.interrupt(waiting))
    await Effect.runPromise(Fiber.interrupt(busy))
    await sleep(50)
    expect(server.requests).toHaveLength(2)
  })

  it("repeated answer headers are arrays", async () => {
    const server = await httpServer((_req, res) => {
      res.setHeader("x-multi", ["a", "b"])
      res.setHeader("set-cookie", ["one=1", "two=2"])
      res.setHeader("X-Single", "  padded  ")
      res.end("ok")
    })
    const headers = (await answer(transport(), get(server.url))).headers
    expect(headers["x-multi"]).toEqual(["a", "b"])
    expect(headers["set-cookie"]).toEqual(["one=1", "two=2"])
    expect(headers["x-single"]).toBe("padded")
  })

  it("a header value with CR/LF (or a bad name) is a TransportError and nothing is written", async () => {
    const server = await rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"))
    const t = transport()
    const injected = await failure(t, get(server.url, { "x-evil": "a\r\nx-injected: yes" }))
    expect(injected.reason).toContain("invalid request")
    expect((await failure(t, get(server.url, { "x-evil": "a\nb" }))).reason).toContain("invalid request")
    expect((await failure(t, get(server.url, { "bad name": "v" }))).reason).toContain("invalid request")
    const sent: Array<GraphTransport.Answer | GraphTransport.TransportError> = []
    t.send(get(server.url, { "x-evil": "\r\n" }), 1000, (result) => sent.push(result))
    expect(sent).toHaveLength(1)
    expect(sent[0]).toBeInstanceOf(GraphTransport.TransportError)
    await sleep(50)
    expect(server.connections()).toBe(0)
    expect(server.requests).toHaveLength(0)
  })

  it("closing the transport closes its idle sockets", async () => {
    const server = await httpServer(
      (_req, res) => res.end("ok"),
      (s) => (s.keepAliveTimeout = 60_000)
    )
    const t = GraphTransport.make()
    expect((await answer(t, get(server.url))).text).toBe("ok")
    expect(server.open()).toBe(1)
    await new Promise<void>((resolve) => t.close(resolve))
    await until(() => server.open() === 0, "the socket to close")
    expect((await failure(t, get(server.url))).reason).toContain("closed")
  })

  describe("https", () => {
    let folder: string
    let key: string
    let cert: string

    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), "graph-transport-"))
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          join(folder, "key.pem"),
          "-out",
          join(folder, "cert.pem"),
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=IP:127.0.0.1,DNS:localhost",
          "-days",
          "1"
        ],
        { stdio: "ignore" }
      )
      key = readFileSync(join(folder, "key.pem"), "utf8")
      cert = readFileSync(join(folder, "cert.pem"), "utf8")
    })

    afterAll(() => rmSync(folder, { recursive: true, force: true }))

    it("trusts a self-signed certificate given as `ca`, and refuses it otherwise", async () => {
      const server = https.createServer({ key, cert }, (req, res) => res.end(`secure ${req.headers.host}`))
      let connections = 0
      server.on("secureConnection", () => connections++)
      const url = await listen(server, "https")
      closers.push(async () => {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      })
      const port = new URL(url).port

      const trusting = transport({ ca: cert })
      for (let i = 0; i < 3; i++) expect((await answer(trusting, get(`${url}/`))).text).toBe(`secure 127.0.0.1:${port}`)
      expect((await answer(trusting, get(`https://localhost:${port}/`))).text).toBe(`secure localhost:${port}`)
      expect(connections).toBe(2)

      const error = await failure(transport(), get(`${url}/`))
      expect(error.reason).toMatch(/self[- ]signed|certificate/i)
    })
  })
})
