/**
 * What `campaigns watch` does, loaded only when it runs: it asks the HTTP API for the
 * campaign (through the typed client of `@switchboard/http`) until it is completed or
 * cancelled, and draws its counters as a progress bar.
 */
import { FetchHttpClient } from "@effect/platform"
import { Client } from "@switchboard/http"
import { Console, Duration, Effect, Option, Redacted } from "effect"
import * as AppConfig from "../../Config.js"
import { CliError } from "../../Startup.js"
import { FINAL, progressLine } from "../Progress.js"

const reason = (e: { readonly cause?: unknown; readonly reason?: string }): string => {
  const cause = e.cause as { readonly code?: string; readonly message?: string; readonly cause?: { readonly code?: string } } | undefined
  return cause?.cause?.code ?? cause?.code ?? cause?.message ?? e.reason ?? "no answer"
}

export const watch = (input: {
  readonly id: string
  readonly url: Option.Option<string>
  readonly key: Option.Option<Redacted.Redacted<string>>
  readonly interval: number
}) =>
  Effect.gen(function* () {
    const config = yield* AppConfig.client
    const port = yield* AppConfig.port
    const baseUrl = Option.getOrElse(
      Option.orElse(input.url, () => config.url),
      () => `http://127.0.0.1:${port}`
    ).replace(/\/$/, "")
    const apiKey = Option.orElse(input.key, () => config.apiKey).pipe(Option.filter((k) => Redacted.value(k).trim() !== ""))
    if (Option.isNone(apiKey)) {
      return yield* new CliError({ message: "campaigns watch needs the store's API key: pass --key sk_… or set SWITCHBOARD_API_KEY" })
    }
    const client = yield* Client.make({ baseUrl, apiKey: apiKey.value })
    const tty = process.stdout.isTTY === true
    let last = ""
    const poll = client.campaigns.get({ path: { id: input.id } }).pipe(
      Effect.catchTags({
        ResourceNotFound: () => new CliError({ message: `No campaign ${input.id} for this key (a test key sees test campaigns only)` }),
        RouteNotFound: () => new CliError({ message: `No campaign ${input.id} for this key (a test key sees test campaigns only)` }),
        Unauthorized: () => new CliError({ message: "The API key was refused (401): check --key or SWITCHBOARD_API_KEY" }),
        RequestError: (e) =>
          new CliError({ message: `Cannot reach Switchboard at ${baseUrl} (${reason(e)}): is it running? Set --url or SWITCHBOARD_URL.` }),
        ResponseError: (e) => new CliError({ message: `Switchboard at ${baseUrl} answered ${e.response.status}: ${e.message}` }),
        ParseError: () => new CliError({ message: `Switchboard at ${baseUrl} answered something that is not a campaign: is that the right URL?` })
      }),
      Effect.tap((campaign) =>
        Effect.suspend(() => {
          const line = progressLine(campaign)
          if (line === last) return Effect.void
          last = line
          return tty ? Effect.sync(() => process.stdout.write(`\r\x1b[2K${line}`)) : Console.log(line)
        })
      )
    )
    const pause = Duration.millis(Math.max(100, input.interval))
    const untilFinal: Effect.Effect<Effect.Effect.Success<typeof poll>, Effect.Effect.Error<typeof poll>> = Effect.flatMap(poll, (c) =>
      FINAL.has(c.status)
        ? Effect.succeed(c)
        : Effect.zipRight(
            Effect.sleep(pause),
            Effect.suspend(() => untilFinal)
          )
    )
    const final = yield* untilFinal
    if (tty) process.stdout.write("\n")
    yield* Console.log(`Campaign ${final.id} ${final.status}.`)
  }).pipe(Effect.provide(FetchHttpClient.layer))
