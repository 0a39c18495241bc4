import { HttpApiBuilder } from "@effect/platform"
import { Errors, InboxIntake, OperatorWebhooks, OperatorWebhookVerifier } from "@switchboard/domain"
import { Context, Effect, Exit } from "effect"
import * as ApiError from "../ApiError.js"
import * as FastLane from "../FastLane.js"
import { apiOf } from "../internal/Handlers.js"
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../internal/validation.js"
import { OperatorWebhookGroup } from "./Api.js"
import { rawBody } from "../internal/body.js"

const received = { received: true as const }

const receive = (body: Uint8Array, signature: string | undefined) => Effect.as(OperatorWebhooks.receive(body, signature), received)

/**
 * The outcomes the direct path hands to the route's handler to be answered the usual way
 * (a failed store; the first success, whose answer is kept), by the body of the request.
 */
const outcomes = new WeakMap<Uint8Array, Exit.Exit<unknown>>()

const route = FastLane.raw(OperatorWebhookGroup, "receive", ApiError.Unauthorized, (body, header) => {
  const outcome = outcomes.get(body)
  if (outcome === undefined) return receive(body, header("x-hub-signature-256"))
  outcomes.delete(body)
  return Effect.as(outcome, received)
})

/**
 * The delivery route, which the fast lane takes when its body declares its length (`FastLane.ts`).
 * Its success runs no fiber (`direct`): the signature is checked at once and the body offered
 * to the group commit (`OperatorWebhooks.receiveNow`), and the answer, once stored, is the
 * success `handle` rendered (the same bytes for every POST: `{"received":true}`). A body
 * nested too deep, a bad signature and a failed store go to `handle`, which answers and logs
 * them as before.
 */
export const OperatorWebhookRaw = [
  {
    ...route,
    direct: (runtime, usual) => {
      const receiveNow = OperatorWebhooks.receiveNow(
        Context.get(runtime.context, OperatorWebhookVerifier.OperatorWebhookVerifier),
        Context.get(runtime.context, InboxIntake.Intake)
      )
      let success: FastLane.Answer | undefined
      return (body, contentType, header, done) => {
        if (nestedDeeperThan(body, MAX_JSON_DEPTH)) return usual(body, contentType, header, done)
        const taken = receiveNow(body, header("x-hub-signature-256"), (exit) => {
          if (Exit.isSuccess(exit) && success !== undefined) return done(success)
          outcomes.set(body, exit)
          usual(body, contentType, header, (answer) => {
            if (Exit.isSuccess(exit) && answer.status === 200) success = answer
            done(answer)
          })
        })
        if (!taken) usual(body, contentType, header, done)
      }
    }
  } satisfies FastLane.RawRoute<OperatorWebhookVerifier.OperatorWebhookVerifier | InboxIntake.Intake>
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
