/**
 * Configuration from environment variables (see the README's table). Secrets are Redacted.
 */
import { Config, LogLevel, Option, Redacted } from "effect"

export type DatabaseTarget = { readonly _tag: "sqlite"; readonly filename: string } | { readonly _tag: "postgres"; readonly url: string }

/** `postgres://` or `postgresql://` selects PostgreSQL; a plain path or `file:` URL is a SQLite file. */
export const parseDatabaseUrl = (value: string): DatabaseTarget => {
  if (/^postgres(ql)?:\/\//.test(value)) return { _tag: "postgres", url: value }
  if (value.startsWith("file://")) return { _tag: "sqlite", filename: new URL(value).pathname }
  if (value.startsWith("file:")) return { _tag: "sqlite", filename: value.slice("file:".length) }
  return { _tag: "sqlite", filename: value }
}

export const database = Config.string("DATABASE_URL").pipe(Config.withDefault("./data/switchboard.sqlite"), Config.map(parseDatabaseUrl))

export const port = Config.port("PORT").pipe(Config.withDefault(3000))
/** 127.0.0.1 unless `HOST` opens it wider on purpose (`0.0.0.0`, or an interface address). */
export const host = Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))

/** Live operator credentials; absent means every store uses the emulator. */
export const liveOperator = Config.all({
  baseUrl: Config.string("OPERATOR_BASE_URL").pipe(Config.withDefault("https://graph.facebook.com")),
  apiVersion: Config.string("OPERATOR_API_VERSION").pipe(Config.withDefault("v23.0")),
  accessToken: Config.redacted("OPERATOR_ACCESS_TOKEN"),
  appSecret: Config.redacted("OPERATOR_APP_SECRET")
}).pipe(Config.option)

export const verifyToken = Config.redacted("OPERATOR_VERIFY_TOKEN").pipe(Config.option)

/** The sandbox: an external emulator (URL and its app secret) or the in-process one. */
export const emulator = Config.all({
  url: Config.string("SWITCHBOARD_EMULATOR_URL").pipe(Config.option),
  appSecret: Config.redacted("SWITCHBOARD_EMULATOR_APP_SECRET").pipe(Config.option),
  port: Config.port("SWITCHBOARD_EMULATOR_PORT").pipe(Config.withDefault(0)),
  stateFile: Config.string("SWITCHBOARD_EMULATOR_STATE").pipe(Config.option),
  templateReviewDelayMs: Config.integer("SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS").pipe(Config.withDefault(3000)),
  messagesPerSecond: Config.integer("SWITCHBOARD_EMULATOR_MPS").pipe(Config.withDefault(80)),
  catalogBatchCalls: Config.integer("SWITCHBOARD_EMULATOR_CATALOG_BATCH_CALLS").pipe(Config.withDefault(10)),
  catalogBatchWindowMs: Config.integer("SWITCHBOARD_EMULATOR_CATALOG_BATCH_WINDOW_MS").pipe(Config.withDefault(60_000)),
  itemsBatchProcessMs: Config.integer("SWITCHBOARD_EMULATOR_ITEMS_BATCH_MS").pipe(Config.withDefault(200))
})

/** Where the operator (the in-process emulator) calls our webhook. */
export const publicUrl = Config.string("SWITCHBOARD_PUBLIC_URL").pipe(Config.option)

/** Lets caller webhook and flow endpoint URLs point at loopback or private addresses (local development, tests). */
export const allowPrivateUrls = Config.boolean("SWITCHBOARD_ALLOW_PRIVATE_URLS").pipe(Config.withDefault(false))

export const runWorker = Config.boolean("SWITCHBOARD_WORKER").pipe(Config.withDefault(true))

/**
 * `/readyz` answers 503 once the oldest runnable job has waited longer than this many
 * seconds (`SWITCHBOARD_READY_MAX_JOB_AGE`, default 60): the workers are not keeping up.
 */
export const readyMaxJobAgeSeconds = Config.integer("SWITCHBOARD_READY_MAX_JOB_AGE").pipe(
  Config.withDefault(60),
  Config.validate({ message: "must be a whole number of seconds, at least 1", validation: (n) => n >= 1 })
)

/** Whether the fast lane keeps rendered list pages while the SQLite file has not changed. */
export const pageCache = Config.boolean("SWITCHBOARD_PAGE_CACHE").pipe(Config.withDefault(true))

export const logLevel = Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))
/** `LOG_FORMAT`, or readable logs on a terminal and JSON otherwise (a file, a pipe, a container's log). */
export const logFormat = Config.literal(
  "json",
  "pretty",
  "logfmt"
)("LOG_FORMAT").pipe(Config.option, Config.map(Option.getOrElse(() => (process.stderr.isTTY ? ("pretty" as const) : ("json" as const)))))

/** The API the CLI's client commands call (`campaigns watch`), and the key they send. */
export const client = Config.all({
  url: Config.string("SWITCHBOARD_URL").pipe(Config.option),
  apiKey: Config.redacted("SWITCHBOARD_API_KEY").pipe(Config.option)
})

/** The service's version, as the CLI and the banner show it. */
export const VERSION = "0.1.0"

export const randomSecret = (): Redacted.Redacted<string> => {
  const bytes = new Uint8Array(24)
  globalThis.crypto.getRandomValues(bytes)
  return Redacted.make(Buffer.from(bytes).toString("base64url"))
}

export const orRandom = (o: Option.Option<Redacted.Redacted<string>>) => Option.getOrElse(o, randomSecret)
