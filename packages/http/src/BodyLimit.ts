/**
 * The largest request body a route reads, as a setting of the route: annotate an endpoint
 * (or a group) with `BodyLimit` to change it from the default of 1 MiB.
 *
 *     HttpApiEndpoint.post("receive", "/operator/webhook").annotate(BodyLimit, BodyLimit.OPERATOR_WEBHOOK)
 *
 * Guarantees (enforced by `Intake` for every route of the API): a body declared longer than
 * the limit is refused 413 `payload_too_large` before any of it is read; a body sent in
 * chunks is read up to the limit and then refused 413 in the error envelope (the rest is
 * discarded as it arrives, never buffered, and the connection is not reset); an
 * authenticated route reads nothing before the key is checked. Routes that take files take
 * `multipart/form-data`, which is never buffered: they read it as a stream and enforce their
 * own limit with `Multipart.withLimits`.
 */
import { Context } from "effect"

const MiB = 1024 * 1024

export class BodyLimit extends Context.Tag("@switchboard/http/BodyLimit")<BodyLimit, number>() {
  /** Every route that does not say otherwise. */
  static readonly DEFAULT = 1 * MiB
  /** The operator batches events into one webhook delivery; a 413 there loses events. */
  static readonly OPERATOR_WEBHOOK = 3 * MiB
  /** A product batch carries up to 50,000 products (spec §4.2; issue "Commerce I": 32 MB). */
  static readonly PRODUCT_BATCH = 32 * MiB
}
