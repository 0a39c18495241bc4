/**
 * The campaign end-to-end harness: the real pieces in this process, spoken to over HTTP.
 * - the operator emulator (`startEmulator`) on a free port, signing its webhooks;
 * - the store: a temporary SQLite file, or a fresh PostgreSQL database;
 * - the HTTP API (`@switchboard/http` on a Node server) with `OperatorClient` over Undici;
 * - the job runner with the service's handlers (operator webhooks in, caller webhooks out);
 * - optionally the campaign lane runner (tests that crash workers run it in child processes).
 */
import { HttpServer as PlatformHttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { BatchJob, CampaignRates, CampaignRepo, Id, Store, StoreRepo } from "@switchboard/domain"
import { HttpServer, Readiness } from "@switchboard/http"
import { GraphTransport, OperatorClient } from "@switchboard/operator-client"
import { type Emulator, type EmulatorConfig, startEmulator } from "@switchboard/operator-emulator"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Outbound } from "@switchboard/outbound"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { type Dialect, entryArgs, eventually, root, SQLITE } from "@switchboard/testing"
import { CampaignLane, JobRunner, Jobs } from "@switchboard/worker"
import { parseJson } from "./harness.js"

export const APP_SECRET = "campaign-e2e-app-secret"

export interface Response {
  readonly status: number
  readonly text: string
  readonly json: any
}

export interface TestStore {
  readonly store: Store.Store
  readonly liveKey: string
  readonly testKey: string
}

/** The emulator as the tests drive it, in this process or in its own (`main.ts`, so its clock and event loop are its own). */
export interface TestEmulator {
  readonly url: string
  readonly configure: (patch: Partial<EmulatorConfig>) => Promise<void>
  readonly setWebhookUrl: (url: string) => Promise<void>
  readonly close: () => Promise<void>
}

const inProcessEmulator = async (config: Partial<EmulatorConfig>): Promise<TestEmulator> => {
  const emulator: Emulator = await startEmulator({ appSecret: APP_SECRET, ...config })
  return {
    url: emulator.url,
    configure: async (patch) => emulator.configure(patch),
    setWebhookUrl: async (url) => emulator.setWebhookUrl(url),
    close: () => emulator.close()
  }
}

const emulatorProcess = async (config: Partial<EmulatorConfig>): Promise<TestEmulator> => {
  const child = spawn(process.execPath, entryArgs(join(root, "packages/operator-emulator/src/main.ts"), "--app-secret", APP_SECRET, "--quiet"), {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"]
  })
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { url: string }).url))
    child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)))
  })
  const post = async (body: unknown) => {
    const res = await fetch(`${url}/_emulator/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    if (res.status !== 200) throw new Error(`emulator config answered ${res.status}: ${await res.text()}`)
  }
  await post(config)
  return {
    url,
    configure: (patch) => post(patch),
    setWebhookUrl: (webhookUrl) => post({ webhookUrl }),
    close: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGTERM")
      await exited
    }
  }
}

export interface HarnessOptions {
  /** The store (default SQLite), on a fresh database of its own. */
  readonly dialect?: Dialect
  /** Run the emulator in its own process (default: in this one). */
  readonly separateEmulator?: boolean
  /** Run campaign lanes in this process (default: yes, with these options). `false`: none. */
  readonly lanes?: CampaignLane.Options | false
  readonly emulator?: Partial<EmulatorConfig>
  /** Run the job runner in this process (default true); `false` leaves jobs to worker processes. */
  readonly runner?: boolean
}

export interface Harness {
  readonly base: string
  readonly emulator: TestEmulator
  /** SQLite file path or PostgreSQL URL (for worker processes). */
  readonly target: string
  readonly createStore: () => Promise<TestStore>
  readonly request: (method: string, path: string, key: string | undefined, body?: unknown) => Promise<Response>
  /** GET on the emulator's control API. */
  readonly emulatorGet: (path: string) => Promise<any>
  readonly emulatorPost: (path: string, body: unknown) => Promise<any>
  /** An approved template `name` with one body parameter, created through the API. */
  readonly approvedTemplate: (key: string, name: string) => Promise<void>
  /** Replaces the rate card with a CSV's rows (what `switchboard rates import` does). */
  readonly importRates: (csv: string) => Promise<number>
  readonly stop: () => Promise<void>
}

const quiet = Layer.merge(Logger.minimumLogLevel(LogLevel.Error), Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))

export const startHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const dialect = options.dialect ?? SQLITE
  const database = await dialect.createDatabase()
  const target = database.url
  // an unlimited messaging limit unless a test asks for the operator's default (TIER_250)
  const emulatorConfig = { templateReviewDelayMs: 50, statusDelayMs: 100, webhookBatchMs: 10, defaultMessagingLimit: -1, ...options.emulator }
  const emulator = options.separateEmulator ? await emulatorProcess(emulatorConfig) : await inProcessEmulator(emulatorConfig)

  const store = dialect.id === "postgres" ? StorePostgres.layer({ url: target, poolSize: 12 }) : StoreSqlite.layer({ filename: target })
  const operator = OperatorClient.layer({
    sandbox: { baseUrl: emulator.url, accessToken: Redacted.make("sandbox"), appSecret: Redacted.make(APP_SECRET) },
    verifyToken: Redacted.make("verify")
  }).pipe(Layer.provide(GraphTransport.layer()))
  const readiness = Layer.succeed(Readiness, { check: Effect.void })
  const http = HttpServer.layerServer().pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))
  const runner =
    options.runner === false
      ? Layer.empty
      : Layer.scopedDiscard(Effect.forkScoped(JobRunner.run({ handlers: Jobs.handlers, pollMs: 20, concurrency: 8 }))).pipe(
          Layer.provide(BatchJob.layerSenders)
        )
  const lanes = options.lanes === false ? Layer.empty : CampaignLane.layer({ sweepMs: 500, pollMs: 50, ...options.lanes })
  const app = Layer.mergeAll(http, runner, lanes).pipe(
    Layer.provide(readiness),
    Layer.provide(Outbound.layer({ allowPrivateUrls: true })),
    Layer.provideMerge(operator),
    Layer.provideMerge(store),
    Layer.provide(quiet)
  )
  const runtime = ManagedRuntime.make(app)
  const address = await runtime.runPromise(Effect.map(PlatformHttpServer.HttpServer, (s) => s.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const base = `http://127.0.0.1:${address.port}`
  await emulator.setWebhookUrl(`${base}/chat/operator/webhook`)

  const request = async (method: string, path: string, key: string | undefined, body?: unknown): Promise<Response> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {})
      },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const text = await res.text()
    return { status: res.status, text, json: parseJson(text) }
  }

  return {
    base,
    emulator,
    target,
    createStore: () =>
      runtime.runPromise(
        Effect.gen(function* () {
          const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: null })
          yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
          return { store: made.store, liveKey: made.liveKey, testKey: made.testKey }
        })
      ),
    request,
    emulatorGet: async (path) => (await fetch(`${emulator.url}/_emulator${path}`)).json(),
    emulatorPost: async (path, body) =>
      (
        await fetch(`${emulator.url}/_emulator${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
      ).json(),
    approvedTemplate: async (key, name) => {
      const created = await request("POST", "/chat/templates", key, {
        templateData: {
          name,
          category: "MARKETING",
          language: "en_US",
          components: [{ type: "BODY", text: "Hello {{1}}, our spring sale starts today.", example: { body_text: [["Ann"]] } }]
        }
      })
      if (created.status !== 201) throw new Error(`template create answered ${created.status}: ${created.text}`)
      await eventually(
        async () => {
          const list = await request("GET", "/chat/templates?status=APPROVED", key)
          return list.json?.data?.some((t: { name: string }) => t.name === name)
        },
        `template ${name} approved`,
        10_000
      )
    },
    importRates: (csv) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const parsed = CampaignRates.parseCsv(csv, "test")
          if ("error" in parsed) return yield* Effect.dieMessage(parsed.error)
          return yield* (yield* CampaignRepo.CampaignRepo).importRates(parsed.rates)
        })
      ),
    stop: async () => {
      await runtime.dispose()
      await emulator.close()
      await database.drop()
    }
  }
}

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: any
}

/** A local HTTP receiver for caller webhooks. */
export const startReceiver = async (): Promise<{ readonly url: string; readonly received: Array<Received>; readonly close: () => Promise<void> }> => {
  const received: Array<Received> = []
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(body) })
      res.writeHead(200)
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) }
}

/** A sandbox phone number ending in `ending` (DESIGN.md's outcomes: 0000 undeliverable, 0001 delivered, 0002 stopped marketing). */
export const sandboxPhone = (prefix: number, ending: string) => `+1555${String(prefix).padStart(3, "0")}${ending}`

/**
 * The worker fixture `fixtures/<name>` in a process of its own, as worker `id` on the harness's
 * database and emulator (EMULATOR_URL, APP_SECRET) with `env`; its stdout piped, its stderr
 * piped or inherited.
 */
export const spawnFixtureWorker = (
  h: Harness,
  name: string,
  id: string,
  env: Record<string, string>,
  stderr: "pipe" | "inherit" = "pipe"
): ChildProcess =>
  spawn(process.execPath, entryArgs(join(root, "apps/server/test/fixtures", name), h.target, id), {
    cwd: root,
    env: { ...process.env, EMULATOR_URL: h.emulator.url, APP_SECRET, ...env },
    stdio: ["ignore", "pipe", stderr]
  })
