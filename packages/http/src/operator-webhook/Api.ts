import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { BodyLimit } from "../BodyLimit.js"

/**
 * The operator's webhook: the subscription handshake (GET) and signed event deliveries
 * (POST, `X-Hub-Signature-256` over the raw body). No API key: the signature authenticates.
 */
export class OperatorWebhookGroup extends HttpApiGroup.make("operatorWebhook")
  .add(
    HttpApiEndpoint.get("handshake", "/operator/webhook")
      .setUrlParams(
        Schema.Struct({
          "hub.mode": Schema.optional(Schema.String),
          "hub.verify_token": Schema.optional(Schema.String),
          "hub.challenge": Schema.optional(Schema.String)
        })
      )
      .addSuccess(Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/plain" })))
      .addError(ApiError.Forbidden)
  )
  .add(
    HttpApiEndpoint.post("receive", "/operator/webhook")
      .annotate(BodyLimit, BodyLimit.OPERATOR_WEBHOOK)
      .addSuccess(Schema.Struct({ received: Schema.Literal(true) }))
      .addError(ApiError.Unauthorized)
  )
  .prefix("/chat") {}
