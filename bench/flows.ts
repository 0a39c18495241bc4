/**
 * `pnpm bench flows`:
 *
 * 1. validation: `FlowJson.check` (parse keeping source positions, then every rule) of a
 *    100-screen Flow JSON sent as text, an endpoint flow (navigate chain, inputs, `${data.x}`
 *    and `${form.x}` references, routing model), BENCH_ROUNDS rounds after 5 of warm-up; min,
 *    median, max. Goal: under 20 ms.
 * 2. the latency our hosted data endpoint adds over the caller's own endpoint, at BENCH_RATE
 *    requests per second (200): a small node:http server in this process plays the caller's
 *    endpoint; BENCH_REQUESTS requests are POSTed to it straight (the anchor), then as many
 *    operator requests (encrypted with the registered public key, RSA-OAEP and AES-GCM, and
 *    signed with the app secret as the operator does, prepared before the run) to our
 *    `/chat/flow-endpoint/{id}`, which verifies, decrypts, checks the token, forwards to the
 *    same server, checks and encrypts the reply and records the call. The requests declare
 *    their length, so the server's fast lane answers them (`FastLane.rawJson`);
 *    BENCH_FLOW_USUAL_PATH=1 sends them chunked, so the usual path does (for comparison). Open loop at the rate;
 *    latency from each request's start to its answer; BENCH_ENDPOINT_ROUNDS rounds (3), each
 *    the anchor then ours, then the bare `privateDecrypt` (RSA-2048 OAEP SHA-256, a parsed key)
 *    timed in this process, beside the server's CPU per exchange (min, median, max over the
 *    rounds). Goals: added p99 under 10 ms, at most 1.5 ms of server CPU per exchange.
 * 3. `nfm_reply` webhooks stored per second: BENCH_NFM_ROUNDS rounds (3) of BENCH_NFM signed
 *    `messages` webhooks (a customer submits the flow; HMAC-SHA256 of the body with the app
 *    secret) POSTed over BENCH_CONNECTIONS connections, timed from the first POST until every
 *    flow response row exists; min, median and max of the rate and of the server's CPU per
 *    webhook. Goal: at least 3,000 per second on SQLite, 2,000 on PostgreSQL, at most 250 µs
 *    of server CPU per webhook.
 *
 * One server process (`main.ts serve`, its emulator in-process), on SQLite and PostgreSQL;
 * client and server share the machine. Beside the latencies and rates, the server's CPU time
 * per request and per webhook (from /proc), which depends less on what else the machine runs. Environment: BENCH_STORES (sqlite,postgres),
 * BENCH_ROUNDS (50), BENCH_RATE (200), BENCH_REQUESTS (2000 per round), BENCH_ENDPOINT_ROUNDS (3), BENCH_NFM (5000), BENCH_NFM_ROUNDS (3),
 * BENCH_CONNECTIONS (32), BENCH_FLOW_USUAL_PATH, BENCH_VERBOSE, BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof" to profile the server;
 * the server is the built bundle, so `node bench/_cpuprofile.mjs` maps its profile to the sources: bench/run.ts).
 */
import { constants, createHmac, generateKeyPairSync, privateDecrypt, publicEncrypt, randomBytes } from "node:crypto"
import http from "node:http"
import { loadavg } from "node:os"
// the root package does not depend on the domain; its Flow JSON validator is read from source
import * as FlowJson from "../packages/domain/src/flows/FlowJson.js"
import { operatorRequest, startCallerEndpoint } from "../apps/server/test/fixtures/flowEndpoint.js"
import { bookingFlow } from "../apps/server/test/fixtures/flows.js"
import {
  cpuMs,
  runnableDialects,
  freePort,
  ms,
  nodeFlags,
  percentile,
  query,
  sandboxOf,
  sendAll,
  startSwitchboard,
  stop,
  untilGrown
} from "./_util.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50)
const ENDPOINT_ROUNDS = Math.max(1, Number(process.env.BENCH_ENDPOINT_ROUNDS ?? 3))
const RATE = Number(process.env.BENCH_RATE ?? 200)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000)
const NFM = Number(process.env.BENCH_NFM ?? 5_000)
const NFM_ROUNDS = Number(process.env.BENCH_NFM_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const APP_SECRET = "bench-flows-app-secret"
/** Send the hosted endpoint's requests chunked, so that the usual path answers them instead of the fast lane (for comparison). */
const USUAL_PATH = process.env.BENCH_FLOW_USUAL_PATH === "1"

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")
const sign = (body: string) => `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`

// ---------------------------------------------------------------------------
// 1. validation of a 100-screen Flow JSON

/** Screen ids are letters and underscores: SCREEN_AA, SCREEN_AB, ... */
const screenId = (i: number) => `SCREEN_${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`

const bigFlow = (screens: number) => {
  const list = Array.from({ length: screens }, (_, i) => {
    const last = i === screens - 1
    return {
      id: screenId(i),
      title: `Step ${i + 1}`,
      ...(last ? { terminal: true } : {}),
      data: {
        previous: { type: "string", __example__: "x" },
        options: { type: "array", items: { type: "object", properties: { id: { type: "string" }, title: { type: "string" } } }, __example__: [] }
      },
      layout: {
        type: "SingleColumnLayout",
        children: [
          { type: "TextHeading", text: `Step ${i + 1}` },
          { type: "TextBody", text: `$\{data.previous}` },
          { type: "TextInput", name: "answer", label: "Your answer", "input-type": "text", required: true },
          { type: "TextArea", name: "notes", label: "Notes" },
          { type: "RadioButtonsGroup", name: "choice", label: "Pick one", "data-source": `$\{data.options}` },
          { type: "OptIn", name: "agree", label: "I agree" },
          {
            type: "Footer",
            label: last ? "Done" : "Next",
            "on-click-action": last
              ? { name: "complete", payload: { answer: `$\{form.answer}`, notes: `$\{form.notes}` } }
              : {
                  name: "navigate",
                  next: { type: "screen", name: screenId(i + 1) },
                  payload: { previous: `$\{form.answer}`, options: `$\{data.options}` }
                }
          }
        ]
      }
    }
  })
  return {
    version: "7.3",
    data_api_version: "3.0",
    routing_model: Object.fromEntries(list.map((s, i) => [s.id, i === screens - 1 ? [] : [screenId(i + 1)]])),
    screens: list
  }
}

const validation = () => {
  const text = JSON.stringify(bigFlow(100), null, 2)
  const first = FlowJson.check(text, { hasEndpoint: true })
  if (first.errors.length > 0) throw new Error(`the bench's Flow JSON is not valid: ${JSON.stringify(first.errors.slice(0, 3))}`)
  for (let i = 0; i < 5; i++) FlowJson.check(text, { hasEndpoint: true })
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now()
    FlowJson.check(text, { hasEndpoint: true })
    times.push(performance.now() - t)
  }
  return {
    screens: 100,
    bytes: text.length,
    rounds: ROUNDS,
    min: ms(Math.min(...times)),
    median: ms(percentile(times, 50)),
    max: ms(Math.max(...times)),
    goal: "< 20 ms",
    load_average: load()
  }
}

console.log(JSON.stringify({ validation: validation() }, null, 2))

// ---------------------------------------------------------------------------
// 2 and 3, per store

const endpointJson = bookingFlow()

/** Keep-alive connections; a fresh pool before each run (the server closes connections idle for 5 s). */
let agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
const freshConnections = () => {
  agent.destroy()
  agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
}
/** A POST whose body declares its length (`req.end(body)`), or comes chunked when `chunked`. */
const post = (url: string, body: string, headers: Record<string, string>, chunked = false) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const all = { "content-type": "application/json", ...headers, ...(chunked ? { "transfer-encoding": "chunked" } : {}) }
    const req = http.request(url, { method: "POST", agent, headers: all }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (c) => (text += c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on("error", reject)
    req.end(body)
  })

/** `n` calls of `fire` started at `rate` per second (open loop); each one's latency, and the rate achieved. */
const paced = async (n: number, rate: number, fire: (i: number) => Promise<void>) => {
  const latencies: Array<number> = []
  const pending: Array<Promise<void>> = []
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const wait = start + (i * 1000) / rate - performance.now()
    if (wait > 1) await new Promise((r) => setTimeout(r, wait))
    const t = performance.now()
    pending.push(fire(i).then(() => void latencies.push(performance.now() - t)))
  }
  await Promise.all(pending)
  return { latencies, achieved: Math.round(n / ((performance.now() - start) / 1000)) }
}

/** The operator's request (GRAPH_API.md §5.5), signed, and the decryption of its reply. */
const encrypted = (publicKey: string, payload: unknown) => {
  const request = operatorRequest(publicKey, payload)
  const body = JSON.stringify(request.body)
  return { body, signature: sign(body), decrypt: request.decrypt }
}

/** One round of part 2: the anchor's and our latencies, our server's CPU per exchange, and the bare RSA decryption timed after it. */
interface EndpointRound {
  readonly anchor: { readonly latencies: ReadonlyArray<number>; readonly achieved: number }
  readonly hosted: { readonly latencies: ReadonlyArray<number>; readonly achieved: number }
  readonly cpu: number
  readonly decrypt: number
  readonly loadAnchor: string
  readonly loadHosted: string
}

/**
 * The bare `privateDecrypt` of an AES key, as the endpoint does it (RSA-2048, OAEP with
 * SHA-256, a parsed `KeyObject`): CPU per decryption in this process, over 200 of them.
 */
const decryptKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey
const decryptInputs = Array.from({ length: 200 }, () =>
  publicEncrypt({ key: decryptKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, randomBytes(16))
)
const bareDecrypt = () => {
  const before = process.cpuUsage()
  for (const input of decryptInputs) privateDecrypt({ key: decryptKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, input)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000 / decryptInputs.length
}

const spread = (values: ReadonlyArray<number>) => ({ min: ms(Math.min(...values)), median: ms(percentile(values, 50)), max: ms(Math.max(...values)) })

const reportEndpoint = (rounds: ReadonlyArray<EndpointRound>) => {
  const p = (values: ReadonlyArray<number>, q: number) => percentile(values, q)
  return {
    rate: RATE,
    requests_per_round: REQUESTS,
    path: USUAL_PATH ? "usual (chunked bodies)" : "fast lane",
    rounds: rounds.map((r) => ({
      callers_own: {
        p50: ms(p(r.anchor.latencies, 50)),
        p99: ms(p(r.anchor.latencies, 99)),
        achieved_rate: r.anchor.achieved,
        load_average: r.loadAnchor
      },
      hosted: {
        p50: ms(p(r.hosted.latencies, 50)),
        p99: ms(p(r.hosted.latencies, 99)),
        achieved_rate: r.hosted.achieved,
        load_average: r.loadHosted
      },
      added: { p50: ms(p(r.hosted.latencies, 50) - p(r.anchor.latencies, 50)), p99: ms(p(r.hosted.latencies, 99) - p(r.anchor.latencies, 99)) },
      server_cpu_per_exchange: ms(r.cpu),
      bare_private_decrypt: ms(r.decrypt)
    })),
    server_cpu_per_exchange: spread(rounds.map((r) => r.cpu)),
    bare_private_decrypt: spread(rounds.map((r) => r.decrypt)),
    server_cpu_beyond_decrypt: spread(rounds.map((r) => r.cpu - r.decrypt)),
    added_p99: spread(rounds.map((r) => p(r.hosted.latencies, 99) - p(r.anchor.latencies, 99))),
    goal: "server CPU per exchange <= 1.5 ms; added p99 < 10 ms"
  }
}

// the caller's endpoint
const { server: caller, url: callerUrl } = await startCallerEndpoint("/flow", (request) =>
  request.action === "ping" ? { data: { status: "active" } } : { screen: "SUMMARY", data: { summary: `Booked for ${request.data?.name}` } }
)

for (const dialect of await runnableDialects(STORES)) {
  const database = await dialect.createDatabase()
  const emulatorPort = await freePort()
  const server = await startSwitchboard(
    database.url,
    {
      SWITCHBOARD_EMULATOR_PORT: String(emulatorPort),
      SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
      SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
      SWITCHBOARD_FLOW_SECRET: "bench-flows-secret"
    },
    { storeName: "bench flows", nodeFlags: nodeFlags("BENCH_SERVER_NODE_ARGS"), timeoutMs: 240_000 }
  )
  const { base } = server
  const emulator = `http://127.0.0.1:${emulatorPort}`
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await server.request(method, path, body)
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.json)}`)
      return res.json
    }
    const customer = "+15557100001"
    const flow = await api("POST", "/chat/flows", { name: "Bench booking", categories: ["APPOINTMENT_BOOKING"] })
    await api("PUT", `/chat/flows/${flow.id}/json`, { json: endpointJson })
    const put = await api("PUT", `/chat/flows/${flow.id}/endpoint`, { url: callerUrl })
    await api("POST", `/chat/flows/${flow.id}/publish`)
    await api("POST", "/chat/sandbox/inbound-messages", { from: customer, text: "hi" })
    const token: string = (await api("POST", "/chat/messages", { type: "flow", to: customer, flow: { id: flow.id, cta: "Book", body: "Book" } }))
      .flow_token
    const store = await sandboxOf(dialect.id, database.url, server.created.id)
    const pnid = store.pnid
    const keyAnswer = (await (
      await fetch(`${emulator}/v23.0/${pnid}/whatsapp_business_encryption`, { headers: { authorization: "Bearer bench" } })
    ).json()) as any
    const publicKey: string = keyAnswer.data?.[0]?.business_public_key
    if (typeof publicKey !== "string") throw new Error(`no public key at the emulator for ${pnid}: ${JSON.stringify(keyAnswer)}`)

    // 2. the hosted endpoint against the caller's own, at RATE per second, ENDPOINT_ROUNDS rounds
    const payload = { version: "3.0", action: "data_exchange", screen: "START", data: { name: "Ana" }, flow_token: token }
    const plain = JSON.stringify({ ...payload, flow_id: flow.id })
    const prepared = Array.from({ length: ENDPOINT_ROUNDS * REQUESTS + 200 }, () => encrypted(publicKey, payload))
    const hosted = put.hosted_endpoint_url as string
    const ours = async (i: number) => {
      const p = prepared[i]
      const answer = await post(hosted, p.body, { "x-hub-signature-256": p.signature }, USUAL_PATH)
      if (answer.status !== 200) throw new Error(`the hosted endpoint answered ${answer.status}: ${answer.text}`)
      if (i === 0 && p.decrypt(answer.text).screen !== "SUMMARY") throw new Error("the hosted endpoint's reply is not the caller's")
    }
    const theirs = async () => {
      const answer = await post(callerUrl, plain, {})
      if (answer.status !== 200) throw new Error(`the caller's endpoint answered ${answer.status}`)
    }
    // warm-up of both (JIT, connections, caches), then per round the anchor, then ours, then the bare decryption
    await paced(200, RATE, theirs)
    await paced(200, RATE, (i) => ours(ENDPOINT_ROUNDS * REQUESTS + i))
    const rounds: Array<EndpointRound> = []
    for (let round = 0; round < ENDPOINT_ROUNDS; round++) {
      freshConnections()
      const anchor = await paced(REQUESTS, RATE, theirs)
      const loadAnchor = load()
      freshConnections()
      const cpuBefore = cpuMs(server.child.pid)
      const hostedRun = await paced(REQUESTS, RATE, (i) => ours(round * REQUESTS + i))
      const cpu = (cpuMs(server.child.pid) - cpuBefore) / REQUESTS
      rounds.push({ anchor, hosted: hostedRun, cpu, decrypt: bareDecrypt(), loadAnchor, loadHosted: load() })
    }
    const endpointReport = reportEndpoint(rounds)

    // 3. nfm_reply webhooks stored per second, NFM_ROUNDS rounds
    const rows = async () => Number((await query(dialect.id, database.url, "select count(*) as n from flow_responses"))[0].n)
    const { display, waba } = store
    const nfmRound = async (round: number) => {
      const before = await rows()
      const bodies = Array.from({ length: NFM }, (_, i) => {
        const now = Math.floor(Date.now() / 1000)
        const from = `1557${String(2_000_000 + (i % 100))}`
        const body = JSON.stringify({
          object: "whatsapp_business_account",
          entry: [
            {
              id: waba,
              time: now,
              changes: [
                {
                  field: "messages",
                  value: {
                    messaging_product: "whatsapp",
                    metadata: { display_phone_number: display, phone_number_id: pnid },
                    contacts: [{ profile: { name: "Bench" }, wa_id: from }],
                    messages: [
                      {
                        context: { from: display, id: `wamid.benchflow${round}.${i}` },
                        from,
                        id: `wamid.bench${randomBytes(10).toString("hex")}`,
                        timestamp: String(now),
                        type: "interactive",
                        interactive: {
                          type: "nfm_reply",
                          nfm_reply: {
                            name: "flow",
                            body: "Sent",
                            response_json: JSON.stringify({ flow_token: token, name: `Customer ${i}`, agree: true })
                          }
                        }
                      }
                    ]
                  }
                }
              ]
            }
          ]
        })
        return { body, signature: sign(body) }
      })
      freshConnections()
      const cpuBefore = cpuMs(server.child.pid)
      const started = performance.now()
      await sendAll(bodies, CONNECTIONS, async (b) => {
        const answer = await post(`${base}/chat/operator/webhook`, b.body, { "x-hub-signature-256": b.signature })
        if (answer.status >= 300) throw new Error(`the webhook answered ${answer.status}: ${answer.text}`)
      })
      const acknowledged = performance.now()
      await untilGrown(rows, before, NFM, "responses", started, 100)
      const done = performance.now()
      return {
        acknowledged: NFM / ((acknowledged - started) / 1000),
        stored: NFM / ((done - started) / 1000),
        cpu: (cpuMs(server.child.pid) - cpuBefore) / NFM
      }
    }
    const nfmRounds: Array<Awaited<ReturnType<typeof nfmRound>>> = []
    for (let round = 0; round < NFM_ROUNDS; round++) nfmRounds.push(await nfmRound(round))
    const spread = (values: ReadonlyArray<number>, format: (n: number) => string | number) => ({
      min: format(Math.min(...values)),
      median: format(percentile(values, 50)),
      max: format(Math.max(...values))
    })
    console.log(
      JSON.stringify(
        {
          store: dialect.id,
          data_endpoint: endpointReport,
          nfm_reply_webhooks: {
            webhooks: NFM,
            rounds: NFM_ROUNDS,
            acknowledged_per_second: spread(
              nfmRounds.map((r) => r.acknowledged),
              Math.round
            ),
            stored_per_second: spread(
              nfmRounds.map((r) => r.stored),
              Math.round
            ),
            server_cpu_per_webhook: spread(
              nfmRounds.map((r) => r.cpu),
              (n) => `${Math.round(n * 1000)} µs`
            ),
            goal: "stored >= 3000/s (SQLite), >= 2000/s (PostgreSQL); <= 250 µs server CPU per webhook",
            load_average: load()
          }
        },
        null,
        2
      )
    )
  } finally {
    await stop(server.child)
    await database.drop()
  }
}
agent.destroy()
caller.close()
