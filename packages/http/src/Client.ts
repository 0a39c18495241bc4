/**
 * A typed client of the Switchboard API, derived from the same `HttpApi` definition the
 * server serves (`@effect/platform`'s `HttpApiClient`): one method per operation, grouped as
 * the API is (`client.templates.list`, `client.messages.send`, `client.campaigns.get`...),
 * requests encoded and answers decoded by the API's own schemas, and each error answer
 * decoded into its tagged error (`ResourceNotFound`, `ValidationFailed`...).
 *
 *   const client = yield* Client.make({ baseUrl: "http://127.0.0.1:3000", apiKey: "sk_test_…" })
 *   const page = yield* client.messages.list({ urlParams: { status: "delivered", limit: 10 } })
 *
 * It needs an `HttpClient` (`FetchHttpClient.layer` from `@effect/platform`, or
 * `NodeHttpClient.layerUndici` from `@effect/platform-node`).
 */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { type Effect, Redacted } from "effect"
import { SwitchboardApi } from "./Api.js"

export interface Options {
  /** Where the server answers, e.g. `http://127.0.0.1:3000` (no trailing `/chat`). */
  readonly baseUrl: string | URL
  /** Sent as `Authorization: Bearer <key>` on every request (health routes ignore it). */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
}

/** The client: builds once, then each method is an Effect that performs one request. */
export const make = (options: Options) =>
  HttpApiClient.make(SwitchboardApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) => {
      const key = options.apiKey
      if (key === undefined) return client
      const bearer = Redacted.isRedacted(key) ? Redacted.value(key) : key
      return HttpClient.mapRequest(client, HttpClientRequest.bearerToken(bearer))
    }
  })

/** The client's type, for code that receives one. */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>
