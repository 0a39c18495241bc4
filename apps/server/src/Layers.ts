/**
 * The composition root: the one place that picks adapters and wires them.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { HttpServer as PlatformHttpServer } from "@effect/platform"
import { FastLane, HttpServer, Readiness } from "@switchboard/http"
import { GraphTransport, OperatorClient } from "@switchboard/operator-client"
import { Outbound } from "@switchboard/outbound"
import { JobQueue, Mirror, Retention, StoreRepo, type Tenant } from "@switchboard/domain"
import { Jobs } from "@switchboard/worker"
import { Clock, Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import * as ClientError from "./ClientError.js"
import * as AppConfig from "./Config.js"
import * as NodeFastLane from "./FastLane.js"
import * as Logging from "./Logging.js"
import * as OperatorGuard from "./OperatorGuard.js"
import * as Sandbox from "./Sandbox.js"
import * as Startup from "./Startup.js"
import * as Storage from "./Storage.js"

/** Storage chosen by DATABASE_URL; migrations run when it starts. */
export const layerStore = Storage.layer

/** Every operator capability (templates, messages, webhook verification, sandbox customer, and the GraphApi they share): live credentials when configured, the sandbox always. */
const layerOperatorClient = Layer.unwrapEffect(
  Effect.gen(function* () {
    const live = yield* AppConfig.liveOperator
    const verifyToken = AppConfig.orRandom(yield* AppConfig.verifyToken)
    const sandbox = yield* Sandbox.Sandbox
    return OperatorClient.layer({
      live: Option.getOrUndefined(live),
      sandbox: { baseUrl: sandbox.url, accessToken: Redacted.make("sandbox"), appSecret: sandbox.appSecret },
      verifyToken
    })
  })
).pipe(Layer.provide(GraphTransport.layer()))

/** The operator client; with SWITCHBOARD_TEST_GUARD_OPERATOR_TX=1, each capability guarded against calls inside a transaction (`OperatorGuard.ts`). */
export const layerOperator = Layer.unwrapEffect(
  Effect.map(AppConfig.guardOperatorTransactions, (guarded) =>
    guarded ? Layer.merge(layerOperatorClient, OperatorGuard.layer(layerOperatorClient)) : layerOperatorClient
  )
)

/** The mirrored writes' settings (`Mirror.Settings`): the sweep's delay, and the crash tests' halt point. */
export const layerMirror = Layer.unwrapEffect(
  Effect.gen(function* () {
    const sweepDelayMs = yield* AppConfig.mirrorSweepDelayMs
    const halt = yield* AppConfig.testMirrorHalt
    const defaults = yield* Mirror.Settings
    return Layer.succeed(Mirror.Settings, {
      ...defaults,
      sweepDelayMs,
      between: (kind, step) =>
        Option.isSome(halt) && halt.value === `${kind}:${step}`
          ? Effect.zipRight(Effect.logWarning(`mirror halted at ${kind}:${step}`), Effect.never)
          : Effect.void
    })
  })
)

export const layerLogger = Logging.layer

/** Points the in-process emulator at our webhook route once the HTTP server listens. */
const layerSandboxWiring = Layer.effectDiscard(
  Effect.gen(function* () {
    const sandbox = yield* Sandbox.Sandbox
    const server = yield* PlatformHttpServer.HttpServer
    const publicUrl = yield* AppConfig.publicUrl
    const address = server.address
    const base = Option.getOrElse(publicUrl, () => (address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://127.0.0.1:3000"))
    sandbox.emulator?.setWebhookUrl(`${base.replace(/\/$/, "")}/chat/operator/webhook`)
    // register every store's sandbox number so the emulator knows it after a restart
    const stores = yield* (yield* StoreRepo.StoreRepo).list()
    yield* Effect.forEach(stores, (s) => OperatorClient.registerSandboxAccount(s.sandbox), { concurrency: 8, discard: true }).pipe(
      Effect.catchAll((e) => Effect.logWarning("could not register sandbox accounts", e))
    )
  })
)

/** Ready: the database answers, and no runnable job has waited longer than SWITCHBOARD_READY_MAX_JOB_AGE. */
const layerReadiness = Layer.effect(
  Readiness,
  Effect.gen(function* () {
    const repo = yield* StoreRepo.StoreRepo
    const queue = yield* JobQueue.JobQueue
    const maxJobAgeMs = (yield* AppConfig.readyMaxJobAgeSeconds) * 1000
    return {
      check: repo.findById("str_00000000000000000000000000" as Tenant.StoreId).pipe(Effect.asVoid),
      jobs: Effect.gen(function* () {
        const oldest = yield* queue.oldestRunnable()
        const now = yield* Clock.currentTimeMillis
        return { oldestJobAgeMs: oldest === null ? 0 : Math.max(0, now - oldest), maxJobAgeMs }
      })
    }
  })
)

/** HTTP on PORT, each request offered to the fast lane first. */
export const layerHttp = Layer.unwrapEffect(
  Effect.gen(function* () {
    const port = yield* AppConfig.port
    const host = yield* AppConfig.host
    const pageCache = yield* AppConfig.pageCache
    const server = ClientError.createServer()
    const lane = Layer.effectDiscard(Effect.map(FastLane.FastLane, (fastLane) => NodeFastLane.install(server, fastLane)))
    return lane.pipe(
      Layer.provideMerge(HttpServer.layerServer({ pageCache })),
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port, host }))
    )
  })
)

/** Caller webhook deliveries; private URLs only when SWITCHBOARD_ALLOW_PRIVATE_URLS=true. */
export const layerWebhookTransport = Layer.unwrapEffect(
  Effect.map(AppConfig.allowPrivateUrls, (allowPrivateUrls) => Outbound.layer({ allowPrivateUrls }))
)

/**
 * The pruning of operational records (README, "Retention"): a pass at start, then every
 * `SWITCHBOARD_RETENTION_INTERVAL`, in each worker (passes of two workers only find less to
 * delete). A pass that fails is logged and the next one tries again.
 */
const layerRetention = Layer.scopedDiscard(
  Effect.gen(function* () {
    const policy = yield* AppConfig.retention
    const every = yield* AppConfig.retentionIntervalMs
    const pass = Retention.prune(policy).pipe(
      Effect.tap((deleted) =>
        Object.values(deleted).some((n) => n > 0)
          ? Effect.logInfo("retention: deleted what outlived its period").pipe(Effect.annotateLogs(deleted))
          : Effect.void
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("retention: a pass failed; the next one tries again", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(pass, Schedule.spaced(Duration.millis(every))))
  })
)

/** The job runner and the retention passes, when the worker is enabled. */
export const layerWorker = Layer.unwrapEffect(
  Effect.map(AppConfig.runWorker, (enabled) => (enabled ? Layer.merge(Jobs.layer, layerRetention) : Layer.empty))
)

/** The banner (or, in JSON logs, one line) once everything else has started. */
const layerBanner = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* PlatformHttpServer.HttpServer
    const sandbox = yield* Sandbox.Sandbox
    const host = yield* AppConfig.host
    const live = yield* AppConfig.liveOperator
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : 0
    const allInterfaces = host === "0.0.0.0" || host === "::"
    const shown = allInterfaces ? "localhost" : host.includes(":") ? `[${host}]` : host
    const emulator = `the emulator at ${sandbox.url}${sandbox.emulator !== undefined ? " (in this process)" : ""}`
    const facts: Startup.BannerFacts = {
      version: AppConfig.VERSION,
      url: `http://${shown}:${port}`,
      allInterfaces,
      database: Startup.describeDatabase(yield* AppConfig.database),
      operator: Option.isSome(live)
        ? `live at ${live.value.baseUrl}; test keys use ${emulator}`
        : `${emulator}: no live credentials, so every store uses it for both keys`,
      worker: yield* AppConfig.runWorker,
      cli: process.env.npm_execpath !== undefined ? "pnpm switchboard" : "switchboard",
      stores: (yield* (yield* StoreRepo.StoreRepo).list()).length
    }
    yield* Logging.startupDone
    if ((yield* AppConfig.logFormat) === "pretty") process.stderr.write(`${Startup.banner(facts)}\n`)
    else yield* Effect.logInfo("Switchboard is ready").pipe(Effect.annotateLogs(Startup.bannerFields(facts)))
  })
)

/** `serve`: HTTP and worker in one process, on the configured store, with the sandbox; the banner once all have started. */
export const layerServe = layerBanner.pipe(
  Layer.provide(Layer.mergeAll(layerHttp, layerWorker, Layer.provide(layerSandboxWiring, layerHttp))),
  Layer.provide(layerReadiness),
  Layer.provide(layerWebhookTransport),
  Layer.provide(layerOperator),
  Layer.provide(layerStore),
  Layer.provide(Sandbox.layer),
  Layer.provide(layerMirror)
)

/** `worker`: only the job runner (PostgreSQL deployments run several). */
export const layerWorkerOnly = layerWorker.pipe(
  Layer.provide(layerWebhookTransport),
  Layer.provide(layerOperator),
  Layer.provide(layerStore),
  Layer.provide(layerMirror),
  // a worker never starts an emulator of its own: it shares the installation's (`switchboard emulator`)
  Layer.provide(Sandbox.layerShared)
)
