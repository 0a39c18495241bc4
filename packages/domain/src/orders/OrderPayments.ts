/**
 * Payments as WhatsApp runs them (Meta's Payments API; GRAPH_API.md §7.6). A customer's cart
 * creates no payment: the business sends an interactive `order_details` message (action
 * `review_and_pay`) carrying its own `reference_id`, the items, the amounts and the store's
 * payment settings, and the operator's payment status webhooks (`pending`, `captured`,
 * `failed`) name that reference. Payments exist in some markets only: India (`upi`, through
 * payment gateways) and Brazil (`br`: Pix, boleto, payment links).
 *
 * - `POST /chat/orders/{id}/payment-request`: a mirrored write (`shared/Mirror.ts`): prepare
 *   (a transaction: the order held, its state checked, our reference and the amount asked
 *   written, the outbox row), then the send, outside any transaction, through messaging's
 *   one send path (window, opt-out, the message recorded), then settle.
 * - a payment status is matched by reference: a capture of another amount or currency than
 *   asked is recorded as `mismatch`, pays nothing and raises `order.payment_mismatch`; an
 *   unknown reference is logged as unmatched and never retried.
 */
import { Effect, Option, Schema } from "effect"
import { CommerceSettingsRepo } from "../commerce/CommerceSettingsRepo.js"
import type { Payments } from "../commerce/CommerceSettings.js"
import type * as Message from "../messaging/Message.js"
import { MessageRepo } from "../messaging/MessagingRepo.js"
import * as Sending from "../messaging/Sending.js"
import { SandboxCustomer } from "../operator/SandboxCustomer.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Errors from "../shared/Errors.js"
import { exponent } from "../shared/Money.js"
import { JobQueue } from "../jobs/JobQueue.js"
import * as Mirror from "../shared/Mirror.js"
import * as Module from "../shared/Module.js"
import * as Time from "../shared/Time.js"
import { CurrentStore, type Mode, type Tenant } from "../shared/Tenant.js"
import { type AccountKind, accountFor, type Store } from "../stores/Store.js"
import { StoreRepo } from "../stores/StoreRepo.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type * as Order from "./Order.js"
import * as OrderMoney from "./OrderMoney.js"
import { type Payment, PaymentId } from "./OrderRecord.js"
import { OrderRecordRepo, OrderRepo } from "./OrderRepo.js"
import { eventData, lock, lookup } from "./OrderSupport.js"

/** The store has no payment configuration (`PATCH /chat/commerce/settings` `payments`). */
export class PaymentsNotConfigured extends Schema.TaggedError<PaymentsNotConfigured>()("PaymentsNotConfigured", {}) {
  override get message(): string {
    return "The store has no payment configuration: set `payments` in PATCH /chat/commerce/settings first"
  }
}

/** An amount as the operator writes it: `value / offset` major units (offset 100 for INR and BRL). */
export const operatorAmount = (minor: number, currency: string) => ({ value: minor, offset: 10 ** exponent(currency) })

/** Minor units of an operator amount (`value / offset` major units). */
export const minorUnits = (value: number, offset: number, currency: string): number =>
  Math.round((value * 10 ** exponent(currency)) / (offset > 0 ? offset : 100))

/** Our `reference_id` of an order's payment request: the order's id (letters, digits and `_`, at most 35 characters). */
export const referenceFor = (order: Pick<Order.Order, "id">): string => order.id.slice(0, 35)

/** The `interactive` object of the order's `order_details` message. */
export const orderDetails = (order: Order.Order, payments: Payments, referenceId: string) => {
  const money = (minor: number) => operatorAmount(minor, order.currency)
  return {
    type: "order_details",
    body: { text: `Your order ${order.id}: review and pay` },
    action: {
      name: "review_and_pay",
      parameters: {
        reference_id: referenceId,
        type: payments.goods_type ?? "physical-goods",
        payment_type: payments.payment_type,
        payment_settings: payments.payment_settings,
        currency: order.currency,
        total_amount: money(order.total),
        order: {
          status: "pending",
          ...(order.operatorCatalogId !== "" ? { catalog_id: order.operatorCatalogId } : {}),
          items: order.items
            .filter((i) => i.quantity > 0)
            .map((i) => ({ retailer_id: i.retailerId, name: i.name ?? i.retailerId, amount: money(i.unitPrice), quantity: i.quantity })),
          subtotal: money(order.total),
          tax: money(0),
          shipping: money(0)
        }
      }
    }
  }
}

/** The store's payment configuration, or `PaymentsNotConfigured`. */
export const paymentsOf = (tenant: Tenant) =>
  Effect.flatMap(CommerceSettingsRepo, (repo) => repo.find(tenant)).pipe(
    Effect.map(Option.flatMapNullable((s) => s.payments)),
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new PaymentsNotConfigured()), onSome: Effect.succeed }))
  )

/**
 * `POST /chat/orders/{id}/payment-request`: 409 `invalid_state` for an order paid,
 * cancelled or completed; `outside_customer_window` when the customer has not written in
 * 24 hours. A request again (after a failed payment) keeps the order's reference.
 */
export const requestPayment = (id: string) => Effect.flatMap(CurrentStore, ({ store, tenant }) => requestPaymentOf(store, tenant, id))

/** A payment request of the tenant's order `id` (the route's, and the cart's when the store asks for it). */
const requestPaymentOf = (store: Store, tenant: Tenant, id: string) =>
  Effect.gen(function* () {
    const order = yield* lookup(tenant, id)
    yield* paymentsOf(tenant)
    return yield* Mirror.run(PaymentRequest, {
      tenant,
      account: accountFor(store, tenant.mode),
      prepare: Effect.gen(function* () {
        const held = yield* lock(tenant, order.id)
        if (held.status === "cancelled" || held.status === "completed" || held.captured > 0) {
          const status = held.captured > 0 ? held.paymentStatus : held.status
          return yield* new Errors.InvalidState({ resource: "order", status, operation: "request payment for" })
        }
        const referenceId = held.paymentReferenceId ?? referenceFor(held)
        yield* (yield* OrderRepo).save(tenant, { ...held, paymentReferenceId: referenceId, requestedAmount: held.total })
        return { orderId: held.id, referenceId, preparedAt: yield* Time.now }
      })
    })
  })

const RequestPayload = Schema.Struct({ orderId: Schema.String, referenceId: Schema.String, preparedAt: Schema.optional(Schema.Number) })
type RequestPayload = typeof RequestPayload.Type

/**
 * Our message of an earlier attempt of this write (recorded by the send path before its
 * operator call): messages to the customer since the write was prepared, the first that
 * `matches` and did not fail. The sweep's `recover`: a send that went out is not sent again.
 */
export const sentSince = (tenant: Tenant, to: string, since: number, matches: (m: Message.Message) => boolean) =>
  Effect.gen(function* () {
    const slice = yield* (yield* MessageRepo).list(tenant, { limit: 50, to })
    return Option.fromNullable(slice.items.find((m) => m.createdAt >= since && m.status !== "failed" && matches(m)))
  })

const field = (u: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined), u)

/** Whether `m` is an interactive message of `type` (`order_details`, `order_status`) for `referenceId`. */
export const isInteractiveFor = (m: Message.Message, type: string, referenceId: string): boolean =>
  m.type === "interactive" && field(m.content, "type") === type && field(m.content, "action", "parameters", "reference_id") === referenceId

/**
 * The mirrored write of a payment request: prepared by `requestPayment` (our reference and
 * the amount asked, on the held order), the `order_details` send outside any transaction
 * through messaging's send path, settled with our message's id. A refusal (the window
 * closed, the operator's) is the caller's answer; the reference stays for the next request.
 */
export const PaymentRequest = Mirror.kind({
  kind: "orders.payment_request",
  payload: RequestPayload,
  call: (p: RequestPayload, ctx: Mirror.Step) =>
    Effect.gen(function* () {
      const store = yield* (yield* StoreRepo).findById(ctx.tenant.storeId)
      const order = yield* (yield* OrderRepo).find(ctx.tenant, p.orderId as Order.OrderId)
      if (Option.isNone(store) || Option.isNone(order)) return yield* new Errors.ResourceNotFound({ resource: "order", id: p.orderId })
      const payments = yield* paymentsOf(ctx.tenant)
      const interactive = orderDetails(order.value, payments, p.referenceId)
      const sent = yield* Sending.send({ type: "interactive", to: order.value.customerPhone, interactive }).pipe(
        Effect.provideService(CurrentStore, { store: store.value, tenant: ctx.tenant })
      )
      return sent.id
    }),
  settle: (p: RequestPayload, messageId: string) => Effect.succeed({ order_id: p.orderId, reference_id: p.referenceId, message_id: messageId }),
  // after a crash between the send and the settle: the message recorded since the write was prepared is the answer
  recover: (p: RequestPayload, ctx: Mirror.Step) =>
    Effect.gen(function* () {
      const order = yield* (yield* OrderRepo).find(ctx.tenant, p.orderId as Order.OrderId)
      if (Option.isNone(order) || p.preparedAt === undefined) return Option.none<string>()
      const found = yield* sentSince(ctx.tenant, order.value.customerPhone, p.preparedAt, (m) => isInteractiveFor(m, "order_details", p.referenceId))
      return Option.map(found, (m) => m.id as string)
    })
})

const OnCartPayload = Schema.Struct({ orderId: Schema.String, storeId: Schema.String, mode: Schema.Literal("live", "test") })

/**
 * The payment request a cart sends by itself when the store's payments say `request_on_cart`:
 * queued in the inbox's transaction with the new order, sent by this job through the same
 * mirrored write as the route (never an operator call inside the inbox's transaction). A
 * refusal (the window closed, the order paid meanwhile) is logged, not retried.
 */
export const RequestOnCartJob = Module.jobKind({
  kind: "orders.request_on_cart",
  payload: OnCartPayload,
  transactional: false,
  maxAttempts: 8,
  run: (p: typeof OnCartPayload.Type) =>
    Effect.gen(function* () {
      const store = yield* (yield* StoreRepo).findById(p.storeId as Store["id"])
      if (Option.isNone(store)) return
      const tenant: Tenant = { storeId: store.value.id, mode: p.mode }
      yield* requestPaymentOf(store.value, tenant, p.orderId).pipe(
        Effect.catchIf(
          (e) => e._tag !== "OperatorUnavailable",
          (e) => Effect.logWarning("the cart's payment request was not sent", { order_id: p.orderId, error: e._tag })
        )
      )
    })
})

/** Whether the tenant's payments ask for a payment request on each cart (`request_on_cart`). */
export const requestsOnCart = (tenant: Tenant) =>
  Effect.map(
    Effect.flatMap(CommerceSettingsRepo, (repo) => repo.find(tenant)),
    (settings) => Option.isSome(settings) && settings.value.payments?.request_on_cart === true
  )

/** The job that sends the cart's payment request. */
export const requestOnCartJob = (tenant: Tenant, order: Pick<Order.Order, "id">) =>
  Module.job(
    RequestOnCartJob,
    { orderId: order.id, storeId: tenant.storeId, mode: tenant.mode },
    { storeId: tenant.storeId, dedupeKey: `pay:${order.id}` }
  )

/** Queues the cart's payment request (inside the inbox's transaction) when the store's payments ask for it. */
export const requestOnCart = (tenant: Tenant, order: Pick<Order.Order, "id">) =>
  Effect.gen(function* () {
    if (!(yield* requestsOnCart(tenant))) return
    yield* (yield* JobQueue).enqueue(requestOnCartJob(tenant, order))
  })

/**
 * `POST /chat/sandbox/payments` (test keys only): the emulator sends the operator's payment
 * status for the order's reference; `amount` (minor units) and `currency` default to what
 * the request asked.
 */
export const sandboxPayment = (input: Order.SandboxPayment) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
    const order = yield* lookup(tenant, input.order_id)
    if (order.paymentReferenceId === null) {
      return yield* new Errors.InvalidState({ resource: "order", status: order.paymentStatus, operation: "pay (no payment request was sent)" })
    }
    const currency = input.currency ?? order.currency
    yield* (yield* SandboxCustomer).sendPayment(store.sandbox, {
      to: order.customerPhone,
      referenceId: order.paymentReferenceId,
      status: input.status,
      amount: operatorAmount(input.amount ?? order.requestedAmount ?? order.total, currency),
      currency
    })
    return { accepted: true as const, reference_id: order.paymentReferenceId }
  })

const modeOf = (kind: AccountKind): Mode => (kind === "live" ? "live" : "test")

/** The payment statuses applied (`captured`, `failed`, `pending`); another is ignored. */
export const appliedStatus = (event: WebhookEvent.PaymentStatus) =>
  event.status === "captured" || event.status === "failed" || event.status === "pending" ? event.status : undefined

/** Logs a payment status whose reference no order of the tenant has. */
export const logUnmatched = (event: WebhookEvent.PaymentStatus) =>
  Effect.logWarning("unmatched payment: no order of the store has this reference; not applied", {
    reference_id: event.referenceId,
    transaction_id: event.transactionId,
    status: event.status
  })

/** The record of a payment status of `order` (a new id), and its key: once per (transaction, status recorded). */
export const paymentRecord = (order: Order.Order, event: WebhookEvent.PaymentStatus, status: "captured" | "failed" | "pending") =>
  Effect.gen(function* () {
    const currency = event.currency === "" ? order.currency : event.currency.toUpperCase()
    const amount = minorUnits(event.value, event.offset, currency)
    const mismatch = status === "captured" && (currency !== order.currency || amount !== order.requestedAmount)
    const recorded = mismatch ? "mismatch" : status
    const record: Payment = {
      id: yield* PaymentId.generate,
      orderId: order.id,
      status: recorded,
      amount,
      currency,
      transactionId: event.transactionId,
      error: event.error,
      createdAt: event.timestamp,
      updatedAt: event.timestamp
    }
    return { record, key: `${event.transactionId}:${recorded}` }
  })

/**
 * What a payment status recorded for the first time does to the order it was recorded on:
 * the order changed (`undefined` for none) and the caller event to emit (if any).
 */
export const applyPayment = (
  order: Order.Order,
  event: WebhookEvent.PaymentStatus,
  record: Payment
): {
  readonly changed: Order.Order | undefined
  readonly emit: { readonly type: "order.paid" | "order.payment_mismatch"; readonly data: object } | undefined
} => {
  const now = Math.max(event.timestamp, order.updatedAt) as Order.Order["updatedAt"]
  const { amount, currency } = record
  if (record.status === "mismatch") {
    const data = { ...eventData(order), amount, currency, requested_amount: order.requestedAmount, transaction_id: event.transactionId }
    return { changed: undefined, emit: { type: "order.payment_mismatch", data } }
  }
  if (record.status === "captured") {
    const captured = order.captured + amount
    const paid: Order.Order = { ...order, captured, paymentStatus: OrderMoney.paymentStatus({ captured, refunded: order.refunded }), updatedAt: now }
    return { changed: paid, emit: { type: "order.paid", data: { ...eventData(paid), amount, transaction_id: event.transactionId } } }
  }
  const status = record.status as "failed" | "pending"
  return {
    changed: order.captured === 0 && order.paymentStatus !== status ? { ...order, paymentStatus: status, updatedAt: now } : undefined,
    emit: undefined
  }
}

/**
 * A payment status of our payment request, recorded once per (transaction, status). The
 * order's `payment_status` follows the operator's (`pending`, `failed`) until money is
 * captured; a capture of what was asked pays the order.
 */
export const onPaymentStatus = (store: Store, kind: AccountKind, event: WebhookEvent.PaymentStatus) =>
  Effect.gen(function* () {
    const status = appliedStatus(event)
    if (status === undefined) return
    const tenant: Tenant = { storeId: store.id, mode: modeOf(kind) }
    const repo = yield* OrderRepo
    const known = yield* repo.findByPaymentReference(tenant, event.referenceId)
    if (Option.isNone(known)) return yield* logUnmatched(event)
    const order = Option.getOrThrow(yield* repo.lock(tenant, known.value.id))
    const { record, key } = yield* paymentRecord(order, event, status)
    if (!(yield* (yield* OrderRecordRepo).insert(tenant, "payment", record, key))) return
    const { changed, emit } = applyPayment(order, event, record)
    if (changed !== undefined) yield* repo.save(tenant, changed)
    if (emit !== undefined) yield* Webhooks.emit(tenant, emit.type, emit.data)
  })
