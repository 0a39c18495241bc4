/**
 * Meta's Payments API as the emulator plays it (GRAPH_API.md §7.6). A cart (`type: "order"`
 * message) creates no payment. A payment exists only after the business sent an interactive
 * `order_details` message (action `review_and_pay`): its parameters are checked as the
 * operator checks them (code 131009 for a bad value, 131008 for a missing one), then the
 * sandbox customer pays by the number rules:
 *
 * | customer number ends in | payment status webhook, about half a second later |
 * |---|---|
 * | 0003 | `failed` (transaction `failed`, error `insufficient_funds`) |
 * | 0007 | `captured` for the requested amount plus 1.00 (a wrong amount) |
 * | anything else | `captured` for the requested amount |
 *
 * The status is a `statuses[]` entry of `type: "payment"` naming the business's
 * `reference_id`, with the amount as `{value, offset}` and the transaction (as Meta's
 * payment gateway integration sends it). `POST /_emulator/payments` sends any such status
 * at once (tests, and `POST /chat/sandbox/payments`).
 */
import { newWamid, normalizePhone } from "./Ids.js"
import { GraphErrors } from "./GraphError.js"
import { ControlError, requiredString } from "./Requests.js"
import type { ControlEdge, EmulatorContext, GraphEdge } from "./Router.js"
import { ok } from "./Router.js"
import { webhookEnvelope } from "./Webhooks.js"

/** How long the sandbox customer takes to pay. */
export const PAY_AFTER_MS = 500

const obj = (u: unknown): Record<string, unknown> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : undefined

const REFERENCE = /^[A-Za-z0-9_.-]{1,35}$/

interface Amount {
  readonly value: number
  readonly offset: number
}

const amountOf = (u: unknown, path: string): Amount => {
  const a = obj(u)
  const value = Number(a?.value)
  const offset = Number(a?.offset)
  if (a === undefined) throw GraphErrors.missingParameter(`${path} is required`)
  if (!Number.isInteger(value) || value < 0 || !Number.isInteger(offset) || offset <= 0) {
    throw GraphErrors.invalidValue(`${path} must be {value, offset} with whole numbers`)
  }
  return { value, offset }
}

/**
 * The checked parameters of an `order_details` interactive object (reference, currency and
 * total), or a refusal as the operator answers it; `undefined` for any other interactive type.
 */
export const checkOrderDetails = (
  interactive: unknown
): { readonly referenceId: string; readonly currency: string; readonly total: Amount } | undefined => {
  const i = obj(interactive)
  if (i?.type !== "order_details") return undefined
  const action = obj(i.action)
  if (action?.name !== "review_and_pay") throw GraphErrors.invalidValue("action.name must be review_and_pay for order_details")
  const p = obj(action.parameters)
  if (p === undefined) throw GraphErrors.missingParameter("action.parameters is required")
  const referenceId = p.reference_id
  if (typeof referenceId !== "string") throw GraphErrors.missingParameter("action.parameters.reference_id is required")
  if (!REFERENCE.test(referenceId)) {
    throw GraphErrors.invalidValue("reference_id must be 1 to 35 English letters, digits, underscores, dashes or dots")
  }
  if (p.type !== "digital-goods" && p.type !== "physical-goods") throw GraphErrors.invalidValue("type must be digital-goods or physical-goods")
  if (typeof p.payment_type !== "string") throw GraphErrors.missingParameter("action.parameters.payment_type is required")
  if (!Array.isArray(p.payment_settings) || p.payment_settings.length === 0) {
    throw GraphErrors.missingParameter("action.parameters.payment_settings is required")
  }
  if (typeof p.currency !== "string") throw GraphErrors.missingParameter("action.parameters.currency is required")
  const total = amountOf(p.total_amount, "total_amount")
  const order = obj(p.order)
  if (order !== undefined) {
    const items = Array.isArray(order.items) ? order.items : []
    if (items.length === 0) throw GraphErrors.missingParameter("order.items is required")
    let sum = 0
    for (const [n, raw] of items.entries()) {
      const item = obj(raw)
      const amount = amountOf(item?.amount, `order.items[${n}].amount`)
      const quantity = Number(item?.quantity)
      if (typeof item?.name !== "string" || item.name.length === 0) throw GraphErrors.missingParameter(`order.items[${n}].name is required`)
      if (!Number.isInteger(quantity) || quantity <= 0) throw GraphErrors.invalidValue(`order.items[${n}].quantity must be a whole number above 0`)
      sum += (amount.value / amount.offset) * quantity
    }
    const subtotal = amountOf(order.subtotal, "order.subtotal")
    const extra = ["tax", "shipping"].reduce((s, k) => (order[k] === undefined ? s : s + amountOf(order[k], `order.${k}`).value / total.offset), 0)
    if (Math.abs(sum - subtotal.value / subtotal.offset) > 1e-9)
      throw GraphErrors.invalidValue("order.subtotal must be the sum of the items' amounts")
    if (Math.abs(subtotal.value / subtotal.offset + extra - total.value / total.offset) > 1e-9) {
      throw GraphErrors.invalidValue("total_amount must be subtotal + tax + shipping - discount")
    }
  }
  return { referenceId, currency: p.currency, total }
}

/** The payment status webhook value of a payment of `referenceId` by customer `to`. */
export const paymentValue = (
  phone: { readonly id: string; readonly displayPhoneNumber: string },
  to: string,
  input: { readonly referenceId: string; readonly status: string; readonly amount: Amount; readonly currency: string },
  now: number
): Record<string, unknown> => {
  const seconds = String(Math.floor(now / 1000))
  const transactionStatus = input.status === "captured" ? "success" : input.status
  return {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: phone.displayPhoneNumber, phone_number_id: phone.id },
    statuses: [
      {
        id: newWamid(),
        recipient_id: to,
        status: input.status,
        timestamp: seconds,
        type: "payment",
        payment: {
          reference_id: input.referenceId,
          amount: input.amount,
          currency: input.currency,
          transaction: {
            id: `txn_${input.referenceId}_${input.status}_${now.toString(36)}`,
            type: "razorpay",
            status: transactionStatus,
            created_timestamp: Number(seconds),
            updated_timestamp: Number(seconds),
            amount: input.amount,
            currency: input.currency,
            method_type: "upi",
            ...(input.status === "failed" ? { error: { code: "insufficient_funds", reason: "insufficient_funds" } } : {})
          }
        }
      }
    ]
  }
}

/** A captured payment of a reference, as the refund call finds it. */
interface Captured {
  readonly phoneNumberId: string
  readonly to: string
  readonly currency: string
  readonly transactionId: string
  /** Captured and refunded (pending or completed), in major units. */
  captured: number
  refunded: number
}

/** Per emulator: captured payments by phone number and reference, and refund answers by idempotency key. */
const books = new WeakMap<EmulatorContext, { readonly captured: Map<string, Captured>; readonly refunds: Map<string, Record<string, unknown>> }>()
const bookOf = (ctx: EmulatorContext) => {
  let book = books.get(ctx)
  if (book === undefined) {
    book = { captured: new Map(), refunds: new Map() }
    books.set(ctx, book)
  }
  return book
}

const deliver = (
  ctx: EmulatorContext,
  phoneNumberId: string,
  to: string,
  input: { readonly referenceId: string; readonly status: string; readonly amount: Amount; readonly currency: string }
) => {
  const phone = ctx.accounts.phoneNumber(phoneNumberId)
  if (phone === undefined) return
  if (input.status === "captured") {
    const key = `${phoneNumberId}:${input.referenceId}`
    const book = bookOf(ctx)
    const previous = book.captured.get(key)
    book.captured.set(key, {
      phoneNumberId,
      to,
      currency: input.currency,
      transactionId: previous?.transactionId ?? `txn_${input.referenceId}_refundable`,
      captured: (previous?.captured ?? 0) + input.amount.value / input.amount.offset,
      refunded: previous?.refunded ?? 0
    })
  }
  ctx.webhooks.deliver(
    webhookEnvelope(phone.wabaId, "messages", paymentValue(phone, to, input, ctx.now()), ctx.now()),
    `payment of ${input.referenceId}`
  )
}

/** After an accepted `order_details` send: the sandbox customer pays by the number rules. */
export const afterSend = (ctx: EmulatorContext, phoneNumberId: string, to: string, interactive: unknown): void => {
  const details = checkOrderDetails(interactive)
  if (details === undefined) return
  const digits = to.replace(/\D/g, "")
  const status = digits.endsWith("0003") ? "failed" : "captured"
  const amount = digits.endsWith("0007") ? { ...details.total, value: details.total.value + details.total.offset } : details.total
  const timer = setTimeout(
    () => deliver(ctx, phoneNumberId, digits, { referenceId: details.referenceId, status, amount, currency: details.currency }),
    PAY_AFTER_MS
  )
  timer.unref?.()
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  {
    method: "POST",
    path: "/payments",
    handle: (ctx, request) => {
      const body = (obj(request.body()) ?? {}) as Record<string, unknown>
      const phoneNumberId = requiredString(body, "phone_number_id")
      if (ctx.accounts.phoneNumber(phoneNumberId) === undefined) throw new ControlError(404, `phone number ${phoneNumberId} is not registered`)
      const to = normalizePhone(requiredString(body, "to"))
      if (to === undefined) throw new ControlError(400, "to must be a phone number")
      const status = requiredString(body, "status")
      if (!["captured", "failed", "pending"].includes(status)) throw new ControlError(400, "status must be captured, failed or pending")
      const a = obj(body.amount)
      const amount = { value: Number(a?.value), offset: Number(a?.offset ?? 100) }
      if (!Number.isInteger(amount.value) || !Number.isInteger(amount.offset) || amount.offset <= 0) {
        throw new ControlError(400, "amount must be {value, offset} with whole numbers")
      }
      deliver(ctx, phoneNumberId, to.replace(/\D/g, ""), {
        referenceId: requiredString(body, "reference_id"),
        status,
        amount,
        currency: requiredString(body, "currency")
      })
      return ok({ accepted: true })
    }
  }
]

/** How long the payment gateway takes to settle a refund. */
export const REFUND_AFTER_MS = 1000

/** The payment status webhook value of a refund's outcome: the payment's transaction with its `refunds[]`. */
export const refundValue = (
  phone: { readonly id: string; readonly displayPhoneNumber: string },
  payment: Captured,
  referenceId: string,
  refund: { readonly id: string; readonly status: string; readonly amount: Amount },
  now: number
): Record<string, unknown> => {
  const seconds = Math.floor(now / 1000)
  const paid = { value: Math.round(payment.captured * 100), offset: 100 }
  return {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: phone.displayPhoneNumber, phone_number_id: phone.id },
    statuses: [
      {
        id: newWamid(),
        recipient_id: payment.to,
        status: "captured",
        timestamp: String(seconds),
        type: "payment",
        payment: {
          reference_id: referenceId,
          amount: paid,
          currency: payment.currency,
          transaction: {
            id: payment.transactionId,
            type: "razorpay",
            status: "success",
            created_timestamp: seconds,
            updated_timestamp: seconds,
            amount: paid,
            currency: payment.currency,
            method_type: "upi",
            refunds: [
              {
                id: refund.id,
                amount: refund.amount,
                speed_processed: "normal",
                status: refund.status,
                created_timestamp: seconds,
                updated_timestamp: seconds
              }
            ]
          }
        }
      }
    ]
  }
}

/**
 * `POST /{PHONE_NUMBER_ID}/payments_refund` (Meta's Payments API, India): a refund of a
 * captured payment named by its `reference_id`, answered `{id, status: "pending"}`; about a
 * second later its outcome arrives as a payment status webhook listing the refund. An amount
 * whose minor units end in 13 fails at the gateway (the sandbox rule). The same
 * `idempotency_key` answers the first refund again and refunds nothing more. An unknown
 * reference, or more than is left to refund, is refused with code 100.
 */
export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:phoneNumberId/payments_refund",
    handle: (ctx, request) => {
      const phoneNumberId = request.params.phoneNumberId
      const phone = ctx.accounts.phoneNumber(phoneNumberId)
      if (phone === undefined) throw GraphErrors.unknownObject(phoneNumberId)
      const body = obj(request.body()) ?? {}
      const referenceId = body.reference_id
      if (typeof referenceId !== "string" || referenceId.length === 0) throw GraphErrors.invalidParameter("reference_id is required")
      if (typeof body.payment_config_id !== "string") throw GraphErrors.invalidParameter("payment_config_id is required")
      if (body.speed !== undefined && body.speed !== "normal" && body.speed !== "instant")
        throw GraphErrors.invalidValue("speed must be normal or instant")
      const amount = amountOf(body.amount, "amount")
      const currency = obj(body.amount)?.currency
      const book = bookOf(ctx)
      const key = typeof body.idempotency_key === "string" ? `${phoneNumberId}:${body.idempotency_key}` : undefined
      const replay = key === undefined ? undefined : book.refunds.get(key)
      if (replay !== undefined) return ok(replay)
      const payment = book.captured.get(`${phoneNumberId}:${referenceId}`)
      if (payment === undefined) throw GraphErrors.invalidParameter(`no captured payment has reference_id ${referenceId}`)
      if (typeof currency === "string" && currency.toUpperCase() !== payment.currency.toUpperCase()) {
        throw GraphErrors.invalidParameter(`amount.currency must be ${payment.currency}, the payment's`)
      }
      const major = amount.value / amount.offset
      if (major <= 0 || payment.refunded + major > payment.captured + 1e-9) {
        throw GraphErrors.invalidParameter("amount must be above 0 and at most what is left to refund of the payment")
      }
      payment.refunded += major
      const refundId = `rfnd_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
      const answer = { id: refundId, status: "pending" }
      if (key !== undefined) book.refunds.set(key, answer)
      const status = Math.round(major * 100) % 100 === 13 ? "failed" : "completed"
      if (status === "failed") payment.refunded -= major
      const timer = setTimeout(() => {
        ctx.webhooks.deliver(
          webhookEnvelope(phone.wabaId, "messages", refundValue(phone, payment, referenceId, { id: refundId, status, amount }, ctx.now()), ctx.now()),
          `refund ${refundId} of ${referenceId}`
        )
      }, REFUND_AFTER_MS)
      timer.unref?.()
      return ok(answer)
    }
  }
]
