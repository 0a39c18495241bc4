import { HttpApiBuilder } from "@effect/platform"
import { Errors, OperatorWebhooks, OperatorWebhookVerifier } from "@switchboard/domain"
import { Effect } from "effect"
import * as ApiError from "../ApiError.js"
import * as FastLane from "../FastLane.js"
import { apiOf } from "../internal/Handlers.js"
import { OperatorWebhookGroup } from "./Api.js"
import { rawBody } from "../internal/body.js"

const receive = (body: Uint8Array, signature: string | undefined) => Effect.as(OperatorWebhooks.receive(body, signature), { received: true as const })

/** The delivery route, which the fast lane takes when its body declares its length (`FastLane.ts`). */
export const OperatorWebhookRaw = [
  FastLane.raw(OperatorWebhookGroup, "receive", ApiError.Unauthorized, (body, header) => receive(body, header("x-hub-signature-256")))
]

export const OperatorWebhookLive = HttpApiBuilder.group(apiOf(OperatorWebhookGroup), "operatorWebhook", (handlers) =>
  handlers
    .handle("handshake", ({ urlParams }) =>
      Effect.flatMap(OperatorWebhookVerifier.OperatorWebhookVerifier, (verifier) =>
        verifier.verifyHandshake(urlParams["hub.mode"], urlParams["hub.verify_token"])
          ? Effect.succeed(urlParams["hub.challenge"] ?? "")
          : Effect.fail(new Errors.Forbidden({ message: "Verification token mismatch" }))
      )
    )
    .handle("receive", ({ request }) => Effect.flatMap(rawBody(request), (body) => receive(body, request.headers["x-hub-signature-256"])))
)
