import { HttpApiBuilder } from "@effect/platform"
import { Errors, OperatorWebhooks, OperatorWebhookVerifier } from "@switchboard/domain"
import { Effect } from "effect"
import { apiOf } from "../internal/Handlers.js"
import { OperatorWebhookGroup } from "./Api.js"
import { rawBody } from "../internal/body.js"

export const OperatorWebhookLive = HttpApiBuilder.group(apiOf(OperatorWebhookGroup), "operatorWebhook", (handlers) =>
  handlers
    .handle("handshake", ({ urlParams }) =>
      Effect.flatMap(OperatorWebhookVerifier.OperatorWebhookVerifier, (verifier) =>
        verifier.verifyHandshake(urlParams["hub.mode"], urlParams["hub.verify_token"])
          ? Effect.succeed(urlParams["hub.challenge"] ?? "")
          : Effect.fail(new Errors.Forbidden({ message: "Verification token mismatch" }))
      )
    )
    .handle("receive", ({ request }) =>
      Effect.gen(function* () {
        const body = yield* rawBody(request)
        yield* OperatorWebhooks.receive(body, request.headers["x-hub-signature-256"])
        return { received: true as const }
      })
    )
)
