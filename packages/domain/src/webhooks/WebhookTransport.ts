import { Context, Data, Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import type { Millis } from "../shared/Time.js"

/**
 * The URL may not receive webhooks: it resolves to a private, loopback, link-local or
 * metadata address (or to nothing), or is malformed. `reason` may be shown to the caller: for
 * an address it says only that the address is not allowed, never what the resolver answered
 * (that would let any key holder map internal DNS). `detail` says what was found, for the
 * service's own logs only.
 */
export class UrlRefused extends Data.TaggedError("UrlRefused")<{
  readonly url: string
  readonly reason: string
  readonly detail?: string | undefined
}> {}

/** The attempt did not get an HTTP answer (timeout, connection refused, TLS...). */
export class DeliveryFailed extends Data.TaggedError("DeliveryFailed")<{ readonly reason: string }> {}

export interface SignedDelivery {
  readonly url: string
  /** Becomes `webhook-id`; stable across retries. */
  readonly messageId: string
  /** Becomes `webhook-timestamp` (in seconds); signed with the id and payload. */
  readonly timestamp: Millis
  readonly secret: string
  /** The JSON body. */
  readonly payload: string
}

/**
 * Delivers caller webhooks over HTTP(S), signed per Standard Webhooks. Guards every
 * connection against SSRF: the address actually connected to must be public (unless
 * private URLs are allowed for local development), and redirects are never followed.
 */
export class WebhookTransport extends Context.Tag("@switchboard/domain/WebhookTransport")<
  WebhookTransport,
  {
    /** Checks a URL at registration: scheme http(s), and every address its host resolves to is public. */
    readonly checkUrl: (url: string) => Effect.Effect<void, UrlRefused>
    /** One attempt; answers the HTTP status, or fails with the reason (refused address, timeout, network). */
    readonly deliver: (delivery: SignedDelivery) => Effect.Effect<{ readonly status: number }, UrlRefused | DeliveryFailed>
  }
>() {}

/** The longest URL a caller may give us to call. */
export const MAX_URL_LENGTH = 2000

/**
 * The one rule for a URL a caller gives us to call later (a flow's data endpoint, a feed's
 * upload or schedule URL), checked when it is given: an http(s) URL of at most 2000
 * characters whose host is a public address (the transport's `checkUrl`: no loopback,
 * private, link-local or metadata address, in any spelling, and a name that resolves only
 * to public addresses), unless private URLs are allowed (development and tests). A refusal
 * is a `ValidationFailed` naming `field`. The call itself checks the address again, on the
 * address it connects to.
 */
export const checkCallerUrl = (field: string, url: string): Effect.Effect<void, Errors.ValidationFailed, WebhookTransport> =>
  !/^https?:\/\/[^\s]+$/.test(url) || url.length > MAX_URL_LENGTH
    ? Effect.fail(Errors.ValidationFailed.of(field, "must be an http(s) URL"))
    : Effect.flatMap(WebhookTransport, (transport) =>
        Effect.mapError(transport.checkUrl(url), (refused) => Errors.ValidationFailed.of(field, refused.reason))
      )
