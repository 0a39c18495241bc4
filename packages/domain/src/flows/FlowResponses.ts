/**
 * Sending flows and receiving their responses:
 *
 * - `prepareTemplateSend`: a template with a FLOW button goes outside the window too; its
 *   button carries the token, recorded like a flow message's.
 * - `prepareSend`: a `POST /chat/messages` of type `flow` names our flow id; it is checked
 *   against the store (404 otherwise), its status against the mode (a DRAFT only in `draft`
 *   mode, a DEPRECATED or BLOCKED flow never: 409 `invalid_state`), and a `flow_token` is
 *   generated when none was given. `recordSend` keeps the token with the message.
 * - `onInboundMessage`: an `nfm_reply` message is kept as the response of the send its
 *   `flow_token` names (or unmatched), once per operator message id, and sent as the caller
 *   event `flow.response`.
 * - the routes that list responses, and the sandbox customer's submission.
 */
import { Effect, Option } from "effect"
import { SandboxCustomer } from "../operator/SandboxCustomer.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore, type Mode, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Flow from "./Flow.js"
import * as FlowResponse from "./FlowResponse.js"
import type * as Template from "../templates/Template.js"
import type * as TemplateSend from "../templates/TemplateSend.js"
import { FlowRepo } from "./FlowRepo.js"
import { FlowResponseRepo } from "./FlowResponseRepo.js"
import { lookup } from "./Flows.js"

/** What a flow message needs from the flow it names. */
export interface PreparedSend {
  readonly flow: Flow.Flow
  readonly flowToken: string
  readonly mode: "draft" | "published"
}

/** Checks the flow a flow message names and settles its token and mode. */
export const prepareSend = (
  tenant: Tenant,
  input: { readonly id: string; readonly flow_token?: string | undefined; readonly mode?: "draft" | "published" | undefined }
) =>
  Effect.gen(function* () {
    const flow = yield* lookup(tenant, input.id)
    const mode = input.mode ?? (flow.status === "DRAFT" ? "draft" : "published")
    if (!Flow.sendable(flow.status, mode)) {
      return yield* Effect.fail(new Errors.InvalidState({ resource: "flow", status: flow.status, operation: `send in ${mode} mode` }))
    }
    const flowToken = input.flow_token ?? `flt_${Id.randomToken(24)}`
    return { flow, flowToken, mode } satisfies PreparedSend
  })

/**
 * A template send whose template has a FLOW button naming one of our flows (by the operator's
 * flow id, GRAPH_API.md §4.2): the flow's status is checked as for a flow message (published
 * mode), and the button carries the send's `flow_token`: the `flow` button parameter given,
 * else a generated one added to the buttons. None when the template has no such button.
 */
export const prepareTemplateSend = (
  tenant: Tenant,
  components: ReadonlyArray<Template.Component>,
  buttons: ReadonlyArray<TemplateSend.ButtonParameter> | undefined
) =>
  Effect.gen(function* () {
    const declared = components.find((c) => c.type === "BUTTONS")?.buttons ?? []
    const index = declared.findIndex((b) => b.type === "FLOW" && b.flow_id !== undefined)
    if (index < 0) return undefined
    const found = yield* (yield* FlowRepo).findByOperatorId(tenant, declared[index].flow_id!)
    if (Option.isNone(found)) return undefined
    const flow = found.value
    if (!Flow.sendable(flow.status, "published")) {
      return yield* Effect.fail(new Errors.InvalidState({ resource: "flow", status: flow.status, operation: "send in published mode" }))
    }
    const given = buttons?.find((b) => b.index === index && b.sub_type === "flow")
    const flowToken = given?.parameter ?? `flt_${Id.randomToken(24)}`
    const withToken: ReadonlyArray<TemplateSend.ButtonParameter> =
      given !== undefined ? (buttons ?? []) : [...(buttons ?? []), { index, sub_type: "flow", parameter: flowToken }]
    return { prepared: { flow, flowToken, mode: "published" } satisfies PreparedSend, buttons: withToken }
  })

/** Keeps the token of a flow message recorded as `messageId`. */
export const recordSend = (tenant: Tenant, prepared: PreparedSend, messageId: string, to: string) =>
  Effect.gen(function* () {
    yield* (yield* FlowResponseRepo).recordSend(tenant, {
      id: yield* FlowResponse.FlowSendId.generate,
      flowId: prepared.flow.id,
      flowToken: prepared.flowToken,
      messageId,
      to,
      createdAt: yield* Time.now
    })
  })

export const modesOf = (kind: AccountKind): ReadonlyArray<Mode> => (kind === "live" ? ["live"] : ["test"])

/** The `response_json` of an `nfm_reply` message, parsed; none for any other message. */
export const nfmReplyOf = (raw: Record<string, unknown>): Option.Option<Record<string, unknown>> => {
  const interactive = raw.interactive as Record<string, unknown> | undefined
  if (raw.type !== "interactive" || interactive?.type !== "nfm_reply") return Option.none()
  const reply = interactive.nfm_reply as Record<string, unknown> | undefined
  const text = reply?.response_json
  try {
    const parsed = typeof text === "string" ? JSON.parse(text) : text
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? Option.some(parsed as Record<string, unknown>) : Option.some({})
  } catch {
    return Option.some({ raw: text })
  }
}

/** What an `nfm_reply` message carries: the customer's answer, who sent it, and the token naming the send. */
export interface Reply {
  readonly reply: Record<string, unknown>
  readonly from: string
  readonly token: string | null
}

/** The reply of an inbound message, if it is an `nfm_reply`. */
export const replyOf = (event: WebhookEvent.InboundMessage): Reply | undefined => {
  const reply = nfmReplyOf(event.raw)
  if (Option.isNone(reply)) return undefined
  return {
    reply: reply.value,
    from: Phone.fromWaId(event.from) ?? `+${event.from}`,
    token: typeof reply.value.flow_token === "string" ? reply.value.flow_token : null
  }
}

/** The response of `event` in `tenant`, tied to `send` when its token named one. */
export const responseOf = (tenant: Tenant, event: WebhookEvent.InboundMessage, reply: Reply, send: FlowResponse.FlowSend | undefined) =>
  Effect.map(
    FlowResponse.FlowResponseId.generate,
    (id): FlowResponse.FlowResponse => ({
      id,
      storeId: tenant.storeId,
      mode: tenant.mode,
      flowId: send?.flowId ?? null,
      sendId: send?.id ?? null,
      flowToken: reply.token,
      operatorMessageId: event.messageId,
      from: reply.from,
      response: reply.reply,
      receivedAt: event.timestamp
    })
  )

/** The caller event `flow.response` of a response stored. */
export const emitResponse = (tenant: Tenant, response: FlowResponse.FlowResponse, send: FlowResponse.FlowSend | undefined) =>
  Webhooks.emit(tenant, "flow.response", {
    response_id: response.id,
    flow_id: response.flowId,
    flow_token: response.flowToken,
    from: response.from,
    response: response.response,
    message_id: send?.messageId ?? null,
    operator_message_id: response.operatorMessageId,
    received_at: Time.toIso(response.receivedAt)
  })

/** A customer submitted a flow: one response per operator message id, tied by `flow_token`, and the caller event `flow.response`. */
export const onInboundMessage = (store: Store, kind: AccountKind, event: WebhookEvent.InboundMessage) =>
  Effect.gen(function* () {
    const reply = replyOf(event)
    if (reply === undefined) return
    const repo = yield* FlowResponseRepo
    for (const mode of modesOf(kind)) {
      const tenant: Tenant = { storeId: store.id, mode }
      const send = reply.token === null ? undefined : Option.getOrUndefined(yield* repo.sendByToken(tenant, reply.token))
      const response = yield* responseOf(tenant, event, reply, send)
      if (!(yield* repo.insertResponse(tenant, response))) continue
      yield* emitResponse(tenant, response, send)
    }
  })

const timeOf = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso))

/** `GET /chat/flows/{id}/responses`. */
/** A page of the tenant's responses: the query's paging, token and time window, narrowed by `scope`. */
const responsePage = (
  tenant: Tenant,
  query: typeof FlowResponse.ListResponses.Type,
  scope: { readonly flowId?: Flow.FlowId; readonly unmatched?: boolean | undefined }
) =>
  Effect.map(
    Effect.flatMap(FlowResponseRepo, (repo) =>
      repo.list(tenant, {
        limit: query.limit,
        after: query.cursor,
        ...scope,
        flowToken: query.flow_token,
        since: timeOf(query.since),
        until: timeOf(query.until)
      })
    ),
    (slice) => Pagination.pageOf(slice, FlowResponse.FlowResponseId.schema, (r) => r.id)
  )

export const listForFlow = (id: string, query: typeof FlowResponse.ListResponses.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const flow = yield* lookup(tenant, id)
    return yield* responsePage(tenant, query, { flowId: flow.id })
  })

/** `GET /chat/flow-responses`: every response of the tenant, or only the unmatched ones. */
export const listAll = (query: typeof FlowResponse.ListAllResponses.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    return yield* responsePage(tenant, query, { unmatched: query.unmatched })
  })

/**
 * `POST /chat/sandbox/flow-responses` (test keys only): the sandbox customer submits a flow;
 * the emulator sends the real `nfm_reply` webhook, answered 202 once delivered.
 */
export const sandboxResponse = (input: typeof FlowResponse.SandboxFlowResponse.Type) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
    const phone = Phone.normalize(input.phone)
    if (phone === undefined) return yield* Errors.ValidationFailed.of("phone", "must be a phone number in E.164 form, e.g. +15551230001")
    const message = {
      type: "interactive",
      interactive: {
        type: "nfm_reply",
        nfm_reply: { name: "flow", body: "Sent", response_json: JSON.stringify({ ...input.response, flow_token: input.flow_token }) }
      }
    }
    const sent = yield* (yield* SandboxCustomer).sendInbound(store.sandbox, { from: phone, message })
    return { accepted: true as const, flow_token: input.flow_token, operator_message_id: sent.messageId }
  })
