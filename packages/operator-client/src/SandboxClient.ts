/**
 * The domain's `SandboxCustomer` over the emulator's control API (`POST /_emulator/inbound`,
 * `POST /_emulator/payments` for a payment status, and `POST /_emulator/flows/data-exchange`
 * for a flow's data endpoint):
 * the emulator plays the customer, sends the signed webhook to our inbound route, and
 * answers once it was delivered. Sandbox accounts only; runs on the shared `GraphApi`.
 */
import { SandboxCustomer, type Store } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { GraphApi } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

/**
 * A `POST /_emulator/{path}` of the control API for a sandbox account (registered first), not
 * retried: the emulator acts on it (a webhook sent). A failure says the sandbox could not `what`.
 */
const control = (api: GraphApi["Type"], account: Store.OperatorAccount, path: string, json: unknown, what: string) =>
  Effect.zipRight(
    api.registerSandboxAccount(account),
    api.run(Graph.request(api.sandbox, "POST", Graph.controlUrl(api.sandbox, path), { json }), "write").pipe(
      Effect.mapError((failure) => {
        const error = Graph.toUnavailable(failure)
        return Graph.unavailable({ kind: error.kind, code: error.code, reason: `the sandbox could not ${what}: ${error.reason}` })
      })
    )
  )

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<SandboxCustomer.SandboxCustomer["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => ({
  sendInbound: (account, input) =>
    Effect.gen(function* () {
      const inbound = {
        phone_number_id: account.phoneNumberId,
        from: input.from,
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.profileName !== undefined ? { profile_name: input.profileName } : {}),
        ...(input.message !== undefined ? { message: input.message } : {})
      }
      const answer = yield* control(api, account, "inbound", inbound, "deliver the inbound message")
      const body = answer.body as { readonly message_id?: unknown } | null
      return { messageId: typeof body?.message_id === "string" ? body.message_id : "" }
    }),
  sendPayment: (account, input) =>
    control(
      api,
      account,
      "payments",
      {
        phone_number_id: account.phoneNumberId,
        to: input.to,
        reference_id: input.referenceId,
        status: input.status,
        amount: input.amount,
        currency: input.currency
      },
      "send the payment"
    ).pipe(Effect.asVoid),
  flowDataExchange: (account, input) =>
    Effect.gen(function* () {
      const exchange = {
        phone_number_id: account.phoneNumberId,
        flow_id: input.flowId,
        action: input.action,
        ...(input.screen !== undefined ? { screen: input.screen } : {}),
        ...(input.data !== undefined ? { data: input.data } : {}),
        ...(input.flowToken !== undefined ? { flow_token: input.flowToken } : {}),
        ...(input.version !== undefined ? { version: input.version } : {})
      }
      const answer = yield* control(api, account, "flows/data-exchange", exchange, "call the flow endpoint")
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
