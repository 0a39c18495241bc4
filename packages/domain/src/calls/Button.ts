/**
 * The call button and the deep link (spec §4.8; GRAPH_API.md §6.5, B.4): the customer starts
 * the call, so no permission is needed. The button is the interactive `voice_call` message,
 * sent inside the customer's window only (409 `outside_customer_window` otherwise); the deep
 * link opens WhatsApp on a call to the store's business number, with an optional payload
 * echoed in the call's webhooks.
 */
import { Effect, Schema } from "effect"
import * as Sending from "../messaging/Sending.js"
import * as Errors from "../shared/Errors.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Store from "../stores/Store.js"
import { phoneOrFail } from "./Permissions.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const Text = (max: number) => Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= max) || `must be 1 to ${max} characters`))

/** `POST /chat/calls/button`. */
export const SendButton = Schema.Struct({
  phone: Schema.String,
  /** The message text above the button. */
  body: Schema.optionalWith(Text(1024), { default: () => "Call us on WhatsApp" }),
  /** The button's label (at most 20 characters; the operator's default is "Call Now"). */
  display_text: Schema.optional(Text(20)),
  /** How long the button works, 1 to 43200 minutes (the operator's default is 7 days). */
  ttl_minutes: Schema.optional(
    Schema.Number.pipe(Schema.filter((n) => (Number.isInteger(n) && n >= 1 && n <= 43_200) || "must be a whole number of minutes from 1 to 43200"))
  ),
  /** Echoed as the call's `payload` when the customer calls from this button (at most 512 characters). */
  payload: Schema.optional(Text(512))
}).annotations({ ...strict, identifier: "SendCallButton" })
export type SendButton = typeof SendButton.Type

export const ButtonSent = Schema.Struct({
  message_id: Schema.String,
  operator_message_id: Schema.NullOr(Schema.String),
  phone: Schema.String,
  status: Schema.String
}).annotations({ identifier: "CallButtonSent" })

/** `POST /chat/calls/deeplink`. */
export const MakeDeepLink = Schema.Struct({ payload: Schema.optional(Text(512)) }).annotations({ ...strict, identifier: "MakeCallDeepLink" })

export const DeepLink = Schema.Struct({ url: Schema.String, phone_number: Schema.String, payload: Schema.NullOr(Schema.String) }).annotations({
  identifier: "CallDeepLink"
})

/** Sends the `voice_call` button to a customer inside their window. */
export const sendButton = (input: SendButton) =>
  Effect.gen(function* () {
    const phone = yield* phoneOrFail(input.phone, "phone")
    const parameters = {
      ...(input.display_text === undefined ? {} : { display_text: input.display_text }),
      ...(input.ttl_minutes === undefined ? {} : { ttl_minutes: input.ttl_minutes }),
      ...(input.payload === undefined ? {} : { payload: input.payload })
    }
    const sent = yield* Sending.send({
      to: phone,
      type: "interactive",
      interactive: { type: "voice_call", body: { text: input.body }, action: { name: "voice_call", parameters } }
    })
    return { message_id: sent.id, operator_message_id: sent.operatorMessageId, phone, status: sent.status }
  })

/** The link that opens WhatsApp on a call to the store's number: `https://wa.me/call/<number>`, with `biz_payload` when given. */
export const deepLink = (input: typeof MakeDeepLink.Type) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const number = Phone.fromWaId(Store.accountFor(store, tenant.mode).displayPhoneNumber)
    if (number === undefined)
      return yield* new Errors.Forbidden({ message: "The store's business number is not a phone number; no call link can be made" })
    const base = `https://wa.me/call/${Phone.toWaId(number)}`
    const url = input.payload === undefined ? base : `${base}?${new URLSearchParams({ biz_payload: input.payload }).toString()}`
    return { url, phone_number: number, payload: input.payload ?? null }
  })
