/**
 * `switchboard stores create | list | rotate-key`: stores and their API keys, straight on the
 * database of `DATABASE_URL` (no server needed). Keys are printed once, when made; only their
 * SHA-256 is stored, so `list` shows each key's first characters (`hint`). What the commands
 * do is in `internal/stores.ts`, loaded when one runs.
 */
import { Command, Options } from "@effect/cli"
import { Effect } from "effect"

const run = Effect.promise(() => import("./internal/stores.js"))

const create = Command.make(
  "create",
  {
    name: Options.text("name").pipe(Options.withDescription("The store's name")),
    liveWabaId: Options.text("live-waba-id").pipe(Options.withDescription("The live WhatsApp Business Account id"), Options.optional),
    livePhoneNumberId: Options.text("live-phone-number-id").pipe(Options.withDescription("The live sender number's id"), Options.optional),
    liveDisplayPhone: Options.text("live-display-phone").pipe(Options.withDescription("The live number as people see it"), Options.optional)
  },
  (input) => Effect.flatMap(run, (stores) => stores.create(input))
).pipe(Command.withDescription("Create a store and print its id and keys as JSON (the keys are shown this once)"))

const list = Command.make("list", { json: Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table")) }, (input) =>
  Effect.flatMap(run, (stores) => stores.list(input))
).pipe(Command.withDescription("List the stores and their keys (first characters only; keys are never stored)"))

const rotateKey = Command.make(
  "rotate-key",
  {
    store: Options.text("store").pipe(Options.withDescription("The store's id (str_…)")),
    mode: Options.choice("mode", ["live", "test"]).pipe(Options.withDescription("Which key to rotate")),
    grace: Options.text("grace").pipe(
      Options.withDescription(
        "How long the old key keeps working: 0 (it stops now), 30m, 24h, 7d… (a running server may accept a key it checked in the last 30 s that much longer)"
      )
    )
  },
  (input) => Effect.flatMap(run, (stores) => stores.rotateKey(input))
).pipe(
  Command.withDescription(
    "Make a new key for a store (printed once, as JSON); its old key(s) of that mode keep working for the grace period, then stop"
  )
)

export const command = Command.make("stores").pipe(
  Command.withDescription("Create and list stores, rotate their keys (on the database of DATABASE_URL)"),
  Command.withSubcommands([create, list, rotateKey])
)
