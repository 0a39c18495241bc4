#!/usr/bin/env node
/**
 * The `switchboard` CLI: `serve` (HTTP and worker, the default), `worker`, `migrate`,
 * `emulator`, `stores create | list | rotate-key`, `campaigns watch`, `rates import`, `webhooks listen`, `backup`. A failure prints ONE line that says
 * what to change (Startup.explainFailure), never a stack trace; `--help` lists the
 * environment variables. The server's modules are loaded only by the commands that run it.
 */
import "./v8flags.js"
import { Command, HelpDoc, Span } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, ConfigProvider, Console, Effect, Layer, Option } from "effect"
import * as Backup from "./cli/Backup.js"
import * as Campaigns from "./cli/Campaigns.js"
import * as Rates from "./cli/Rates.js"
import * as Stores from "./cli/Stores.js"
import * as Webhooks from "./cli/Webhooks.js"
import * as AppConfig from "./Config.js"
import * as Environment from "./Environment.js"
import * as Logging from "./Logging.js"
import * as Startup from "./Startup.js"

const layers = Effect.promise(() => import("./Layers.js"))
const storage = Effect.promise(() => import("./Storage.js"))

/** Runs `layer` until interrupted (SIGTERM, SIGINT); "stopped" once every layer has closed (`Shutdown.ts`). */
const launch = (layer: Layer.Layer<never, unknown>) => Layer.launch(layer).pipe(Effect.onInterrupt(() => Effect.logInfo("stopped")))

const serve = Command.make("serve", {}, () =>
  Effect.zipRight(
    Logging.quietStartup,
    Effect.flatMap(layers, (L) => launch(L.layerServe))
  )
).pipe(Command.withDescription("Serve the HTTP API and run the worker in this process"))

const worker = Command.make("worker", {}, () => Effect.flatMap(layers, (L) => launch(L.layerWorkerOnly))).pipe(
  Command.withDescription("Run only the job worker (several may run against one PostgreSQL)")
)

const emulator = Command.make("emulator", {}, () =>
  Effect.flatMap(
    Effect.promise(() => import("./EmulatorProcess.js")),
    (E) => Layer.launch(E.layer)
  )
).pipe(
  Command.withDescription("Run the operator emulator as its own process: the one sandbox every server and worker names with SWITCHBOARD_EMULATOR_URL")
)

const migrate = Command.make("migrate", {}, () =>
  Effect.flatMap(storage, (Storage) => Effect.flatMap(Storage.migrate, (result) => Console.log(JSON.stringify(result))))
).pipe(Command.withDescription("Apply database migrations (serve also applies them at start)"))

const description = HelpDoc.blocks([
  HelpDoc.p("Switchboard: the HTTP API under /chat, its job worker, and the tools to run them. `switchboard serve` is what `pnpm start` runs."),
  HelpDoc.h2("ENVIRONMENT"),
  HelpDoc.descriptionList(
    Environment.variables.map((v) => [Span.text(v.name), HelpDoc.p(`${v.meaning} (default: ${v.default})`)] as [Span.Span, HelpDoc.HelpDoc]) as [
      [Span.Span, HelpDoc.HelpDoc],
      ...Array<[Span.Span, HelpDoc.HelpDoc]>
    ]
  )
])

const switchboard = Command.make("switchboard").pipe(
  Command.withDescription(description),
  Command.withSubcommands([serve, worker, migrate, emulator, Stores.command, Campaigns.command, Rates.command, Webhooks.command, Backup.command])
)

const cli = Command.run(switchboard, { name: "switchboard", version: AppConfig.VERSION })

/** What start-up knew, for the one-line explanation of a failure. */
const failureContext = (command: string) =>
  Effect.gen(function* () {
    const read = <A>(config: Effect.Effect<A, unknown>) => config.pipe(Effect.option, Effect.map(Option.getOrUndefined))
    return {
      command,
      port: yield* read(AppConfig.port),
      host: yield* read(AppConfig.host),
      database: yield* read(AppConfig.database)
    } satisfies Startup.FailureContext
  })

/** Prints the one line (to stderr) and fails so that the process exits with 1. */
const reportOnce = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.tapErrorCause((cause) =>
      Effect.gen(function* () {
        const line = Startup.explainFailure(cause, yield* failureContext(process.argv[2] ?? "switchboard"))
        if (Option.isSome(line)) yield* Effect.sync(() => process.stderr.write(`${line.value}\n`))
        yield* Effect.logDebug("the failure in full", Cause.pretty(cause))
      })
    )
  )

/**
 * The environment, with a variable set to the empty string read as unset (`HOST=` in a
 * `.env` file, or `${VAR:-}` in compose, means the default).
 */
const environment = ConfigProvider.fromMap(
  new Map(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "")),
  {
    pathDelim: "_",
    seqDelim: ","
  }
)

// A bad LOG_LEVEL or LOG_FORMAT must reach `reportOnce` (its one line), so the logger falls
// back to the defaults while the command checks both settings first.
reportOnce(Effect.zipRight(Effect.all([AppConfig.logLevel, AppConfig.logFormat]), cli(process.argv))).pipe(
  Effect.provide(Layer.catchAll(Logging.layer, () => Layer.empty)),
  Effect.provide(NodeContext.layer),
  Effect.withConfigProvider(environment),
  NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true })
)
