/**
 * `switchboard campaigns watch <id>`: a live progress bar of a campaign, drawn from the
 * counters the HTTP API answers (`GET /chat/campaigns/:id`), until the campaign is completed
 * or cancelled. On a terminal the bar is redrawn in place; otherwise a line is printed each
 * time the counters change. What it does is in `internal/campaigns.ts`, loaded when it runs.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"

const watch = Command.make(
  "watch",
  {
    id: Args.text({ name: "campaign-id" }).pipe(Args.withDescription("The campaign's id (cmp_…)")),
    url: Options.text("url").pipe(Options.withDescription("The server (default SWITCHBOARD_URL, else http://127.0.0.1:$PORT)"), Options.optional),
    key: Options.redacted("key").pipe(Options.withDescription("The API key of the campaign's store (default SWITCHBOARD_API_KEY)"), Options.optional),
    interval: Options.integer("interval-ms").pipe(Options.withDescription("How often to ask, in milliseconds"), Options.withDefault(1000))
  },
  (input) =>
    Effect.flatMap(
      Effect.promise(() => import("./internal/campaigns.js")),
      (campaigns) => campaigns.watch(input)
    )
).pipe(Command.withDescription("Show a live progress bar of a campaign until it completes or is cancelled (calls the HTTP API)"))

export const command = Command.make("campaigns").pipe(
  Command.withDescription("Follow campaigns through the HTTP API"),
  Command.withSubcommands([watch])
)
