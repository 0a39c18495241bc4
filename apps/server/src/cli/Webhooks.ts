/**
 * `switchboard webhooks listen`: a caller-webhook receiver on this machine for development.
 * It listens on loopback, registers itself for the key's store through the HTTP API
 * (`POST /chat/webhooks`), checks each delivery's Standard Webhooks signature, prints each
 * event as one JSON line on stdout, and removes its registration on Ctrl-C. What it does is
 * in `internal/webhooks.ts`, loaded when it runs.
 */
import { Command, Options } from "@effect/cli"
import { Effect } from "effect"

const listen = Command.make(
  "listen",
  {
    key: Options.redacted("key").pipe(
      Options.withDescription("The API key of the store to receive events of (default SWITCHBOARD_API_KEY)"),
      Options.optional
    ),
    url: Options.text("url").pipe(Options.withDescription("The server (default SWITCHBOARD_URL, else http://127.0.0.1:$PORT)"), Options.optional),
    events: Options.text("events").pipe(
      Options.withDescription("The event types to receive, separated by commas (default: every type)"),
      Options.optional
    ),
    host: Options.text("host").pipe(Options.withDescription("The interface the receiver listens on"), Options.withDefault("127.0.0.1")),
    port: Options.integer("port").pipe(Options.withDescription("The receiver's port (default: any free port)"), Options.withDefault(0)),
    publicUrl: Options.text("public-url").pipe(
      Options.withDescription("The URL to register, when the server reaches this receiver by another name (default http://HOST:PORT/)"),
      Options.optional
    )
  },
  (input) =>
    Effect.flatMap(
      Effect.promise(() => import("./internal/webhooks.js")),
      (webhooks) => webhooks.listen(input)
    )
).pipe(
  Command.withDescription(
    "Receive the store's caller webhooks here: a receiver on 127.0.0.1, registered through the HTTP API, that checks each signature and prints each event as one JSON line; Ctrl-C removes the registration (the server needs SWITCHBOARD_ALLOW_PRIVATE_URLS=true)"
  )
)

export const command = Command.make("webhooks").pipe(
  Command.withDescription("Caller webhooks through the HTTP API"),
  Command.withSubcommands([listen])
)
