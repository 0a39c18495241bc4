/**
 * `switchboard emulator`: the operator emulator as a process of its own, the one home of the
 * sandbox when an installation runs several processes (servers and workers on PostgreSQL).
 * Every other process names it with SWITCHBOARD_EMULATOR_URL and
 * SWITCHBOARD_EMULATOR_APP_SECRET, so accounts, templates, customer windows, sends and rate
 * limits live in one place, and one state file has one writer.
 *
 * Settings: SWITCHBOARD_EMULATOR_PORT (default 4010), HOST (default 127.0.0.1),
 * SWITCHBOARD_EMULATOR_APP_SECRET (required: the servers verify its webhooks with it),
 * SWITCHBOARD_EMULATOR_STATE (default next to the SQLite file, or data/emulator-state.json),
 * SWITCHBOARD_PUBLIC_URL (the server its webhooks go to, default http://127.0.0.1:$PORT),
 * SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS, SWITCHBOARD_EMULATOR_MPS.
 *
 * Prints one JSON line `{"url", "webhook_url", "state_file"}` on stdout once it listens, and
 * runs until SIGTERM or SIGINT, when it closes and writes its state file. The CLI loads this
 * module only for that command.
 */
import { startEmulator } from "@switchboard/operator-emulator"
import { Config, Console, Effect, Layer, Option, Redacted } from "effect"
import * as AppConfig from "./Config.js"
import * as Sandbox from "./Sandbox.js"

/** The port of `switchboard emulator` when SWITCHBOARD_EMULATOR_PORT is unset (the in-process one takes any free port). */
export const DEFAULT_PORT = 4010

const settings = Effect.gen(function* () {
  const emulator = yield* AppConfig.emulator
  const appSecret = yield* Sandbox.requiredSecret(emulator.appSecret, "switchboard emulator")
  const port = yield* Config.port("SWITCHBOARD_EMULATOR_PORT").pipe(Config.withDefault(DEFAULT_PORT))
  const host = yield* AppConfig.host
  const serverPort = yield* AppConfig.port
  const publicUrl = Option.getOrElse(yield* AppConfig.publicUrl, () => `http://127.0.0.1:${serverPort}`)
  return {
    appSecret,
    port,
    host,
    stateFile: yield* Sandbox.stateFileOf(emulator.stateFile),
    webhookUrl: `${publicUrl.replace(/\/$/, "")}/chat/operator/webhook`,
    templateReviewDelayMs: emulator.templateReviewDelayMs,
    messagesPerSecond: emulator.messagesPerSecond,
    catalogBatchCalls: emulator.catalogBatchCalls,
    catalogBatchWindowMs: emulator.catalogBatchWindowMs,
    itemsBatchProcessMs: emulator.itemsBatchProcessMs
  }
})

/** The emulator for the life of the layer: started, announced on stdout, closed (state written) on release. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const s = yield* settings
    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startEmulator({
          port: s.port,
          host: s.host,
          appSecret: Redacted.value(s.appSecret),
          webhookUrl: s.webhookUrl,
          stateFile: s.stateFile,
          templateReviewDelayMs: s.templateReviewDelayMs,
          messagesPerSecond: s.messagesPerSecond,
          catalogBatchCalls: s.catalogBatchCalls,
          catalogBatchWindowMs: s.catalogBatchWindowMs,
          itemsBatchProcessMs: s.itemsBatchProcessMs
        })
      ),
      (e) => Effect.promise(() => e.close())
    )
    yield* Console.log(JSON.stringify({ url: emulator.url, webhook_url: s.webhookUrl, state_file: s.stateFile }))
    yield* Effect.logInfo("operator emulator started: point every server and worker at it", {
      SWITCHBOARD_EMULATOR_URL: emulator.url,
      webhooks: s.webhookUrl,
      stateFile: s.stateFile
    })
  })
)
