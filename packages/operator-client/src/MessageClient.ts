/**
 * The domain's `MessageOperator` over the Graph API (GRAPH_API.md §3.3, Appendix B.2):
 * `POST /{phone_number_id}/messages`. Endpoints, credentials and retries come from the
 * shared `GraphApi`: a send is a `write` request (a lost answer may hide an accepted message,
 * so only rate limits are retried), or `paced` when the caller paces by itself.
 */
import { type Errors, MessageOperator, Phone, type Store, type TemplateSend } from "@switchboard/domain"
import { Effect, Either, Exit, Layer } from "effect"
import { GraphApi, type OperatorEndpoint } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

const texts = (values: ReadonlyArray<string> | Readonly<Record<string, string>>) =>
  Array.isArray(values)
    ? (values as ReadonlyArray<string>).map((text) => ({ type: "text", text }))
    : Object.entries(values).map(([parameter_name, text]) => ({ type: "text", parameter_name, text }))

const count = (values: ReadonlyArray<string> | Readonly<Record<string, string>> | undefined): number =>
  values === undefined ? 0 : Array.isArray(values) ? values.length : Object.keys(values).length

/** A button's parameter object by its sub-type (B.2): a URL's variable part or an OTP code is text, a quick reply a payload, a copy code a coupon code, a flow button an action with its flow token, a catalog or MPM button an action with its thumbnail (and an MPM's sections). */
const buttonParameter = (button: TemplateSend.ButtonParameter) =>
  button.sub_type === "quick_reply"
    ? { type: "payload", payload: button.parameter }
    : button.sub_type === "copy_code"
      ? { type: "coupon_code", coupon_code: button.parameter }
      : button.sub_type === "flow"
        ? { type: "action", action: { flow_token: button.parameter } }
        : button.sub_type === "catalog"
          ? { type: "action", action: button.parameter === "" ? {} : { thumbnail_product_retailer_id: button.parameter } }
          : button.sub_type === "mpm"
            ? {
                type: "action",
                action: {
                  thumbnail_product_retailer_id: button.parameter,
                  sections: (button.sections ?? []).map((s) => ({
                    title: s.title,
                    product_items: s.product_retailer_ids.map((product_retailer_id) => ({ product_retailer_id }))
                  }))
                }
              }
            : { type: "text", text: button.parameter }

type Part = Extract<MessageOperator.OutboundMessage, { readonly type: "template" }>["template"]
type SendHeader = NonNullable<Part["header"]>

/** A media or location header's parameter (§4.6): `{type: "image", image: {id | link}}`, a document with its `filename`, a location. */
const headerParameter = (header: SendHeader) => {
  if (header.type === "location") {
    const { type: _, ...location } = header
    return { type: "location", location }
  }
  const media: Record<string, string> = header.id !== undefined ? { id: header.id } : { link: header.link ?? "" }
  if (header.type === "document" && header.filename !== undefined) media.filename = header.filename
  return { type: header.type, [header.type]: media }
}

const buttonComponents = (buttons: ReadonlyArray<TemplateSend.ButtonParameter>) =>
  buttons.map((button) => ({ type: "button", sub_type: button.sub_type, index: String(button.index), parameters: [buttonParameter(button)] }))

/**
 * The `components` of a template send (B.2): header (text, media or location), body (by
 * position or by name), a limited-time offer's expiry, a carousel's cards, then one `button`
 * component per button parameter, by index and sub-type.
 */
export const templateComponents = (template: Part) => {
  const components: Array<Record<string, unknown>> = []
  if (template.header !== undefined) components.push({ type: "header", parameters: [headerParameter(template.header)] })
  else if (count(template.headerParameters) > 0) components.push({ type: "header", parameters: texts(template.headerParameters!) })
  if (count(template.parameters) > 0) components.push({ type: "body", parameters: texts(template.parameters) })
  if (template.limitedTimeOffer !== undefined) {
    components.push({ type: "limited_time_offer", parameters: [{ type: "limited_time_offer", limited_time_offer: template.limitedTimeOffer }] })
  }
  if (template.cards !== undefined) {
    components.push({
      type: "carousel",
      cards: template.cards.map((card, card_index) => ({
        card_index,
        components: [
          { type: "header", parameters: [headerParameter(card.header)] },
          ...(card.parameters.length > 0 ? [{ type: "body", parameters: texts(card.parameters) }] : []),
          ...buttonComponents(card.buttons as ReadonlyArray<TemplateSend.ButtonParameter>)
        ]
      }))
    })
  }
  components.push(...buttonComponents(template.buttons ?? []))
  return components
}

/** The JSON body of a send (§3.3, B.2). */
export const sendBody = (message: MessageOperator.OutboundMessage): Record<string, unknown> => {
  const body: Record<string, unknown> = {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: Phone.toWaId(message.to),
    type: message.type
  }
  switch (message.type) {
    case "text":
      body.text =
        message.text.preview_url === undefined ? { body: message.text.body } : { body: message.text.body, preview_url: message.text.preview_url }
      break
    case "template":
      body.template = {
        name: message.template.name,
        language: { code: message.template.language, policy: "deterministic" },
        components: templateComponents(message.template)
      }
      break
    case "interactive":
      body.interactive = message.interactive
      break
  }
  if (message.callbackData !== undefined) body.biz_opaque_callback_data = message.callbackData
  return body
}

type TemplatePart = Part

/** The JSON of a template part, per template object (a campaign sends one object to every recipient without parameters of their own). */
const templateTexts = new WeakMap<TemplatePart, string>()
const templateText = (template: TemplatePart): string => {
  let text = templateTexts.get(template)
  if (text === undefined) {
    text = JSON.stringify({
      name: template.name,
      language: { code: template.language, policy: "deterministic" },
      components: templateComponents(template)
    })
    templateTexts.set(template, text)
  }
  return text
}

/**
 * `JSON.stringify(sendBody(message))`, the same text, with a template's part serialized once
 * per template object (the hot path of a campaign; the parts must not be mutated).
 */
export const sendBodyText = (message: MessageOperator.OutboundMessage): string => {
  if (message.type !== "template") return JSON.stringify(sendBody(message))
  const callback = message.callbackData === undefined ? "" : `,"biz_opaque_callback_data":${JSON.stringify(message.callbackData)}`
  return `{"messaging_product":"whatsapp","recipient_type":"individual","to":${JSON.stringify(Phone.toWaId(message.to))},"type":"template","template":${templateText(message.template)}${callback}}`
}

/** The message id of a send's answer (`{ messages: [{ id }] }`), read by hand: this runs for every message of a campaign. */
const sentExit = (body: unknown): Exit.Exit<{ readonly messageId: string }, Errors.OperatorUnavailable> => {
  const id = (body as { readonly messages?: ReadonlyArray<{ readonly id?: unknown }> } | null | undefined)?.messages?.[0]?.id
  return typeof id === "string" && id !== ""
    ? Exit.succeed({ messageId: id })
    : Exit.fail(
        Graph.unavailable({
          kind: "unreachable",
          reason: "unreadable send answer (the message may have been accepted) from the operator: no messages[0].id"
        })
      )
}

const PACED: MessageOperator.SendOptions = { retryRateLimits: false }

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<MessageOperator.MessageOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  /** The hot path of a campaign: no span and no generator here (a send costs what its HTTP request costs). */
  const sendWith = (endpoint: OperatorEndpoint, account: Store.OperatorAccount, message: MessageOperator.OutboundMessage, paced: boolean) =>
    Effect.matchEffect(
      api.run(
        Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, account.phoneNumberId, "messages"), { json: sendBody(message) }),
        paced ? "paced" : "write"
      ),
      {
        onFailure: (failure) => Effect.fail(Graph.toDomainError(failure)),
        onSuccess: (answer) => sentExit(answer.body)
      }
    )
  const sendMessage = (account: Store.OperatorAccount, message: MessageOperator.OutboundMessage, options?: MessageOperator.SendOptions) =>
    Effect.flatMap(api.endpointFor(account), (endpoint) => sendWith(endpoint, account, message, options?.retryRateLimits === false))
  /** The send URL of each number, per endpoint (built once: a lane sends to one all day). */
  const urls = new WeakMap<OperatorEndpoint, Map<string, string>>()
  const messagesUrl = (endpoint: OperatorEndpoint, phoneNumberId: string): string => {
    let byNumber = urls.get(endpoint)
    if (byNumber === undefined) {
      byNumber = new Map()
      urls.set(endpoint, byNumber)
    }
    let url = byNumber.get(phoneNumberId)
    if (url === undefined) {
      if (byNumber.size >= 10_000) byNumber.clear()
      url = Graph.graphUrl(endpoint, phoneNumberId, "messages")
      byNumber.set(phoneNumberId, url)
    }
    return url
  }
  /**
   * The same paced send with no fiber once the endpoint is known (the first send of a
   * sandbox number registers it, through `sendMessage`).
   */
  const sendPaced: NonNullable<MessageOperator.MessageOperator["Type"]["sendPaced"]> = (account, message, done) => {
    const endpoint = api.readyEndpoint(account)
    if (endpoint === undefined) {
      Effect.runCallback(sendMessage(account, message, PACED), { onExit: done })
      return
    }
    api.runPaced(Graph.request(endpoint, "POST", messagesUrl(endpoint, account.phoneNumberId), { text: sendBodyText(message) }), (outcome) =>
      done(Either.isRight(outcome) ? sentExit(outcome.right.body) : Exit.fail(Graph.toDomainError(outcome.left)))
    )
  }
  const messagingTier = (account: Store.OperatorAccount) =>
    Effect.flatMap(api.endpointFor(account), (endpoint) =>
      api
        .run(
          Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, account.phoneNumberId), {
            query: { fields: "whatsapp_business_manager_messaging_limit" }
          }),
          "idempotent"
        )
        .pipe(
          Effect.mapError(Graph.toDomainError),
          Effect.flatMap((answer) => {
            const tier = (answer.body as { readonly whatsapp_business_manager_messaging_limit?: unknown } | null)
              ?.whatsapp_business_manager_messaging_limit
            return typeof tier === "string"
              ? Effect.succeed(tier)
              : Effect.fail(Graph.unavailable({ kind: "unreachable", reason: "the operator answered no whatsapp_business_manager_messaging_limit" }))
          })
        )
    )
  return { sendMessage, sendPaced, messagingTier }
})

/** `MessageOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<MessageOperator.MessageOperator, never, GraphApi> = Layer.effect(MessageOperator.MessageOperator, make)
