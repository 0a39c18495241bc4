/**
 * The sandbox operator: the in-process emulator (the embedded default) or an external one
 * named by SWITCHBOARD_EMULATOR_URL. It serves test keys always, and live keys too when no
 * live operator credentials are configured.
 */
import { startEmulator, type Emulator } from "@switchboard/operator-emulator"
import { Context, Effect, Layer, Option, Redacted } from "effect"
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

export const layer = Layer.scoped(
  Sandbox,
  Effect.gen(function* () {
    const config = yield* AppConfig.emulator
    const appSecret = AppConfig.orRandom(config.appSecret)
    if (Option.isSome(config.url)) {
      if (Option.isNone(config.appSecret)) {
        return yield* Effect.dieMessage("SWITCHBOARD_EMULATOR_URL needs SWITCHBOARD_EMULATOR_APP_SECRET (the secret it signs webhooks with)")
      }
      return { url: config.url.value.replace(/\/$/, ""), appSecret, emulator: undefined }
    }
    const db = yield* AppConfig.database
    const stateFile = Option.getOrElse(config.stateFile, () =>
      db._tag === "sqlite" ? path.join(path.dirname(db.filename), "emulator-state.json") : path.join("data", "emulator-state.json")
    )
    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startEmulator({
          port: config.port,
          appSecret: Redacted.value(appSecret),
          stateFile,
          templateReviewDelayMs: config.templateReviewDelayMs,
          messagesPerSecond: config.messagesPerSecond
        })
      ),
      (e) => Effect.promise(() => e.close())
    )
    yield* Effect.logInfo("operator emulator started in-process", { url: emulator.url, stateFile })
    return { url: emulator.url, appSecret, emulator }
  })
)
