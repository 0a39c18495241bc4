/**
 * `POST /chat/sandbox/flows/{id}/data-exchange` (test keys only): a sandbox customer's
 * WhatsApp client calls the flow's data endpoint, as the operator does (GRAPH_API.md §5.5).
 * The emulator encrypts the request with the number's registered public key (RSA-OAEP and
 * AES-GCM), signs it with the app secret (`X-Hub-Signature-256`) and POSTs it to the flow's
 * `endpoint_uri`, which is our hosted endpoint; that one decrypts it, forwards it to the
 * caller's URL as signed plain JSON, checks and encrypts the reply; the emulator decrypts it
 * with the inverted IV. The route answers what the client saw: the hosted endpoint's HTTP
 * status and the decrypted reply (200), or its refusal (421, 427, 432, 500).
 */
import { Effect, Option, Schema } from "effect"
import { SandboxCustomer } from "../operator/SandboxCustomer.js"
import * as Errors from "../shared/Errors.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore } from "../shared/Tenant.js"
import { FlowResponseRepo } from "./FlowResponseRepo.js"
import { lookup } from "./Flows.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

export const Action = Schema.Literal("ping", "INIT", "BACK", "data_exchange", "navigate")

export const SandboxDataExchange = Schema.Struct({
  /** The sandbox customer whose client makes the call (the one the flow was sent to). */
  phone: Schema.String,
  action: Action,
  screen: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  data: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** The `flow_token` of the send; required for every action but `ping`. */
  flow_token: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  /** The data API version the client speaks (default: the Flow JSON's `data_api_version`, else 3.0). */
  version: Schema.optional(Schema.String.pipe(Schema.pattern(/^\d+\.\d+$/)))
}).annotations({ ...strict, identifier: "SandboxFlowDataExchange" })

export const SandboxDataExchangeResult = Schema.Struct({
  flow_id: Schema.String,
  action: Action,
  flow_token: Schema.NullOr(Schema.String),
  /** The hosted endpoint's HTTP status: 200, or 421, 427, 432, 500. */
  status: Schema.Int,
  /** The decrypted reply (on 200). */
  response: Schema.NullOr(Schema.Unknown),
  /** The refusal's body (otherwise). */
  error: Schema.NullOr(Schema.Unknown),
  latency_ms: Schema.Number
}).annotations({ identifier: "SandboxFlowDataExchangeResult" })

const dataApiVersion = (json: string | null): string | undefined => {
  try {
    const version = json === null ? undefined : JSON.parse(json).data_api_version
    return typeof version === "string" ? version : undefined
  } catch {
    return undefined
  }
}

export const dataExchange = (id: string, input: typeof SandboxDataExchange.Type) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
    const flow = yield* lookup(tenant, id)
    const phone = Phone.normalize(input.phone)
    if (phone === undefined) return yield* Errors.ValidationFailed.of("phone", "must be a phone number in E.164 form, e.g. +15551230001")
    if (flow.status === "DEPRECATED" || flow.status === "BLOCKED") {
      return yield* new Errors.InvalidState({ resource: "flow", status: flow.status, operation: "call the data endpoint of" })
    }
    if (flow.endpointUrl === null) {
      return yield* new Errors.InvalidState({
        resource: "flow",
        status: `${flow.status} without an endpoint`,
        operation: "call the data endpoint of"
      })
    }
    if (input.action !== "ping" && input.flow_token === undefined) {
      return yield* Errors.ValidationFailed.of("flow_token", `is required for ${input.action}: the flow_token that the send answered`)
    }
    if (input.flow_token !== undefined) {
      const send = yield* (yield* FlowResponseRepo).sendByToken(tenant, input.flow_token)
      if (Option.isSome(send) && send.value.to !== phone) {
        return yield* Errors.ValidationFailed.of("flow_token", "was sent to another customer")
      }
    }
    const seen = yield* (yield* SandboxCustomer).flowDataExchange(store.sandbox, {
      flowId: flow.operatorFlowId,
      action: input.action,
      screen: input.screen,
      data: input.data,
      flowToken: input.flow_token,
      version: input.version ?? dataApiVersion(flow.json) ?? "3.0"
    })
    return {
      flow_id: flow.id,
      action: input.action,
      flow_token: input.flow_token ?? null,
      status: seen.status,
      response: seen.response,
      error: seen.error,
      latency_ms: seen.latencyMs
    }
  })
