/** What `switchboard rates import` does, loaded only when it runs. */
import { CampaignRates, CampaignRepo } from "@switchboard/domain"
import { Console, Effect } from "effect"
import { readFile } from "node:fs/promises"
import { CliError } from "../../Startup.js"
import * as Storage from "../../Storage.js"

export const importCard = (file: string) =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => readFile(file, "utf8"),
      catch: (e) => new CliError({ message: `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}` })
    })
    const parsed = CampaignRates.parseCsv(text, file)
    if ("error" in parsed) return yield* new CliError({ message: `${file}: ${parsed.error}` })
    const count = yield* (yield* CampaignRepo.CampaignRepo).importRates(parsed.rates)
    yield* Console.log(
      JSON.stringify({ imported: count, currency: parsed.rates[0]?.currency ?? null, effective_date: CampaignRates.card(parsed.rates).effectiveDate })
    )
  }).pipe(Effect.provide(Storage.layer))
