/**
 * Sending one message (`POST /chat/messages`): the rules that decide whether it may go (the
 * 24-hour window, opt-outs, approved templates), the record written before the operator is
 * called, and what the operator's answer changes.
 */
import { Effect, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { USER_STOPPED_MARKETING } from "../operator/ErrorCode.js"
import { MessageOperator, type OutboundMessage } from "./MessageOperator.js"
import * as Store from "../stores/Store.js"
import type * as Template from "../templates/Template.js"
import * as RichSend from "../templates/RichSend.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as FlowResponses from "../flows/FlowResponses.js"
import * as Customer from "./Customer.js"
import * as InteractiveLimits from "./InteractiveLimits.js"
import * as Message from "./Message.js"
import { CustomerRepo, MessageRepo, OptOutRepo } from "./MessagingRepo.js"
import { optOut } from "./OptOuts.js"

type Resolved = Effect.Effect.Success<ReturnType<typeof RichSend.resolve>>

const outbound = (
  input: Message.SendMessage,
  to: string,
  callbackData: string,
  flow?: FlowResponses.PreparedSend,
  rich?: Resolved
): OutboundMessage => {
  switch (input.type) {
    case "text":
      return { type: "text", to, text: input.text, callbackData }
    case "template": {
      const { name, language, parameters, header_parameters, buttons, limited_time_offer } = input.template
      return {
        type: "template",
        to,
        template: {
          name,
          language,
          parameters,
          headerParameters: header_parameters,
          buttons,
          header: rich?.header,
          cards: rich?.cards,
          limitedTimeOffer: limited_time_offer
        },
        callbackData
      }
    }
    case "interactive":
      return { type: "interactive", to, interactive: input.interactive, callbackData }
    case "flow":
      return {
        type: "interactive",
        to,
        callbackData,
        interactive: {
          type: "flow",
          body: { text: input.flow.body },
          action: {
            name: "flow",
            parameters: {
              flow_message_version: "3",
              flow_token: flow?.flowToken ?? input.flow.flow_token,
              flow_id: flow?.flow.operatorFlowId ?? input.flow.id,
              flow_cta: input.flow.cta,
              mode: flow?.mode ?? input.flow.mode ?? "published",
              flow_action: "navigate",
              ...(input.flow.screen
                ? { flow_action_payload: { screen: input.flow.screen, ...(input.flow.data ? { data: input.flow.data } : {}) } }
                : {})
            }
          }
        }
      }
  }
}

/** The approved template a template message names, with its category; refusals as the route answers them. */
const approvedTemplate = (input: Extract<Message.SendMessage, { readonly type: "template" }>) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const found = yield* (yield* TemplateRepo).find(tenant, input.template.name, input.template.language)
    if (Option.isNone(found)) {
      return yield* new Errors.ResourceNotFound({ resource: "template", id: `${input.template.name} (${input.template.language})` })
    }
    const template = found.value
    if (template.status !== "APPROVED") {
      return yield* new Errors.InvalidState({ resource: "template", status: template.status, operation: "send" })
    }
    const issues = TemplateSend.check(template.components, input.template)
    if (issues.length > 0) return yield* Errors.ValidationFailed.all(issues)
    return template
  })

/**
 * Sends one message. Outside the 24-hour window only an approved template may go; an
 * opted-out contact only receives UTILITY or AUTHENTICATION templates. The message is
 * recorded before the operator is called (its id travels as callback data), so a status
 * report reaches it even if the process dies before the operator's answer is written.
 */
export const send = (input: Message.SendMessage) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const to = Phone.normalize(input.to)
    if (to === undefined) return yield* Errors.ValidationFailed.of("to", "must be a phone number in E.164 form, e.g. +15551230001")
    if (input.type === "text" && (input.text.body.length === 0 || input.text.body.length > Message.TEXT_LIMIT)) {
      return yield* Errors.ValidationFailed.of("text.body", `must be 1 to ${Message.TEXT_LIMIT} characters`)
    }
    const limits = InteractiveLimits.check(input)
    if (limits.length > 0) return yield* Errors.ValidationFailed.all(limits)
    const template = input.type === "template" ? yield* approvedTemplate(input) : undefined
    const category: Template.Category | undefined = template?.category
    // a template with a FLOW button opens one of our flows: its button carries the send's token
    const templateFlow =
      input.type === "template" && template !== undefined
        ? yield* FlowResponses.prepareTemplateSend(tenant, template.components, input.template.buttons)
        : undefined
    const request: Message.SendMessage =
      templateFlow !== undefined && input.type === "template" ? { ...input, template: { ...input.template, buttons: templateFlow.buttons } } : input
    // a flow message names our flow: checked against the store and its status, with a token
    const flow = input.type === "flow" ? yield* FlowResponses.prepareSend(tenant, input.flow) : templateFlow?.prepared
    const now = yield* Time.now
    const customer = yield* (yield* CustomerRepo).findByPhone(tenant, to)
    if (input.type !== "template" && !Customer.windowOpen(Option.getOrUndefined(customer), now)) {
      return yield* new Errors.OutsideCustomerWindow({ to })
    }
    if (category !== "UTILITY" && category !== "AUTHENTICATION" && (yield* (yield* OptOutRepo).isOptedOut(tenant, to))) {
      return yield* new Errors.RecipientOptedOut({ to })
    }
    const message: Message.Message = {
      id: yield* Message.MessageId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      to,
      type: input.type,
      content:
        request.type === "text"
          ? request.text
          : request.type === "template"
            ? request.template
            : request.type === "flow"
              ? { ...request.flow, flow_token: flow?.flowToken }
              : request.interactive,
      status: "pending",
      operatorMessageId: null,
      error: null,
      flowToken: flow?.flowToken ?? null,
      createdAt: now,
      updatedAt: now
    }
    const account = Store.accountFor(store, tenant.mode)
    // our media ids become the operator's on the sender's number (uploaded when it has none, or an expired one)
    const rich = request.type === "template" ? yield* RichSend.resolve(tenant.storeId, account, request.template) : undefined
    const repo = yield* MessageRepo
    yield* repo.insert(tenant, message)
    if (flow !== undefined) yield* FlowResponses.recordSend(tenant, flow, message.id, to)
    const operator = yield* MessageOperator
    let result = yield* Effect.either(operator.sendMessage(account, outbound(request, to, message.id, flow, rich)))
    // the operator no longer keeps our media (expired, or unknown on this number): upload it again and send again, once
    if (
      request.type === "template" &&
      result._tag === "Left" &&
      result.left._tag === "OperatorRejected" &&
      RichSend.MEDIA_REFUSAL_CODES.has(result.left.code) &&
      RichSend.hasOwnMedia(request.template)
    ) {
      const fresh = yield* RichSend.resolve(tenant.storeId, account, request.template, "template", { fresh: true })
      result = yield* Effect.either(operator.sendMessage(account, outbound(request, to, message.id, flow, fresh)))
    }
    if (result._tag === "Left") {
      const error = result.left
      if (error._tag === "OperatorRejected") {
        yield* repo.advanceStatus(tenant, message.id, { to: "failed", from: ["pending"], error: { code: error.code, title: error.reason } })
        if (error.code === USER_STOPPED_MARKETING) yield* optOut(tenant, to, "operator_error")
      }
      // OperatorUnavailable: the operator may have taken it; a status report will tell (callback data)
      return yield* Effect.fail(error)
    }
    yield* repo.markAccepted(tenant, message.id, result.right.messageId)
    return { ...message, status: "accepted" as const, operatorMessageId: result.right.messageId }
  })
