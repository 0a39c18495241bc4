#!/usr/bin/env node
/**
 * The `switchboard` CLI: `serve` (HTTP and worker, the default), `worker`, `migrate`,
 * `emulator`, `stores create`.
 */
import "./v8flags.js"
import { Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Store, StoreRepo } from "@switchboard/domain"
import * as StorePostgres from "@switchboard/store-postgres"
import * as StoreSqlite from "@switchboard/store-sqlite"
import { Console, Effect, Layer, Option } from "effect"
import * as AppConfig from "./Config.js"
import * as Layers from "./Layers.js"

const serve = Command.make("serve", {}, () => Layer.launch(Layers.layerServe)).pipe(
  Command.withDescription("Serve the HTTP API and run the worker in this process")
)

const worker = Command.make("worker", {}, () => Layer.launch(Layers.layerWorkerOnly)).pipe(
  Command.withDescription("Run only the job worker (several may run against one PostgreSQL)")
)

const emulator = Command.make("emulator", {}, () =>
  Effect.flatMap(Effect.promise(() => import("./EmulatorProcess.js")), (E) => Layer.launch(E.layer))
).pipe(Command.withDescription("Run the operator emulator as its own process: the one sandbox every server and worker names with SWITCHBOARD_EMULATOR_URL"))

const migrate = Command.make("migrate", {}, () =>
  Effect.gen(function* () {
    const db = yield* AppConfig.database
    const applied = yield* db._tag === "postgres" ? StorePostgres.migrate(db.url) : StoreSqlite.migrate(db.filename)
    yield* Console.log(JSON.stringify({ database: db._tag, applied }))
  })
).pipe(Command.withDescription("Apply database migrations (serve also applies them at start)"))

const storesCreate = Command.make(
  "create",
  {
    name: Options.text("name").pipe(Options.withDescription("The store's name")),
    liveWabaId: Options.text("live-waba-id").pipe(Options.optional),
    livePhoneNumberId: Options.text("live-phone-number-id").pipe(Options.optional),
    liveDisplayPhone: Options.text("live-display-phone").pipe(Options.optional)
  },
  ({ name, liveWabaId, livePhoneNumberId, liveDisplayPhone }) =>
    Effect.gen(function* () {
      if (name.trim().length === 0) return yield* Effect.fail("--name must not be empty")
      if (Option.isSome(liveWabaId) !== Option.isSome(livePhoneNumberId)) {
        return yield* Effect.fail("--live-waba-id and --live-phone-number-id go together")
      }
      const live: Store.OperatorAccount | null = Option.isSome(liveWabaId) && Option.isSome(livePhoneNumberId)
        ? {
            kind: "live",
            wabaId: liveWabaId.value,
            phoneNumberId: livePhoneNumberId.value,
            displayPhoneNumber: Option.getOrElse(liveDisplayPhone, () => "")
          }
        : null
      const created = yield* Store.make({ name: name.trim(), live })
      yield* (yield* StoreRepo.StoreRepo).create(created.store, created.keys)
      yield* Console.log(JSON.stringify({ id: created.store.id, live_key: created.liveKey, test_key: created.testKey }))
    }).pipe(Effect.provide(Layers.layerStore))
).pipe(Command.withDescription("Create a store and print its id and keys (shown once) as JSON"))

const stores = Command.make("stores").pipe(Command.withSubcommands([storesCreate]))

const switchboard = Command.make("switchboard").pipe(Command.withSubcommands([serve, worker, migrate, emulator, stores]))

const cli = Command.run(switchboard, { name: "switchboard", version: "0.1.0" })

cli(process.argv).pipe(
  Effect.provide(Layers.layerLogger),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
