import { describe, expect, it } from "@effect/vitest"
import { WebhookEndpoint, WebhookTransport } from "@switchboard/domain"
import { Effect, Exit, type Layer, type Scope } from "effect"
import type * as http from "node:http"
import { Webhook } from "standardwebhooks"
import { Outbound, WebhookSender } from "../src/index.js"
import { localServer } from "./helpers.js"

// ---------------------------------------------------------------------------------------------
// A local receiver on 127.0.0.1

interface Received {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
}

interface Receiver {
  readonly port: number
  readonly received: Array<Received>
  /** Requests whose headers arrived, even if the handler never answers. */
  readonly connections: () => number
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void

const receiver = (handler: Handler = (_req, res) => res.writeHead(204).end()): Effect.Effect<Receiver, never, Scope.Scope> => {
  const received: Array<Received> = []
  return Effect.map(
    localServer((req, res, body) => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
      received.push({ method: req.method ?? "", url: req.url ?? "", headers, body })
      handler(req, res, body)
    }),
    ({ port, connections }) => ({ port, received, connections })
  )
}

// ---------------------------------------------------------------------------------------------

const PUBLIC = "93.184.216.34"

const resolverOf =
  (table: Record<string, ReadonlyArray<string>>, calls: Array<string> = []): Outbound.Resolver =>
  (hostname) => {
    calls.push(hostname)
    const addresses = table[hostname]
    if (addresses === undefined) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }))
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) })))
  }

const delivery = (url: string, secret = WebhookEndpoint.newSecret()): WebhookTransport.SignedDelivery => ({
  url,
  messageId: "evt_2mXq9",
  timestamp: Date.now(),
  secret,
  payload: JSON.stringify({ id: "evt_2mXq9", type: "message.status", data: { status: "delivered", text: "héllo" } })
})

const refusal = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.flip(effect).pipe(
    Effect.map((error) => {
      expect(error).toBeInstanceOf(WebhookTransport.UrlRefused)
      return error as WebhookTransport.UrlRefused
    })
  )

// ---------------------------------------------------------------------------------------------

describe("isPublicAddress", () => {
  it("accepts global unicast addresses", () => {
    for (const ip of [PUBLIC, "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(Outbound.isPublicAddress(ip), ip).toBe(true)
    }
  })

  it("refuses loopback, private, link-local, metadata, CGNAT, multicast, reserved and transition ranges", () => {
    for (const ip of [
      "127.0.0.1",
      "127.255.255.254",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.10",
      "169.254.169.254",
      "169.254.0.1",
      "100.64.0.1",
      "0.0.0.0",
      "0.1.2.3",
      "255.255.255.255",
      "224.0.0.1",
      "240.0.0.1",
      "192.0.2.1",
      "198.18.0.1",
      "::",
      "::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:169.254.169.254",
      "::127.0.0.1",
      "fe80::1",
      "fe80::1%eth0",
      "fc00::1",
      "fd12:3456::1",
      "fec0::1",
      "ff02::1",
      "2002:7f00:1::",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "64:ff9b::7f00:1",
      "64:ff9b:1::a00:1",
      "2001:db8::1",
      "not an address",
      ""
    ]) {
      expect(Outbound.isPublicAddress(ip), ip).toBe(false)
    }
  })
})

describe("checkUrl", () => {
  const calls: Array<string> = []
  const sender = WebhookSender.make({
    allowPrivateUrls: false,
    resolver: resolverOf(
      {
        "hooks.example.com": [PUBLIC],
        "internal.example.com": ["192.168.1.10"],
        "mixed.example.com": [PUBLIC, "10.0.0.5"],
        "v6.example.com": ["2606:4700:4700::1111", PUBLIC],
        "empty.example.com": []
      },
      calls
    )
  })

  const refusedUrls: ReadonlyArray<readonly [string, RegExp]> = [
    ["http://169.254.169.254/latest/meta-data/", /link-local address 169\.254\.169\.254/],
    ["http://127.1/", /loopback address 127\.0\.0\.1/],
    ["http://0x7f000001/", /loopback/],
    ["http://2130706433/", /loopback/],
    ["http://[::ffff:127.0.0.1]/", /loopback/],
    ["http://10.0.0.1/", /private address 10\.0\.0\.1/],
    ["http://[::1]/", /loopback address ::1/],
    ["http://0.0.0.0/", /unspecified address 0\.0\.0\.0/],
    ["http://[fd00::1]:8080/", /unique-local/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
    ["ftp://example.com/", /scheme ftp is not allowed/],
    ["file:///etc/passwd", /scheme file is not allowed/],
    ["javascript:alert(1)", /scheme javascript is not allowed/],
    ["not a url", /not a valid absolute URL/],
    ["https://user:secret@hooks.example.com/", /credentials/],
    ["http://metadata.google.internal/computeMetadata/v1/", /metadata/],
    ["http://METADATA/", /metadata/],
    ["http://instance-data./", /metadata/],
    ["http://localhost:3000/", /local host name/],
    ["https://internal.example.com/hook", /resolves to a private address 192\.168\.1\.10/],
    ["https://mixed.example.com/hook", /resolves to a private address 10\.0\.0\.5/],
    ["https://empty.example.com/hook", /resolves to no address/],
    ["https://nowhere.example.com/hook", /could not be resolved \(getaddrinfo ENOTFOUND nowhere\.example\.com\)/]
  ]

  /** Refusals of the URL's form quote the caller's input; every other refusal is of the address. */
  const formRefusal = /scheme|not a valid absolute URL|credentials/

  for (const [url, found] of refusedUrls) {
    it.effect(`refuses ${url}`, () =>
      Effect.gen(function* () {
        const error = yield* refusal(sender.checkUrl(url))
        expect(error.url).toBe(url)
        if (url === "https://nowhere.example.com/hook") {
          // a name that does not resolve says so (the caller's own input), never the resolver's error
          expect(error.reason).toBe("host name nowhere.example.com could not be resolved")
          expect(error.detail).toMatch(found)
        } else if (formRefusal.test(found.source)) {
          expect(error.reason).toMatch(found)
        } else {
          // the caller is told only that the address is not allowed; what was found is for logs
          expect(error.reason).toBe(Outbound.ADDRESS_NOT_ALLOWED)
          expect(error.detail).toMatch(found)
        }
      })
    )
  }

  it.effect("a refusal never tells the caller what our resolver answered", () =>
    Effect.gen(function* () {
      const reasons = new Set<string>()
      for (const url of ["https://internal.example.com/hook", "https://empty.example.com/hook", "https://mixed.example.com/hook"]) {
        const error = yield* refusal(sender.checkUrl(url))
        expect(error.reason).not.toMatch(/192\.168|10\.0\.0\.5|ENOTFOUND|getaddrinfo|could not be resolved|no address/)
        reasons.add(error.reason)
      }
      expect([...reasons]).toEqual([Outbound.ADDRESS_NOT_ALLOWED])
      const unresolved = yield* refusal(sender.checkUrl("https://nowhere.example.com/hook"))
      expect(unresolved.reason).not.toMatch(/ENOTFOUND|getaddrinfo/)
    })
  )

  it.effect("does not resolve metadata host names or IP literals", () =>
    Effect.gen(function* () {
      calls.length = 0
      yield* refusal(sender.checkUrl("http://metadata.google.internal/"))
      yield* refusal(sender.checkUrl("http://169.254.169.254/"))
      expect(calls).toEqual([])
    })
  )

  it.effect("accepts a host whose every address is public, and public IP literals", () =>
    Effect.gen(function* () {
      yield* sender.checkUrl("https://hooks.example.com/webhooks?tenant=1")
      yield* sender.checkUrl("http://hooks.example.com:8080/")
      yield* sender.checkUrl("https://v6.example.com/")
      yield* sender.checkUrl(`https://${PUBLIC}/`)
      yield* sender.checkUrl("https://[2606:4700:4700::1111]/")
    })
  )

  it.effect("with allowPrivateUrls only the scheme and format checks apply", () =>
    Effect.gen(function* () {
      const lenient = WebhookSender.make({ allowPrivateUrls: true, resolver: resolverOf({}) })
      yield* lenient.checkUrl("http://127.0.0.1:3000/hook")
      yield* lenient.checkUrl("http://localhost:3000/hook")
      yield* lenient.checkUrl("http://169.254.169.254/")
      yield* lenient.checkUrl("http://unresolvable.internal/")
      expect((yield* refusal(lenient.checkUrl("ftp://127.0.0.1/"))).reason).toMatch(/scheme/)
      expect((yield* refusal(lenient.checkUrl("http://a:b@127.0.0.1/"))).reason).toMatch(/credentials/)
    })
  )

  it.live("times out a resolver that never answers", () =>
    Effect.gen(function* () {
      const slow = WebhookSender.make({ allowPrivateUrls: false, timeoutMs: 50, resolver: () => new Promise(() => {}) })
      const error = yield* refusal(slow.checkUrl("https://hooks.example.com/"))
      expect(error.reason).toBe("host name hooks.example.com could not be resolved")
      expect(error.detail).toMatch(/could not be resolved within 50 ms/)
    })
  )
})

describe("deliver: refused at connect", () => {
  it.live("refuses a local receiver on 127.0.0.1 without connecting", () =>
    Effect.gen(function* () {
      const local = yield* receiver()
      const sender = WebhookSender.make({ allowPrivateUrls: false })
      const error = yield* refusal(sender.deliver(delivery(`http://127.0.0.1:${local.port}/hook`)))
      expect(error.reason).toBe(Outbound.ADDRESS_NOT_ALLOWED)
      expect(error.detail).toMatch(/loopback address 127\.0\.0\.1/)
      expect(local.received).toEqual([])
      expect(local.connections()).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("refuses a host that re-binds to 127.0.0.1 after the check, in the connection's lookup", () =>
    Effect.gen(function* () {
      const local = yield* receiver()
      const calls: Array<string> = []
      let answer = PUBLIC
      const resolver: Outbound.Resolver = (hostname) => {
        calls.push(hostname)
        return Promise.resolve([{ address: answer, family: 4 }])
      }
      const url = `http://rebind.example.com:${local.port}/hook`
      const strict = WebhookSender.make({ allowPrivateUrls: false, resolver })
      yield* strict.checkUrl(url)
      expect(calls).toEqual(["rebind.example.com"])

      answer = "127.0.0.1"
      const error = yield* refusal(strict.deliver(delivery(url)))
      expect(error.url).toBe(url)
      expect(error.reason).toBe(Outbound.ADDRESS_NOT_ALLOWED)
      expect(error.detail).toBe("resolves to a loopback address 127.0.0.1")
      // The refusal came from the socket's lookup, which resolved the host a second time.
      expect(calls).toEqual(["rebind.example.com", "rebind.example.com"])
      expect(local.received).toEqual([])
      expect(local.connections()).toBe(0)

      // The same lookup connects to 127.0.0.1 when private URLs are allowed: it is that
      // lookup, not some earlier check, that decides where the socket goes.
      const lenient = WebhookSender.make({ allowPrivateUrls: true, resolver })
      const { status } = yield* lenient.deliver(delivery(url))
      expect(status).toBe(204)
      expect(local.received.map((r) => r.headers.host)).toEqual([`rebind.example.com:${local.port}`])
    }).pipe(Effect.scoped)
  )

  it.live("refuses when any resolved address is private, even if a public one comes first", () =>
    Effect.gen(function* () {
      const local = yield* receiver()
      const sender = WebhookSender.make({
        allowPrivateUrls: false,
        resolver: resolverOf({ "mixed.example.com": [PUBLIC, "127.0.0.1"] })
      })
      const error = yield* refusal(sender.deliver(delivery(`http://mixed.example.com:${local.port}/`)))
      expect(error.reason).toBe(Outbound.ADDRESS_NOT_ALLOWED)
      expect(error.detail).toMatch(/loopback address 127\.0\.0\.1/)
      expect(local.connections()).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("refuses metadata host names and bad schemes before connecting", () =>
    Effect.gen(function* () {
      const calls: Array<string> = []
      const sender = WebhookSender.make({ allowPrivateUrls: false, resolver: resolverOf({}, calls) })
      expect((yield* refusal(sender.deliver(delivery("http://metadata.google.internal/")))).detail).toMatch(/metadata/)
      expect((yield* refusal(sender.deliver(delivery("http://[::ffff:169.254.169.254]/")))).detail).toMatch(/link-local/)
      expect((yield* refusal(sender.deliver(delivery("gopher://example.com/")))).reason).toMatch(/scheme/)
      expect(calls).toEqual([])
    })
  )

  it.live("a host that does not resolve is a DeliveryFailed that does not quote our resolver", () =>
    Effect.gen(function* () {
      const sender = WebhookSender.make({ allowPrivateUrls: false, resolver: resolverOf({}) })
      const error = yield* Effect.flip(sender.deliver(delivery("https://nowhere.example.com/")))
      expect(error).toBeInstanceOf(WebhookTransport.DeliveryFailed)
      expect((error as WebhookTransport.DeliveryFailed).reason).toBe("the host name could not be resolved")
    })
  )
})

describe("deliver: with allowPrivateUrls", () => {
  const sender = WebhookSender.make({ allowPrivateUrls: true, userAgent: "Switchboard-Test/1" })

  it.live("POSTs the payload signed per Standard Webhooks and answers the status", () =>
    Effect.gen(function* () {
      const local = yield* receiver((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"))
      const secret = WebhookEndpoint.newSecret()
      const sent = delivery(`http://127.0.0.1:${local.port}/hooks/in?x=1`, secret)
      const { status } = yield* sender.deliver(sent)
      expect(status).toBe(200)
      expect(local.received).toHaveLength(1)
      const [request] = local.received
      expect(request.method).toBe("POST")
      expect(request.url).toBe("/hooks/in?x=1")
      expect(request.body).toBe(sent.payload)
      expect(request.headers["content-type"]).toBe("application/json")
      expect(request.headers["user-agent"]).toBe("Switchboard-Test/1")
      expect(request.headers["webhook-id"]).toBe("evt_2mXq9")
      expect(request.headers["webhook-timestamp"]).toBe(String(Math.floor(sent.timestamp / 1000)))
      expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      expect(request.headers["content-length"]).toBe(String(Buffer.byteLength(sent.payload)))
      expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(JSON.parse(sent.payload))
      expect(() => new Webhook(WebhookEndpoint.newSecret()).verify(request.body, request.headers)).toThrow()
    }).pipe(Effect.scoped)
  )

  it.live("answers error statuses as statuses", () =>
    Effect.gen(function* () {
      let next = 500
      const local = yield* receiver((_req, res) => res.writeHead(next).end("nope"))
      expect((yield* sender.deliver(delivery(`http://127.0.0.1:${local.port}/`))).status).toBe(500)
      next = 410
      expect((yield* sender.deliver(delivery(`http://127.0.0.1:${local.port}/`))).status).toBe(410)
    }).pipe(Effect.scoped)
  )

  it.live("never follows a redirect", () =>
    Effect.gen(function* () {
      const local = yield* receiver((req, res) => {
        if (req.url === "/start") res.writeHead(301, { location: "/elsewhere" }).end()
        else res.writeHead(200).end()
      })
      const { status } = yield* sender.deliver(delivery(`http://127.0.0.1:${local.port}/start`))
      expect(status).toBe(301)
      expect(local.received.map((r) => r.url)).toEqual(["/start"])
    }).pipe(Effect.scoped)
  )

  it.live("reuses the connection (keep-alive)", () =>
    Effect.gen(function* () {
      const local = yield* receiver()
      const url = `http://127.0.0.1:${local.port}/`
      yield* sender.deliver(delivery(url))
      yield* sender.deliver(delivery(url))
      yield* sender.deliver(delivery(url))
      expect(local.received).toHaveLength(3)
      expect(local.connections()).toBe(1)
    }).pipe(Effect.scoped)
  )

  it.live("reads at most 64 KiB of a large answer", () =>
    Effect.gen(function* () {
      const local = yield* receiver((_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream" })
        const chunk = Buffer.alloc(64 * 1024, 120)
        // 16 MiB, written without waiting: the sender stops reading after 64 KiB.
        let left = 256
        const write = () => {
          while (left > 0) {
            left--
            if (!res.write(chunk)) return void res.once("drain", write)
          }
          res.end()
        }
        res.on("error", () => {})
        write()
      })
      const started = Date.now()
      const { status } = yield* sender.deliver(delivery(`http://127.0.0.1:${local.port}/`))
      expect(status).toBe(200)
      expect(Date.now() - started).toBeLessThan(5_000)
    }).pipe(Effect.scoped)
  )

  it.live("times out a receiver that does not answer", () =>
    Effect.gen(function* () {
      const local = yield* receiver(() => {
        /* never answers */
      })
      const slow = WebhookSender.make({ allowPrivateUrls: true, timeoutMs: 200 })
      const started = Date.now()
      const error = yield* Effect.flip(slow.deliver(delivery(`http://127.0.0.1:${local.port}/`)))
      expect(error).toEqual(new WebhookTransport.DeliveryFailed({ reason: "timed out after 200 ms" }))
      expect(Date.now() - started).toBeGreaterThanOrEqual(190)
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(local.received).toHaveLength(1)
    }).pipe(Effect.scoped)
  )

  it.live("the default timeout is 10000 ms", () => Effect.sync(() => expect(WebhookSender.DEFAULT_TIMEOUT_MS).toBe(10_000)))

  it.live("a refused connection is a DeliveryFailed", () =>
    Effect.gen(function* () {
      // Find a port nothing listens on.
      const port = yield* Effect.scoped(Effect.map(receiver(), (r) => r.port))
      const error = yield* Effect.flip(sender.deliver(delivery(`http://127.0.0.1:${port}/`)))
      expect(error).toBeInstanceOf(WebhookTransport.DeliveryFailed)
      expect((error as WebhookTransport.DeliveryFailed).reason).toMatch(/ECONNREFUSED/)
    })
  )

  it.live("a secret that is not base64 is a DeliveryFailed", () =>
    Effect.gen(function* () {
      const local = yield* receiver()
      const error = yield* Effect.flip(sender.deliver(delivery(`http://127.0.0.1:${local.port}/`, "whsec_!!!not-base64!!!")))
      expect(error._tag).toBe("DeliveryFailed")
      expect(local.received).toEqual([])
    }).pipe(Effect.scoped)
  )

  it.live("interrupting a delivery aborts the request", () =>
    Effect.gen(function* () {
      const local = yield* receiver(() => {})
      const exit = yield* sender.deliver(delivery(`http://127.0.0.1:${local.port}/`)).pipe(Effect.timeout("100 millis"), Effect.exit)
      expect(Exit.isFailure(exit)).toBe(true)
    }).pipe(Effect.scoped)
  )
})

describe("layer", () => {
  it.live("provides the WebhookTransport port", () =>
    Effect.gen(function* () {
      const local = yield* receiver((_req, res) => res.writeHead(202).end())
      const transport = yield* WebhookTransport.WebhookTransport
      yield* transport.checkUrl(`http://127.0.0.1:${local.port}/`)
      expect((yield* transport.deliver(delivery(`http://127.0.0.1:${local.port}/`))).status).toBe(202)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer({ allowPrivateUrls: true }) satisfies Layer.Layer<WebhookTransport.WebhookTransport>))
  )
})
