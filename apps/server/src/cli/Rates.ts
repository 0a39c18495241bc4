/**
 * `switchboard rates import FILE.csv`: replaces the rate card (the operator's price per
 * template category and recipient country) on the database of `DATABASE_URL`. The CSV's
 * header names `category,country,calling_code,price,currency,effective_date[,source]`; a
 * sample card ships in `rates/sample-rate-card.csv`. Dry runs estimate with it, and
 * `GET /chat/campaigns/{id}` counts `cost` with it.
 */
import { Args, Command } from "@effect/cli"
import { Effect } from "effect"

const run = Effect.promise(() => import("./internal/rates.js"))

const importCard = Command.make("import", { file: Args.text({ name: "FILE.csv" }) }, (input) =>
  Effect.flatMap(run, (rates) => rates.importCard(input.file))
).pipe(Command.withDescription("Replace the rate card with a CSV file's rows and print how many it holds"))

export const command = Command.make("rates").pipe(
  Command.withDescription("The operator's rate card campaigns are priced with (on the database of DATABASE_URL)"),
  Command.withSubcommands([importCard])
)
