/**
 * Order updates the customer sees (issue 28 item 3). On WhatsApp the customer learns about an
 * order through `order_status` messages tied to the payment request's `reference_id`
 * (interactive, action `review_order`; statuses `processing`, `partially-shipped`, `shipped`,
 * `completed`, `canceled`, Meta's Payments API). An order without a payment request gets a
 * text inside the 24-hour window.
 *
 * Updates are sent after the order's own change committed, outside any transaction, through
 * messaging's one send path; each is then recorded on the order with its outcome (`sent`,
 * `failed`, `skipped_outside_window`) in a short transaction of its own. A failed update never
 * undoes the order's change.
 */
import { Effect, Option } from "effect"
import { Transactor } from "../jobs/Transactor.js"
import * as Sending from "../messaging/Sending.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type * as Order from "./Order.js"
import { OrderRepo } from "./OrderRepo.js"

const WORDS: Record<Order.CustomerStatus, string> = {
  processing: "is being prepared",
  "partially-shipped": "has partly shipped",
  shipped: "has shipped",
  completed: "is complete",
  canceled: "was cancelled"
}

/** The `interactive` object of an `order_status` message (the description at most 120 characters). */
export const orderStatus = (referenceId: string, status: Order.CustomerStatus, description?: string) => ({
  type: "order_status",
  body: { text: `Your order ${WORDS[status]}` },
  action: {
    name: "review_order",
    parameters: {
      reference_id: referenceId,
      order: { status, ...(description !== undefined && description.length > 0 ? { description: description.slice(0, 120) } : {}) }
    }
  }
})

/** The text update of an order without a payment request. */
export const textUpdate = (order: Pick<Order.Order, "id">, status: Order.CustomerStatus, description?: string): string =>
  `Your order ${order.id} ${WORDS[status]}.${description ? ` ${description}` : ""}`

/** Sends one update of the order; what became of it. */
const sendOne = (order: Order.Order, status: Order.CustomerStatus, description: string | undefined) =>
  Sending.send(
    order.paymentReferenceId !== null
      ? { type: "interactive", to: order.customerPhone, interactive: orderStatus(order.paymentReferenceId, status, description) }
      : { type: "text", to: order.customerPhone, text: { body: textUpdate(order, status, description) } }
  ).pipe(
    Effect.map((sent) => ({ outcome: "sent" as const, messageId: sent.id as string | null })),
    Effect.catchAll((error) =>
      Effect.succeed({ outcome: error._tag === "OutsideCustomerWindow" ? ("skipped_outside_window" as const) : ("failed" as const), messageId: null })
    )
  )

/**
 * Tells the customer the order's new `statuses`, in order, each recorded on the order with
 * its outcome. Call outside any transaction, after the change committed. Never fails.
 */
export const notify = (tenant: Tenant, order: Order.Order, statuses: ReadonlyArray<Order.CustomerStatus>, description?: string) =>
  Effect.forEach(
    statuses,
    (status) =>
      Effect.gen(function* () {
        const sent = yield* sendOne(order, status, description)
        const update: Order.CustomerUpdate = { status, outcome: sent.outcome, messageId: sent.messageId, at: yield* Time.now }
        yield* (yield* Transactor).withTransaction(
          Effect.gen(function* () {
            const repo = yield* OrderRepo
            const held = yield* repo.lock(tenant, order.id)
            if (Option.isSome(held)) yield* repo.save(tenant, { ...held.value, customerUpdates: [...held.value.customerUpdates, update] })
          })
        )
      }),
    { discard: true }
  ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("an order update to the customer was not recorded", { order_id: order.id, cause })))

/** The statuses a change shows the customer: from `before` to `after`, shipping or not. */
export const statusesOf = (before: Order.Order, after: Order.Order, shipped: boolean): ReadonlyArray<Order.CustomerStatus> => {
  if (after.status === "cancelled" && before.status !== "cancelled") return ["canceled"]
  if (after.status === "completed" && before.status !== "completed") return shipped ? ["shipped", "completed"] : ["completed"]
  if (shipped) return ["partially-shipped"]
  if (after.status === "in_progress" && before.status === "pending") return ["processing"]
  return []
}
