/**
 * The flow data exchange (`FlowExchange`, the domain's `CallerEndpoint`) under the guard of
 * every call to a caller's URL: signed as Standard Webhooks, and connected only to the
 * address its own lookup checked, so a name that passes `checkUrl` and then re-binds to a
 * private address is refused at connect (the resolver is injected: no DNS, no /etc/hosts).
 */
import { describe, expect, it } from "@effect/vitest"
import { FlowCrypto } from "@switchboard/domain"
import { Effect } from "effect"
import type * as http from "node:http"
import * as net from "node:net"
import { Webhook } from "standardwebhooks"
import { FeedFiles, FlowExchange, Outbound, WebhookSender } from "../src/index.js"
import { signedHeaders } from "../src/internal/client.js"
import { localServer } from "./helpers.js"

const PUBLIC = "93.184.216.34"
const SECRET = `whsec_${Buffer.from("flow-exchange-test-secret-32byte").toString("base64")}`

interface Received {
  readonly host: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** A local endpoint on 127.0.0.1 that answers `answer` and counts its connections. */
const endpoint = (answer: (body: string) => { status: number; body: string } = () => ({ status: 200, body: '{"screen":"SUCCESS"}' })) => {
  const received: Array<Received> = []
  return Effect.map(
    localServer((req, res, body) => {
      received.push({ host: req.headers.host ?? "", headers: req.headers, body })
      const out = answer(body)
      res.writeHead(out.status, { "content-type": "application/json" }).end(out.body)
    }),
    (server) => ({ ...server, received })
  )
}

/** A resolver whose answer the test changes: public when the URL is checked, private when the exchange connects. */
const flipping = () => {
  const calls: Array<string> = []
  const state = { answer: PUBLIC }
  const resolver: Outbound.Resolver = (hostname) => {
    calls.push(hostname)
    return Promise.resolve([{ address: state.answer, family: 4 as const }])
  }
  return { calls, state, resolver }
}

describe("FlowExchange: the flow data exchange connects only to the address it checked", () => {
  it.live("a name public at the check and private at connect is refused, and nothing reaches the private address", () =>
    Effect.gen(function* () {
      const local = yield* endpoint()
      const { calls, state, resolver } = flipping()
      const url = `http://flip.example.com:${local.port}/flow`
      yield* WebhookSender.make({ allowPrivateUrls: false, resolver }).checkUrl(url)
      state.answer = "127.0.0.1"
      const exchange = FlowExchange.make({ allowPrivateUrls: false, resolver })
      const reason = yield* Effect.flip(exchange.exchange(url, SECRET, { action: "INIT", flow_token: "t" }))
      expect(reason).toBe(`the endpoint URL is refused: ${Outbound.ADDRESS_NOT_ALLOWED}`)
      expect(reason).not.toContain("127.0.0.1")
      // the exchange resolved the name itself, at connect
      expect(calls).toEqual(["flip.example.com", "flip.example.com"])
      expect(local.received).toEqual([])
      expect(local.connections()).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("the socket goes where that lookup says: with private URLs allowed the same name reaches the local endpoint, signed", () =>
    Effect.gen(function* () {
      const local = yield* endpoint((body) => ({ status: 200, body: JSON.stringify({ screen: "SUMMARY", data: { echo: JSON.parse(body).action } }) }))
      const { state, resolver } = flipping()
      state.answer = "127.0.0.1"
      const exchange = FlowExchange.make({ allowPrivateUrls: true, resolver })
      const answer = yield* exchange.exchange(`http://flip.example.com:${local.port}/flow`, SECRET, { action: "data_exchange" })
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body)).toEqual({ screen: "SUMMARY", data: { echo: "data_exchange" } })
      const [got] = local.received
      expect(got!.host).toBe(`flip.example.com:${local.port}`)
      // Standard Webhooks, verifiable with the flow's secret
      const headers = {
        "webhook-id": String(got!.headers["webhook-id"]),
        "webhook-timestamp": String(got!.headers["webhook-timestamp"]),
        "webhook-signature": String(got!.headers["webhook-signature"])
      }
      expect(new Webhook(SECRET).verify(got!.body, headers)).toEqual({ action: "data_exchange" })
    }).pipe(Effect.scoped)
  )

  it.live("private literals, metadata names and bad schemes are refused without resolving or connecting", () =>
    Effect.gen(function* () {
      const local = yield* endpoint()
      const calls: Array<string> = []
      const exchange = FlowExchange.make({
        allowPrivateUrls: false,
        resolver: (hostname) => {
          calls.push(hostname)
          return Promise.resolve([{ address: PUBLIC, family: 4 as const }])
        }
      })
      for (const url of [
        `http://127.0.0.1:${local.port}/`,
        `http://0x7f000001:${local.port}/`,
        `http://[::ffff:127.0.0.1]:${local.port}/`,
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/",
        `http://foo.localhost:${local.port}/`,
        "ftp://example.com/"
      ]) {
        const reason = yield* Effect.flip(exchange.exchange(url, SECRET, {}))
        expect(reason, url).toMatch(/^the endpoint URL is refused: /)
      }
      expect(calls).toEqual([])
      expect(local.connections()).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("an answer larger than 1 MiB is refused, not cut into something else", () =>
    Effect.gen(function* () {
      const local = yield* endpoint(() => ({ status: 200, body: `{"screen":"S","data":{"x":"${"a".repeat(FlowExchange.MAX_ANSWER_BYTES)}"}}` }))
      const exchange = FlowExchange.make({ allowPrivateUrls: true })
      const reason = yield* Effect.flip(exchange.exchange(`http://127.0.0.1:${local.port}/`, SECRET, {}))
      expect(reason).toMatch(/larger than/)
    }).pipe(Effect.scoped)
  )

  it.live("a kept-alive connection the endpoint closed as it was reused is sent again once, on a new one; a new one's reset is not", () =>
    Effect.gen(function* () {
      // a raw endpoint: the first connection answers one request and is reset on its second
      // (an idle timeout crossing our reuse); every later connection answers, or is reset at once when `resetFresh`
      const seen: Array<{ connection: number; request: number }> = []
      const state = { resetFresh: false }
      let connections = 0
      const server = yield* Effect.acquireRelease(
        Effect.async<net.Server>((resume) => {
          const s = net.createServer((socket) => {
            const connection = ++connections
            let requests = 0
            let pending = ""
            socket.on("error", () => undefined)
            socket.on("data", (chunk) => {
              pending += chunk.toString("latin1")
              for (;;) {
                const head = pending.indexOf("\r\n\r\n")
                if (head < 0) return
                const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, head))?.[1] ?? 0)
                if (pending.length < head + 4 + length) return
                pending = pending.slice(head + 4 + length)
                const request = ++requests
                seen.push({ connection, request })
                if ((connection === 1 && request === 2) || (connection > 1 && state.resetFresh)) return void socket.resetAndDestroy()
                const body = '{"screen":"SUCCESS"}'
                socket.write(
                  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`
                )
              }
            })
          })
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) => Effect.async<void>((resume) => void s.close(() => resume(Effect.void)))
      )
      const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/flow`
      const exchange = FlowExchange.make({ allowPrivateUrls: true })
      expect((yield* exchange.exchange(url, SECRET, { action: "INIT" })).status).toBe(200)
      yield* Effect.sleep("20 millis")
      // reused, reset, sent again on connection 2
      const again = yield* exchange.exchange(url, SECRET, { action: "data_exchange" })
      expect(again).toEqual({ status: 200, body: '{"screen":"SUCCESS"}' })
      expect(seen).toEqual([
        { connection: 1, request: 1 },
        { connection: 1, request: 2 },
        { connection: 2, request: 1 }
      ])
      // a reset of a connection made for the request is the endpoint's failure: not sent again
      state.resetFresh = true
      const reason = yield* Effect.flip(exchange.exchange(url, SECRET, { action: "data_exchange" }))
      expect(reason).toMatch(/socket hang up|ECONNRESET/)
      expect(seen.slice(3)).toEqual([{ connection: 3, request: 1 }])
    }).pipe(Effect.scoped)
  )

  it.effect("Outbound.layer provides it, as the domain's CallerEndpoint", () =>
    Effect.gen(function* () {
      const reason = yield* Effect.flip((yield* FlowCrypto.CallerEndpoint).exchange("http://10.0.0.1/", SECRET, {}))
      expect(reason).toBe(`the endpoint URL is refused: ${Outbound.ADDRESS_NOT_ALLOWED}`)
    }).pipe(Effect.provide(Outbound.layer({ allowPrivateUrls: false })))
  )
})

describe("FeedFiles.download: the feed fetch connects only to the address it checked", () => {
  it.live("a name that resolves to 10.0.0.1, or flips to 127.0.0.1 after the check, is refused without connecting", () =>
    Effect.gen(function* () {
      const local = yield* endpoint(() => ({ status: 200, body: "retailer_id,name\nA,B\n" }))
      const { calls, state, resolver } = flipping()
      const url = `http://flip.example.com:${local.port}/feed.csv`
      yield* WebhookSender.make({ allowPrivateUrls: false, resolver }).checkUrl(url)
      state.answer = "127.0.0.1"
      const reader = FeedFiles.make({ allowPrivateUrls: false, resolver })
      const flipped = yield* Effect.flip(reader.download(url, 1024))
      expect(flipped.message).toBe(`the URL is refused: ${Outbound.ADDRESS_NOT_ALLOWED}`)
      state.answer = "10.0.0.1"
      const internal = yield* Effect.flip(reader.download(`http://internal.example.com:${local.port}/feed.csv`, 1024))
      expect(internal.message).toBe(`the URL is refused: ${Outbound.ADDRESS_NOT_ALLOWED}`)
      expect(calls).toEqual(["flip.example.com", "flip.example.com", "internal.example.com"])
      expect(local.connections()).toBe(0)
    }).pipe(Effect.scoped)
  )
})

describe("FlowExchange.signer: the exchange's Standard Webhooks headers", () => {
  it("are those of signedHeaders (standardwebhooks) for every secret and body, and a secret it cannot decode is left to it", () => {
    const sign = FlowExchange.signer()
    const secrets = [
      SECRET,
      `whsec_${Buffer.from("a").toString("base64")}`,
      `whsec_${Buffer.from([0xfb, 0xff, 0x00, 0x3e]).toString("base64")}`,
      Buffer.from("no prefix, still a key").toString("base64"),
      // not canonical base64 (no padding, a character outside the alphabet, empty): signedHeaders signs or refuses them
      "whsec_YWJj",
      "whsec_YWJjZA",
      "whsec_not*base64",
      "whsec_"
    ]
    const bodies = ['{"action":"INIT","flow_token":"t"}', JSON.stringify({ name: "Ana \u00e9\u4e2d\ud83d\ude00", lone: "\ud800" }), ""]
    for (const secret of secrets)
      for (const body of bodies)
        for (const at of [0, 1_700_000_000_999, Date.now()]) {
          expect(sign(secret, "msg_0123456789abcdef01234567", at, body), `${secret} ${body}`).toEqual(
            signedHeaders(secret, "msg_0123456789abcdef01234567", at, body)
          )
          // twice: the second from the kept key
          expect(sign(secret, "msg_1", at, body)).toEqual(signedHeaders(secret, "msg_1", at, body))
        }
    const signed = sign(SECRET, "msg_1", Date.now(), '{"a":1}')
    expect("headers" in signed && new Webhook(SECRET).verify('{"a":1}', signed.headers)).toEqual({ a: 1 })
  })
})
