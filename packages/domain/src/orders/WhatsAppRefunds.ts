/**
 * Refunds of orders paid through WhatsApp (a capture of our payment request, issue 28 item 4):
 * a mirrored write (`WhatsAppRefund`). The refund is written `pending` on the held order (it
 * counts against the refundable amount at once), the operator's `payments_refund` call goes
 * out after the commit with our idempotency key, and its outcome arrives as a payment status
 * webhook listing `transaction.refunds[]` (`onRefundWebhook`), which completes or fails it.
 *
 * An outcome can arrive before our settle has recorded the operator's refund id (the webhook
 * overtook the call's answer): it is then held by a short job (`RefundOutcomeJob`) that
 * matches it again once the settle has committed, instead of being dropped.
 */
import { Effect, Option, Schema } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Mirror from "../shared/Mirror.js"
import * as Module from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type * as Order from "./Order.js"
import { OrderOperator } from "./OrderOperator.js"
import * as OrderPayments from "./OrderPayments.js"
import type { Refund } from "./OrderRecord.js"
import { OrderRecordRepo, OrderRepo } from "./OrderRepo.js"
import { eventData, withRefund } from "./OrderSupport.js"

/** Whether the order was paid through WhatsApp (a capture of our payment request): its refunds go through the operator. */
export const paidThroughWhatsApp = (order: Pick<Order.Order, "paymentReferenceId" | "captured">): boolean =>
  order.paymentReferenceId !== null && order.captured > 0

export const RefundPayload = Schema.Struct({ orderId: Schema.String, refundId: Schema.String, replay: Schema.Boolean })
export type RefundPayload = typeof RefundPayload.Type

const refundOf = (tenant: Tenant, p: RefundPayload) =>
  Effect.flatMap(OrderRecordRepo, (records) => records.find(tenant, "refund", p.refundId)).pipe(Effect.flatMap(Id.orNotFound("refund", p.refundId)))

/** The payment configuration's name the refund names (`payment_settings[].payment_gateway.configuration_name`). */
const configurationName = (settings: ReadonlyArray<Record<string, unknown>>): string => {
  for (const s of settings) {
    const gateway = s.payment_gateway
    if (typeof gateway === "object" && gateway !== null && typeof (gateway as Record<string, unknown>).configuration_name === "string") {
      return (gateway as Record<string, string>).configuration_name
    }
  }
  return ""
}

/**
 * The mirrored write of a refund through the operator: prepared by `createRefund` (the
 * `pending` refund on the held order), the operator's `payments_refund` call with the write's
 * key as its idempotency key (a sweep's retry reuses it, so the operator refunds once), settled
 * with the operator's refund id. A refusal fails the refund and gives its amount back.
 */
export const WhatsAppRefund = Mirror.kind({
  kind: "orders.refund",
  payload: RefundPayload,
  call: (p: RefundPayload, ctx: Mirror.Step) =>
    Effect.gen(function* () {
      if (p.replay) return Option.none<string>()
      const refund = yield* refundOf(ctx.tenant, p)
      const order = yield* (yield* OrderRepo).find(ctx.tenant, p.orderId as Order.OrderId)
      if (Option.isNone(order) || order.value.paymentReferenceId === null)
        return yield* new Errors.ResourceNotFound({ resource: "order", id: p.orderId })
      // settings cleared since the payment: the operator judges the refund without a configuration name
      const payments = yield* OrderPayments.paymentsOf(ctx.tenant).pipe(
        Effect.catchTag("PaymentsNotConfigured", () => Effect.succeed({ payment_settings: [] as ReadonlyArray<Record<string, unknown>> }))
      )
      const answer = yield* (yield* OrderOperator).refundPayment(ctx.account, {
        referenceId: order.value.paymentReferenceId,
        paymentConfigId: configurationName(payments.payment_settings),
        amount: OrderPayments.operatorAmount(refund.amount, refund.currency),
        currency: refund.currency,
        idempotencyKey: ctx.key
      })
      return Option.some(answer.refundId)
    }),
  settle: (p: RefundPayload, answer: Option.Option<string>, ctx: Mirror.Step) =>
    Effect.gen(function* () {
      const refund = yield* refundOf(ctx.tenant, p)
      if (Option.isNone(answer) || refund.operatorRefundId) return refund
      const recorded: Refund = { ...refund, operatorRefundId: answer.value, updatedAt: yield* Time.now }
      yield* (yield* OrderRecordRepo).update(ctx.tenant, "refund", recorded)
      return recorded
    }),
  compensate: (p: RefundPayload, _error: unknown, ctx: Mirror.Step) =>
    Effect.orDie(settleRefund(ctx.tenant, p.orderId as Order.OrderId, p.refundId, "failed", null))
})

/**
 * A refund's outcome (`completed` or `failed`) on the held order: a failure gives its amount
 * back to the refundable amount; a completion raises `order.refunded`. Once only: a refund no
 * longer `pending` is left as it is.
 */
export const settleRefund = (
  tenant: Tenant,
  orderId: Order.OrderId,
  refundId: string,
  outcome: "completed" | "failed",
  operatorRefundId: string | null
) =>
  Effect.gen(function* () {
    const repo = yield* OrderRepo
    const records = yield* OrderRecordRepo
    const order = yield* repo.lock(tenant, orderId)
    const refund = yield* records.find(tenant, "refund", refundId)
    if (Option.isNone(order) || Option.isNone(refund) || refund.value.status !== "pending") return
    const now = Math.max(yield* Time.now, order.value.updatedAt) as Time.Millis
    yield* records.update(tenant, "refund", {
      ...refund.value,
      status: outcome,
      operatorRefundId: refund.value.operatorRefundId ?? operatorRefundId,
      updatedAt: now
    })
    if (outcome === "failed") {
      const next = withRefund(order.value, -refund.value.amount, now)
      yield* repo.save(tenant, next)
      return
    }
    yield* repo.save(tenant, { ...order.value, updatedAt: now })
    yield* Webhooks.emit(tenant, "order.refunded", { ...eventData(order.value), refund_id: refundId, amount: refund.value.amount })
  })

/**
 * A payment status webhook that lists refunds (`transaction.refunds[]`): their outcomes are
 * applied to the order of its reference; the payment itself was recorded by its own status.
 */
export const onRefundWebhook = (store: Store, kind: AccountKind, event: WebhookEvent.PaymentStatus) =>
  Effect.gen(function* () {
    const tenant: Tenant = { storeId: store.id, mode: kind === "live" ? "live" : "test" }
    const order = yield* (yield* OrderRepo).findByPaymentReference(tenant, event.referenceId)
    if (Option.isNone(order)) {
      return yield* Effect.logWarning("refund outcome for a reference we do not know; not applied", { reference_id: event.referenceId })
    }
    yield* onRefundOutcomes(tenant, order.value.id, event.refunds)
  })

/** The outcomes of the order's refunds that a payment status webhook lists (`transaction.refunds[]`), by the operator's refund id. */
export const onRefundOutcomes = (tenant: Tenant, orderId: Order.OrderId, outcomes: ReadonlyArray<{ readonly id: string; readonly status: string }>) =>
  Effect.gen(function* () {
    const refunds = yield* (yield* OrderRecordRepo).all(tenant, "refund", orderId)
    for (const outcome of outcomes) {
      const status = outcome.status === "completed" || outcome.status === "failed" ? outcome.status : undefined
      if (status === undefined) continue
      const refund = refunds.find((r) => r.operatorRefundId === outcome.id)
      if (refund !== undefined) {
        yield* settleRefund(tenant, orderId, refund.id, status, outcome.id)
        continue
      }
      // the outcome overtook our settle: matched again once the settle has recorded the operator's id
      if (refunds.some(awaitingOperatorId)) {
        const now = yield* Time.now
        yield* (yield* JobQueue).enqueue(
          Module.job(
            RefundOutcomeJob,
            { storeId: tenant.storeId, mode: tenant.mode, orderId, operatorRefundId: outcome.id, status },
            { storeId: tenant.storeId, runAt: now + 1000, dedupeKey: `refund-outcome:${outcome.id}:${status}` }
          )
        )
        continue
      }
      yield* Effect.logWarning("refund outcome for a refund we do not know; not applied", { order_id: orderId, refund_id: outcome.id, status })
    }
  })

/** A refund through the operator whose call's answer (the operator's refund id) is not recorded yet. */
const awaitingOperatorId = (r: Refund): boolean => r.channel === "whatsapp" && r.status === "pending" && !r.operatorRefundId

const OutcomePayload = Schema.Struct({
  storeId: Schema.String,
  mode: Schema.Literal("live", "test"),
  orderId: Schema.String,
  operatorRefundId: Schema.String,
  status: Schema.Literal("completed", "failed")
})

/**
 * An outcome that arrived before its refund's settle: applied once the operator's refund id is
 * recorded; retried (with the queue's backoff) while a refund of the order still awaits its id,
 * dropped with a warning when none does any more.
 */
export const RefundOutcomeJob = Module.jobKind({
  kind: "orders.refund_outcome",
  payload: OutcomePayload,
  maxAttempts: 10,
  run: (p: typeof OutcomePayload.Type) =>
    Effect.gen(function* () {
      const tenant: Tenant = { storeId: p.storeId as Tenant["storeId"], mode: p.mode }
      const refunds = yield* (yield* OrderRecordRepo).all(tenant, "refund", p.orderId as Order.OrderId)
      const refund = refunds.find((r) => r.operatorRefundId === p.operatorRefundId)
      if (refund !== undefined) return yield* settleRefund(tenant, p.orderId as Order.OrderId, refund.id, p.status, p.operatorRefundId)
      if (refunds.some(awaitingOperatorId)) return yield* new Errors.ResourceNotFound({ resource: "refund", id: p.operatorRefundId })
      yield* Effect.logWarning("refund outcome for a refund we do not know; not applied", { order_id: p.orderId, refund_id: p.operatorRefundId })
    })
})
