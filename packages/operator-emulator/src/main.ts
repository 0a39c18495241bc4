/**
 * Runs the emulator standalone:
 *
 *   node --import tsx packages/operator-emulator/src/main.ts --port 4010 --app-secret S \
 *     --webhook-url http://127.0.0.1:3000/webhooks/operator [--mps 1000] [--state-file path]
 *
 * Prints one JSON line `{"url": ...}` on stdout once listening; SIGTERM or SIGINT closes it cleanly.
 * Logs go to stderr. Run with `--help` for every flag.
 */
import { parseArgs } from "node:util"
import { startEmulator } from "./Emulator.js"
import type { EmulatorConfig, EmulatorOptions } from "./Config.js"

const numericFlags: Record<string, keyof EmulatorConfig> = {
  mps: "messagesPerSecond",
  "pair-burst": "pairBurst",
  "template-review-delay-ms": "templateReviewDelayMs",
  "status-delay-ms": "statusDelayMs",
  "rate-429": "rate429",
  "rate-5xx": "rate5xx",
  "rate-accepted-but-lost": "rateAcceptedButLost",
  "latency-ms": "latencyMs",
  "webhook-batch-ms": "webhookBatchMs",
  "webhook-batch-max": "webhookBatchMax",
  "default-messaging-limit": "defaultMessagingLimit",
  "messaging-window-ms": "messagingWindowMs"
}

const usage = `usage: main.ts --app-secret SECRET [--port 4010] [--host 127.0.0.1] [--webhook-url URL]
  [--access-token TOKEN] [--state-file PATH] [--quiet]
  ${Object.keys(numericFlags)
    .map((flag) => `[--${flag} N]`)
    .join(" ")}
The app secret may also come from OPERATOR_EMULATOR_APP_SECRET.`

const main = async (): Promise<void> => {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "app-secret": { type: "string" },
      "webhook-url": { type: "string" },
      "access-token": { type: "string" },
      "state-file": { type: "string" },
      quiet: { type: "boolean" },
      help: { type: "boolean" },
      ...Object.fromEntries(Object.keys(numericFlags).map((flag) => [flag, { type: "string" as const }]))
    },
    strict: true
  })
  if (values.help === true) {
    process.stdout.write(`${usage}\n`)
    return
  }
  const appSecret = (values["app-secret"] as string | undefined) ?? process.env.OPERATOR_EMULATOR_APP_SECRET
  if (appSecret === undefined || appSecret.length === 0) {
    process.stderr.write(`--app-secret is required\n${usage}\n`)
    process.exitCode = 2
    return
  }
  const options: EmulatorOptions = {
    appSecret,
    port: values.port === undefined ? 0 : Number(values.port),
    host: values.host as string | undefined,
    webhookUrl: values["webhook-url"] as string | undefined,
    accessToken: values["access-token"] as string | undefined,
    stateFile: values["state-file"] as string | undefined,
    log: values.quiet === true ? undefined : (line) => process.stderr.write(`[operator-emulator] ${line}\n`)
  }
  for (const [flag, key] of Object.entries(numericFlags)) {
    const raw = (values as Record<string, unknown>)[flag]
    if (typeof raw === "string") {
      const value = Number(raw)
      if (!Number.isFinite(value)) throw new Error(`--${flag} must be a number`)
      options[key] = value
    }
  }
  const emulator = await startEmulator(options)
  process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`)
  const stop = () => {
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`close failed: ${String(error)}\n`)
        process.exit(1)
      }
    )
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
