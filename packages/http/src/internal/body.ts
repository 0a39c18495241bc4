import type { HttpServerError, HttpServerRequest } from "@effect/platform"
import { Errors } from "@switchboard/domain"
import { Effect } from "effect"
import { PayloadTooLarge } from "../ApiError.js"
import { BodyLimit } from "../BodyLimit.js"
import { BodyTooLarge } from "./requestBody.js"

/** The platform's own reader limit, a backstop: `Intake` reads each route's body within its `BodyLimit`. */
export const MAX_BODY_BYTES = BodyLimit.DEFAULT

/** Turns a body-reading failure into the API's errors: 413 when too large, 400 otherwise. */
export const fromRequestError = (error: HttpServerError.RequestError): PayloadTooLarge | Errors.ValidationFailed => {
  const cause = error.cause
  if (cause instanceof BodyTooLarge) return new PayloadTooLarge({ limitBytes: cause.limitBytes })
  if (cause instanceof Error && cause.message.includes("maxBytes")) return new PayloadTooLarge({ limitBytes: MAX_BODY_BYTES })
  return Errors.ValidationFailed.of("body", "is not valid JSON")
}

/** The raw request body, for signature checks. */
export const rawBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(request.arrayBuffer, (b) => new Uint8Array(b)).pipe(Effect.catchTag("RequestError", (e) => Effect.fail(fromRequestError(e))))
