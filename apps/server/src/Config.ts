/**
 * Configuration from environment variables (see the README's table). Secrets are Redacted.
 */
import { Config, ConfigError, Duration, Either, LogLevel, Option, Redacted } from "effect"

export type DatabaseTarget = { readonly _tag: "sqlite"; readonly filename: string } | { readonly _tag: "postgres"; readonly url: string }

/** `postgres://` or `postgresql://` selects PostgreSQL; a plain path or `file:` URL is a SQLite file. */
export const parseDatabaseUrl = (value: string): DatabaseTarget => {
  if (/^postgres(ql)?:\/\//.test(value)) return { _tag: "postgres", url: value }
  if (value.startsWith("file://")) return { _tag: "sqlite", filename: new URL(value).pathname }
  if (value.startsWith("file:")) return { _tag: "sqlite", filename: value.slice("file:".length) }
  return { _tag: "sqlite", filename: value }
}

/** An integer setting within [min, max]: anything else is refused with the range (and the variable's name). */
const between = (name: string, min: number, max: number) =>
  Config.integer(name).pipe(Config.validate({ message: `must be an integer from ${min} to ${max}`, validation: (n) => n >= min && n <= max }))

/** An http(s) URL setting. */
const httpUrl = (name: string) =>
  Config.string(name).pipe(
    Config.validate({
      message: "must be an http:// or https:// URL",
      validation: (value) => {
        try {
          return ["http:", "https:"].includes(new URL(value).protocol)
        } catch {
          return false
        }
      }
    })
  )

export const database = Config.string("DATABASE_URL").pipe(Config.withDefault("./data/switchboard.sqlite"), Config.map(parseDatabaseUrl))

export const port = Config.port("PORT").pipe(Config.withDefault(3000))
/** 127.0.0.1 unless `HOST` opens it wider on purpose (`0.0.0.0`, or an interface address). */
export const host = Config.string("HOST").pipe(
  Config.map((h) => h.trim()),
  Config.withDefault(""),
  Config.map((h) => (h === "" ? "127.0.0.1" : h))
)

/** Live operator credentials; absent means every store uses the emulator. */
export const liveOperator = Config.all({
  baseUrl: httpUrl("OPERATOR_BASE_URL").pipe(Config.withDefault("https://graph.facebook.com")),
  apiVersion: Config.string("OPERATOR_API_VERSION").pipe(Config.withDefault("v23.0")),
  accessToken: Config.redacted("OPERATOR_ACCESS_TOKEN"),
  appSecret: Config.redacted("OPERATOR_APP_SECRET")
}).pipe(Config.option)

export const verifyToken = Config.redacted("OPERATOR_VERIFY_TOKEN").pipe(Config.option)

/** The sandbox: an external emulator (URL and its app secret) or the in-process one. */
export const emulator = Config.all({
  url: httpUrl("SWITCHBOARD_EMULATOR_URL").pipe(Config.option),
  appSecret: Config.redacted("SWITCHBOARD_EMULATOR_APP_SECRET").pipe(Config.option),
  port: Config.port("SWITCHBOARD_EMULATOR_PORT").pipe(Config.withDefault(0)),
  stateFile: Config.string("SWITCHBOARD_EMULATOR_STATE").pipe(Config.option),
  templateReviewDelayMs: between("SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS", 0, 86_400_000).pipe(Config.withDefault(3000)),
  messagesPerSecond: between("SWITCHBOARD_EMULATOR_MPS", 1, 1_000_000).pipe(Config.withDefault(80)),
  catalogBatchCalls: between("SWITCHBOARD_EMULATOR_CATALOG_BATCH_CALLS", 1, 1_000_000).pipe(Config.withDefault(10)),
  catalogBatchWindowMs: between("SWITCHBOARD_EMULATOR_CATALOG_BATCH_WINDOW_MS", 1, 86_400_000).pipe(Config.withDefault(60_000)),
  itemsBatchProcessMs: between("SWITCHBOARD_EMULATOR_ITEMS_BATCH_MS", 0, 3_600_000).pipe(Config.withDefault(200))
})

/** Where the operator (the in-process emulator) calls our webhook. */
export const publicUrl = httpUrl("SWITCHBOARD_PUBLIC_URL").pipe(Config.option)

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

/** "24h", "90m", "30s", "7d", "250ms", "0", or Effect's "24 hours". */
export const parseDuration = (text: string): Option.Option<Duration.Duration> => {
  const short = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text)
  if (short !== null) {
    const n = Number(short[1])
    const unit = short[2] ?? (n === 0 ? "s" : undefined)
    if (unit === undefined) return Option.none()
    const ms = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as "ms" | "s" | "m" | "h" | "d"]
    return Option.some(Duration.millis(n * ms))
  }
  return Duration.decodeUnknown(text)
}

/** A duration setting in milliseconds (`1s`, `30m`, `7d`), at least one second. */
const durationMs = (name: string, fallback: Duration.DurationInput) =>
  Config.string(name).pipe(
    Config.mapOrFail((value) => {
      const parsed = parseDuration(value)
      const ms = Option.isSome(parsed) ? Duration.toMillis(parsed.value) : Number.NaN
      return Number.isFinite(ms) && ms >= 1000
        ? Either.right(ms)
        : Either.left(ConfigError.InvalidData([], `is ${JSON.stringify(value)}; use a duration of at least 1s such as 30m, 24h or 7d`))
    }),
    Config.withDefault(Duration.toMillis(fallback))
  )

/** How long operational records are kept (README, "Retention"); business records are kept. */
export const retention = Config.all({
  inbox: durationMs("SWITCHBOARD_RETAIN_INBOX", "7 days"),
  jobs: durationMs("SWITCHBOARD_RETAIN_JOBS", "1 day"),
  webhook_deliveries: durationMs("SWITCHBOARD_RETAIN_DELIVERIES", "30 days"),
  idempotency_keys: durationMs("SWITCHBOARD_RETAIN_IDEMPOTENCY", "24 hours")
})
/** How often a worker prunes them. */
export const retentionIntervalMs = durationMs("SWITCHBOARD_RETENTION_INTERVAL", "10 minutes")

/** Whether the fast lane keeps rendered list pages while the SQLite file has not changed. */
export const pageCache = Config.boolean("SWITCHBOARD_PAGE_CACHE").pipe(Config.withDefault(true))

/** What `LOG_LEVEL` accepts, in any case: Effect's levels, `warn` and `warning` alike (the CLI's `--log-level` lists the same). */
export const LOG_LEVELS: Readonly<Record<string, LogLevel.LogLevel>> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}
export const LOG_FORMATS = ["json", "pretty", "logfmt"] as const

/** A refusal that quotes the value and names the accepted ones (the path, e.g. LOG_LEVEL, is added by the provider). */
const notOneOf = (value: string, names: ReadonlyArray<string>) =>
  ConfigError.InvalidData([], `is ${JSON.stringify(value)}; accepted values: ${names.join(", ")}`)

export const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((value) => {
    const level = LOG_LEVELS[value.trim().toLowerCase()]
    return level === undefined ? Either.left(notOneOf(value, Object.keys(LOG_LEVELS))) : Either.right(level)
  }),
  Config.withDefault(LogLevel.Info)
)
/** `LOG_FORMAT`, or readable logs on a terminal and JSON otherwise (a file, a pipe, a container's log). */
export const logFormat = Config.string("LOG_FORMAT").pipe(
  Config.mapOrFail((value) => {
    const format = LOG_FORMATS.find((f) => f === value.trim().toLowerCase())
    return format === undefined ? Either.left(notOneOf(value, LOG_FORMATS)) : Either.right(format)
  }),
  Config.option,
  Config.map(Option.getOrElse(() => (process.stderr.isTTY ? ("pretty" as const) : ("json" as const))))
)

/** The API the CLI's client commands call (`campaigns watch`), and the key they send. */
export const client = Config.all({
  url: httpUrl("SWITCHBOARD_URL").pipe(Config.option),
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

/** Tests: guard every operator capability against calls inside a database transaction (`OperatorGuard.ts`). */
export const guardOperatorTransactions = Config.boolean("SWITCHBOARD_TEST_GUARD_OPERATOR_TX").pipe(Config.withDefault(false))

/** How long after a mirrored write's prepare its sweep looks at it (`Mirror.Settings.sweepDelayMs`). */
export const mirrorSweepDelayMs = Config.integer("SWITCHBOARD_MIRROR_SWEEP_DELAY_MS").pipe(Config.withDefault(60_000))

/** Crash tests: `<mirror kind>:<prepared|called>`, where a mirrored write hangs (the test then kills the process). */
export const testMirrorHalt = Config.option(Config.string("SWITCHBOARD_TEST_MIRROR_HALT"))
