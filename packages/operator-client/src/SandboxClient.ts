/**
 * The domain's `SandboxCustomer` over the emulator's control API (`POST /_emulator/inbound`,
 * `POST /_emulator/payments` for a payment status, and `POST /_emulator/flows/data-exchange`
 * for a flow's data endpoint):
 * the emulator plays the customer, sends the signed webhook to our inbound route, and
 * answers once it was delivered. Sandbox accounts only; runs on the shared `GraphApi`.
 */
import { SandboxCustomer } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { GraphApi } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<SandboxCustomer.SandboxCustomer["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => ({
  sendInbound: (account, input) =>
    Effect.gen(function* () {
      yield* api.registerSandboxAccount(account)
      const inbound = Graph.request(api.sandbox, "POST", Graph.controlUrl(api.sandbox, "inbound"), {
        json: {
          phone_number_id: account.phoneNumberId,
          from: input.from,
          ...(input.text !== undefined ? { text: input.text } : {}),
          ...(input.profileName !== undefined ? { profile_name: input.profileName } : {}),
          ...(input.message !== undefined ? { message: input.message } : {})
        }
      })
      const answer = yield* api.run(inbound, "write").pipe(
        Effect.mapError((failure) => {
          const error = Graph.toUnavailable(failure)
          return Graph.unavailable({
            kind: error.kind,
            code: error.code,
            reason: `the sandbox could not deliver the inbound message: ${error.reason}`
          })
        })
      )
      const body = answer.body as { readonly message_id?: unknown } | null
      return { messageId: typeof body?.message_id === "string" ? body.message_id : "" }
    }),
  sendPayment: (account, input) =>
    Effect.gen(function* () {
      yield* api.registerSandboxAccount(account)
      const call = Graph.request(api.sandbox, "POST", Graph.controlUrl(api.sandbox, "payments"), {
        json: {
          phone_number_id: account.phoneNumberId,
          to: input.to,
          reference_id: input.referenceId,
          status: input.status,
          amount: input.amount,
          currency: input.currency
        }
      })
      yield* api.run(call, "write").pipe(
        Effect.mapError((failure) => {
          const error = Graph.toUnavailable(failure)
          return Graph.unavailable({ kind: error.kind, code: error.code, reason: `the sandbox could not send the payment: ${error.reason}` })
        })
      )
    }),
  flowDataExchange: (account, input) =>
    Effect.gen(function* () {
      yield* api.registerSandboxAccount(account)
      const call = Graph.request(api.sandbox, "POST", Graph.controlUrl(api.sandbox, "flows/data-exchange"), {
        json: {
          phone_number_id: account.phoneNumberId,
          flow_id: input.flowId,
          action: input.action,
          ...(input.screen !== undefined ? { screen: input.screen } : {}),
          ...(input.data !== undefined ? { data: input.data } : {}),
          ...(input.flowToken !== undefined ? { flow_token: input.flowToken } : {}),
          ...(input.version !== undefined ? { version: input.version } : {})
        }
      })
      const answer = yield* api.run(call, "write").pipe(
        Effect.mapError((failure) => {
          const error = Graph.toUnavailable(failure)
          return Graph.unavailable({ kind: error.kind, code: error.code, reason: `the sandbox could not call the flow endpoint: ${error.reason}` })
        })
      )
      const body = (answer.body ?? {}) as {
        readonly status?: unknown
        readonly response?: unknown
        readonly error?: unknown
        readonly latency_ms?: unknown
      }
      return {
        status: typeof body.status === "number" ? body.status : 0,
        response: body.response ?? null,
        error: body.error ?? null,
        latencyMs: typeof body.latency_ms === "number" ? body.latency_ms : 0
      }
    })
}))

/** `SandboxCustomer` on the `GraphApi` in context. */
export const layer: Layer.Layer<SandboxCustomer.SandboxCustomer, never, GraphApi> = Layer.effect(SandboxCustomer.SandboxCustomer, make)
