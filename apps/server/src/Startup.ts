/**
 * What start-up says to a person: the banner once the server listens, and a failure as ONE
 * line that says what to change (port in use, database unreachable, a path that cannot be
 * written, a bad setting), never a stack trace. Secrets in database URLs are redacted.
 */
import { Cause, ConfigError, Data, Option } from "effect"
import { resolve } from "node:path"
import type { DatabaseTarget } from "./Config.js"

/** A mistake the person can fix, said in words (a store that does not exist, a missing key...): printed as it is. */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

/** The URL with its password (and any `password=` query value) replaced by `***`. */
export const redactUrl = (url: string): string =>
  url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, "$1***@").replace(/([?&]password=)[^&#]*/gi, "$1***")

/** "SQLite /abs/data/switchboard.sqlite" or "PostgreSQL postgres://user:***@host/db". */
export const describeDatabase = (db: DatabaseTarget): string =>
  db._tag === "sqlite" ? `SQLite ${db.filename === ":memory:" ? ":memory:" : resolve(db.filename)}` : `PostgreSQL ${redactUrl(db.url)}`

/** What start-up knew when it failed; each field is absent when it could not be read. */
export interface FailureContext {
  readonly command: string
  readonly port?: number | undefined
  readonly host?: string | undefined
  readonly database?: DatabaseTarget | undefined
}

interface Found {
  readonly tag?: string
  readonly code?: string
  readonly syscall?: string
  readonly message: string
}

/** `_tag`s of @effect/cli's validation errors: the CLI printed them already. */
const CLI_ERRORS = new Set([
  "BuiltIn",
  "CommandMismatch",
  "CorrectedFlag",
  "HelpRequested",
  "InvalidArgument",
  "InvalidValue",
  "MissingValue",
  "MissingFlag",
  "MultipleValuesDetected",
  "MissingSubcommand",
  "NoBuiltInMatch",
  "UnclearCommand"
])

const FS_CODES = new Set(["ENOENT", "EACCES", "EPERM", "EROFS", "ENOTDIR", "EISDIR", "ENOSPC", "ELOOP", "ENAMETOOLONG"])
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"])

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

/** The first setting a ConfigError is about, as "LOG_LEVEL is \"verbose\"; accepted values: …" or "PORT: expected …". */
const settingOf = (error: ConfigError.ConfigError): string | undefined => {
  switch (error._op) {
    case "And":
    case "Or":
      return settingOf(error.left) ?? settingOf(error.right)
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported": {
      const name = error.path.join("_")
      const message = oneLine(error.message)
      if (name === "" || message.startsWith(name)) return message
      return /^(is|must) /.test(message) ? `${name} ${message}` : `${name}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`
    }
  }
}

/** The one line for a setting that does not parse, naming the variable. */
const invalidSetting = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const e of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    if (ConfigError.isConfigError(e)) {
      const setting = settingOf(e)
      if (setting !== undefined) return `Invalid setting: ${setting}. Fix that environment variable and start again.`
    }
  }
  return undefined
}

/** Every error in the cause, and each one's own causes (ServeError, MigrationError... wrap the real one). */
const errorsOf = (cause: Cause.Cause<unknown>): ReadonlyArray<Found> => {
  const found: Array<Found> = []
  const visit = (u: unknown, depth: number): void => {
    if (depth > 6 || u === null || u === undefined) return
    if (typeof u !== "object") {
      found.push({ message: String(u) })
      return
    }
    const e = u as { _tag?: unknown; code?: unknown; syscall?: unknown; message?: unknown; cause?: unknown; error?: unknown }
    const message = typeof e.message === "string" && e.message !== "" ? e.message : String(u)
    found.push({
      ...(typeof e._tag === "string" ? { tag: e._tag } : {}),
      ...(typeof e.code === "string" ? { code: e.code } : {}),
      ...(typeof e.syscall === "string" ? { syscall: e.syscall } : {}),
      message
    })
    if (e.cause !== undefined) visit(e.cause, depth + 1)
    if (e.error !== undefined && typeof e.error === "object") visit(e.error, depth + 1)
    if (u instanceof AggregateError) for (const inner of u.errors) visit(inner, depth + 1)
  }
  for (const failure of Cause.failures(cause)) visit(failure, 0)
  for (const defect of Cause.defects(cause)) visit(defect, 0)
  return found
}

/**
 * The one line to print for a failed command, or `None` when there is nothing to add (an
 * interruption, or a command-line mistake @effect/cli has printed already).
 */
export const explainFailure = (cause: Cause.Cause<unknown>, context: FailureContext): Option.Option<string> => {
  if (Cause.isInterruptedOnly(cause)) return Option.none()
  const errors = errorsOf(cause)
  if (errors.length === 0) return Option.none()
  if (errors.some((e) => e.tag !== undefined && CLI_ERRORS.has(e.tag))) return Option.none()
  const said = errors.find((e) => e.tag === "CliError")
  if (said !== undefined) return Option.some(said.message)
  const has = (codes: ReadonlySet<string> | string) =>
    errors.find((e) => e.code !== undefined && (typeof codes === "string" ? e.code === codes : codes.has(e.code)))
  const where = `${context.host ?? "127.0.0.1"}:${context.port ?? 3000}`

  const setting = invalidSetting(cause)
  if (setting !== undefined) return Option.some(setting)
  const config = errors.find((e) => e.tag === "ConfigError" || /^\(?(Invalid data|Missing data)/.test(e.message))
  if (config !== undefined)
    return Option.some(`Invalid setting: ${oneLine(config.message).replace(/^\((.*)\)$/, "$1")}. Fix that environment variable and start again.`)

  const listen = errors.find((e) => e.syscall === "listen" || e.tag === "ServeError")
  if (has("EADDRINUSE") !== undefined) {
    return Option.some(
      `Port ${context.port ?? "?"} is already in use on ${context.host ?? "127.0.0.1"}: stop the process using it, or set PORT to a free port.`
    )
  }
  if (listen !== undefined && (has("EACCES") ?? has("EPERM")) !== undefined) {
    return Option.some(`Not allowed to listen on ${where}: set PORT to a port above 1023.`)
  }
  if (has("EADDRNOTAVAIL") !== undefined || (listen !== undefined && has("ENOTFOUND") !== undefined)) {
    return Option.some(`HOST ${context.host ?? "?"} is not an address of this machine: set HOST to 127.0.0.1, 0.0.0.0 or one of its addresses.`)
  }

  const db = context.database
  if (db?._tag === "postgres") {
    const url = redactUrl(db.url)
    const missing = has("3D000")
    if (missing !== undefined) return Option.some(`The database in DATABASE_URL (${url}) does not exist: create it (createdb) or set DATABASE_URL.`)
    const auth = has("28P01") ?? has("28000")
    if (auth !== undefined) return Option.some(`PostgreSQL refused the credentials of DATABASE_URL (${url}): fix the user or password.`)
    const down = has(UNREACHABLE_CODES) ?? errors.find((e) => /timeout exceeded when trying to connect|Connection terminated/i.test(e.message))
    if (down !== undefined) {
      return Option.some(`Cannot reach the database at ${url} (${down.code ?? oneLine(down.message)}): start PostgreSQL there, or set DATABASE_URL.`)
    }
  }
  if (db?._tag === "sqlite") {
    const fs = has(FS_CODES) ?? errors.find((e) => e.code !== undefined && /^SQLITE_(CANTOPEN|READONLY|IOERR|NOTADB|CORRUPT|FULL|PERM)/.test(e.code))
    if (fs !== undefined) {
      const reason = fs.code === "SQLITE_NOTADB" ? "it is not a SQLite database" : oneLine(fs.message)
      return Option.some(
        `Cannot write the SQLite database at ${describeDatabase(db).slice("SQLite ".length)} (${reason}): set DATABASE_URL to a file in a folder this user can write.`
      )
    }
  }
  const path = has(FS_CODES)
  if (path !== undefined)
    return Option.some(
      `Cannot write a file (${oneLine(path.message)}): check the paths in the environment (SWITCHBOARD_EMULATOR_STATE, DATABASE_URL).`
    )

  const first = errors[0]
  return Option.some(`switchboard ${context.command} failed: ${oneLine(first.message)}`)
}

export interface BannerFacts {
  readonly version: string
  /** Where the server listens, as a person would open it. */
  readonly url: string
  readonly allInterfaces: boolean
  readonly database: string
  /** How the operator is reached: the emulator (in this process or elsewhere) and the live API. */
  readonly operator: string
  readonly worker: boolean
  /** How a person runs the CLI here (`pnpm switchboard` in the workspace). */
  readonly cli: string
  readonly stores: number
}

/** The next thing to do: create a store when there is none, else list them. */
export const nextStep = (facts: Pick<BannerFacts, "cli" | "stores">): string =>
  facts.stores === 0
    ? `create a store: ${facts.cli} stores create --name "My shop"`
    : `${facts.stores} store${facts.stores === 1 ? "" : "s"} here; see their keys' hints with: ${facts.cli} stores list`

/** The banner a person reads when `serve` is ready. */
export const banner = (facts: BannerFacts): string =>
  [
    "",
    `  Switchboard ${facts.version} is ready on ${facts.url}${facts.allInterfaces ? " (listening on all interfaces)" : ""}`,
    "",
    `  API docs   ${facts.url}/docs`,
    `  Database   ${facts.database}`,
    `  Operator   ${facts.operator}`,
    `  Worker     ${facts.worker ? "running in this process" : "off (SWITCHBOARD_WORKER=false): run `switchboard worker` elsewhere"}`,
    "",
    `  Next: ${nextStep(facts)}`,
    ""
  ].join("\n")

/** The same facts as one structured log line (JSON or logfmt logs). */
export const bannerFields = (facts: BannerFacts) => ({
  url: facts.url,
  docs: `${facts.url}/docs`,
  database: facts.database,
  operator: facts.operator,
  worker: facts.worker,
  next: nextStep(facts)
})
