/**
 * The sandbox operator: the in-process emulator (the embedded default, for a server that runs
 * alone) or the installation's shared one named by SWITCHBOARD_EMULATOR_URL (`switchboard
 * emulator`, required of workers). It serves test keys always, and live keys too when no live
 * operator credentials are configured.
 */
import { startEmulator, type Emulator } from "@switchboard/operator-emulator"
import { ConfigError, Context, Effect, Layer, Option, Redacted } from "effect"
import * as path from "node:path"
import * as AppConfig from "./Config.js"

export class Sandbox extends Context.Tag("@switchboard/server/Sandbox")<
  Sandbox,
  {
    readonly url: string
    readonly appSecret: Redacted.Redacted<string>
    /** Present when the emulator runs in this process. */
    readonly emulator: Emulator | undefined
  }
>() {}

/** The emulator's state file: SWITCHBOARD_EMULATOR_STATE, else next to the SQLite file, else data/emulator-state.json. */
export const stateFileOf = (configured: Option.Option<string>) =>
  Effect.map(AppConfig.database, (db) =>
    Option.getOrElse(configured, () =>
      db._tag === "sqlite" ? path.join(path.dirname(db.filename), "emulator-state.json") : path.join("data", "emulator-state.json")
    )
  )

/** A setting the emulator shared by several processes cannot do without, refused in words (start-up prints it as one line). */
const missing = (name: string, why: string) => ConfigError.MissingData([name], `${name} is not set: ${why}`)

/** SWITCHBOARD_EMULATOR_APP_SECRET, which an emulator shared by several processes needs (an empty one is refused). */
export const requiredSecret = (
  secret: Option.Option<Redacted.Redacted<string>>,
  who: string
): Effect.Effect<Redacted.Redacted<string>, ConfigError.ConfigError> =>
  Option.isSome(secret) && Redacted.value(secret.value).length > 0
    ? Effect.succeed(secret.value)
    : Effect.fail(missing("SWITCHBOARD_EMULATOR_APP_SECRET", `${who} needs the secret the emulator signs its webhooks with`))

/** The emulator another process runs (SWITCHBOARD_EMULATOR_URL), with the secret of its webhooks. */
const external = (url: string, secret: Option.Option<Redacted.Redacted<string>>) =>
  Effect.map(requiredSecret(secret, "SWITCHBOARD_EMULATOR_URL"), (appSecret) => ({ url: url.replace(/\/$/, ""), appSecret, emulator: undefined }))

/**
 * The sandbox of a process that must share the installation's one emulator (a `worker`: it
 * runs beside a server, and an emulator of its own would lack the server's templates and
 * accounts). SWITCHBOARD_EMULATOR_URL is required: the emulator of `switchboard emulator`.
 */
export const layerShared = Layer.effect(
  Sandbox,
  Effect.gen(function* () {
    const config = yield* AppConfig.emulator
    if (Option.isNone(config.url)) {
      return yield* Effect.fail(
        missing(
          "SWITCHBOARD_EMULATOR_URL",
          "a worker shares the installation's one emulator: run `switchboard emulator` and give every server and worker its URL and SWITCHBOARD_EMULATOR_APP_SECRET"
        )
      )
    }
    return yield* external(config.url.value, config.appSecret)
  })
)

/**
 * The sandbox of a server: the emulator named by SWITCHBOARD_EMULATOR_URL, or one in this
 * process (the embedded default, for a server that runs alone: a second server or a worker
 * would need the shared one of `switchboard emulator`).
 */
export const layer = Layer.scoped(
  Sandbox,
  Effect.gen(function* () {
    const config = yield* AppConfig.emulator
    if (Option.isSome(config.url)) return yield* external(config.url.value, config.appSecret)
    const appSecret = AppConfig.orRandom(config.appSecret)
    const stateFile = yield* stateFileOf(config.stateFile)
    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startEmulator({
          port: config.port,
          appSecret: Redacted.value(appSecret),
          stateFile,
          templateReviewDelayMs: config.templateReviewDelayMs,
          messagesPerSecond: config.messagesPerSecond,
          catalogBatchCalls: config.catalogBatchCalls,
          catalogBatchWindowMs: config.catalogBatchWindowMs,
          itemsBatchProcessMs: config.itemsBatchProcessMs
        })
      ),
      (e) => Effect.promise(() => e.close())
    )
    yield* Effect.logInfo("operator emulator started in-process", { url: emulator.url, stateFile })
    return { url: emulator.url, appSecret, emulator }
  })
)
