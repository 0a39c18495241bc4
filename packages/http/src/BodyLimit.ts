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
 * authenticated route reads nothing before the key is checked. A body that stops arriving
 * for `BODY_IDLE_MS` is answered 408 `request_timeout`.
 *
 * The limit is per content type: `BodyLimit` is the limit of a JSON (or any non-multipart)
 * body, always. Routes that take files take `multipart/form-data` up to their own
 * `MultipartLimit`, which is never buffered in memory: the intake spools it to a temporary
 * file (`internal/multipartBody.ts`), and only that limit may be large.
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

/**
 * The largest `multipart/form-data` body of a route that takes files (annotate the endpoint
 * with it). JSON sent to the same route is still held to the route's `BodyLimit`.
 */
export class MultipartLimit extends Context.Tag("@switchboard/http/MultipartLimit")<MultipartLimit, number>() {}
