/**
 * Every call Switchboard makes to a URL a caller gave it, in one layer: caller webhook
 * deliveries (`WebhookSender`, the domain's `WebhookTransport`), feed files and feed URLs
 * (`FeedFiles`, the domain's `FeedReader`) and flow data exchanges (`FlowExchange`, the
 * domain's `CallerEndpoint`). Each goes through the one guarded client
 * (`internal/client.ts`): http(s) only, no credentials, every address the host resolves to
 * public (checked at connect time, on the addresses connected to), no redirects, a size cap
 * and a deadline.
 *
 * A refused address is reported to a caller only as `ADDRESS_NOT_ALLOWED`; what was found
 * goes to our logs.
 */
import type { FeedReader, FlowCrypto, MediaPorts, WebhookTransport } from "@switchboard/domain"
import * as MediaFiles from "./MediaFiles.js"
import { Layer } from "effect"
import * as FeedFiles from "./FeedFiles.js"
import * as FlowExchange from "./FlowExchange.js"
import { isPublicAddress as isPublic } from "./internal/address.js"
import type { ResolvedAddress, Resolver } from "./internal/resolve.js"
import { ADDRESS_NOT_ALLOWED as NOT_ALLOWED } from "./internal/target.js"
import * as WebhookSender from "./WebhookSender.js"

export type { ResolvedAddress, Resolver }

/**
 * The `reason` of every refusal of an address (private, loopback, metadata, unresolvable...):
 * callers are told only that the address is not allowed. What was found is the refusal's
 * `detail`, logged at INFO level, never shown.
 */
export const ADDRESS_NOT_ALLOWED = NOT_ALLOWED

/**
 * True only for a valid, globally routable unicast IP address (ipaddr.js range `unicast`;
 * IPv4-mapped IPv6 is judged as its IPv4 address). Loopback, private, link-local (with
 * 169.254.169.254), unique-local, unspecified, broadcast, multicast, CGNAT, reserved and
 * transition ranges (6to4, Teredo, NAT64...) are not public.
 */
export const isPublicAddress = (ip: string): boolean => isPublic(ip)

export interface OutboundOptions {
  /** Skip the address checks (local development, tests): only the scheme and format checks apply. */
  readonly allowPrivateUrls: boolean
  /** Answers every address of a host name; default `dns.promises.lookup(hostname, { all: true })`. */
  readonly resolver?: Resolver | undefined
  /** Where uploaded media files are kept (`MediaFiles`); default `./data/media`. */
  readonly mediaDirectory?: string | undefined
}

/** What `layer` provides. */
export type Services = WebhookTransport.WebhookTransport | FeedReader.FeedReader | FlowCrypto.CallerEndpoint | MediaPorts.MediaFiles

/** Every caller-URL port under the same address rules, and the media files; releasing the layer closes its pooled connections. */
export const layer = (options: OutboundOptions): Layer.Layer<Services> =>
  Layer.mergeAll(
    WebhookSender.layer(options),
    FeedFiles.layer(options),
    FlowExchange.layer(options),
    MediaFiles.layer({ directory: options.mediaDirectory ?? "./data/media" })
  )
