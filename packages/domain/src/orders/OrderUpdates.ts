/**
 * Order updates the customer sees (issue 28 item 3). On WhatsApp the customer learns about an
 * order through `order_status` messages tied to the payment request's `reference_id`
 * (interactive, action `review_order`; statuses `processing`, `partially-shipped`, `shipped`,
 * `completed`, `canceled`, Meta's Payments API). An order without a payment request gets a
 * text inside the 24-hour window and, once the window has closed, the approved template the
 * store names in its commerce settings (`order_updates_template`); without one the update is
 * `skipped_outside_window`.
 *
 * An order change that the customer hears of is a mirrored write (`shared/Mirror.ts`): the
 * change and the outbox row commit together (prepare), the sends go out after the commit,
 * outside any transaction, through messaging's one send path (call), and each update is
 * recorded on the order with its outcome, `sent`, `failed` or `skipped_outside_window`
 * (settle). A failed update never undoes the order's change: the call never fails, its
 * outcomes are recorded. A crash between the steps is finished by the mirror sweep.
 */
import { Effect, Either, Option, Schema } from "effect"
import type { OrderUpdatesTemplate } from "../commerce/CommerceSettings.js"
import { CommerceSettingsRepo } from "../commerce/CommerceSettingsRepo.js"
import type * as Message from "../messaging/Message.js"
import * as Sending from "../messaging/Sending.js"
import type { OperatorUnavailable } from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { accountFor } from "../stores/Store.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import { StoreRepo } from "../stores/StoreRepo.js"
import * as Order from "./Order.js"
import * as OrderPayments from "./OrderPayments.js"
import { OrderRepo } from "./OrderRepo.js"

const WORDS: Record<Order.CustomerStatus, string> = {
  processing: "is being prepared",
  "partially-shipped": "has partly shipped",
  shipped: "has shipped",
  completed: "is complete",
  canceled: "was cancelled"
}

/** The `interactive` object of an `order_status` message (the description at most 120 characters). */
export const orderStatus = (referenceId: string, status: Order.CustomerStatus, description?: string | null) => ({
  type: "order_status",
  body: { text: `Your order ${WORDS[status]}` },
  action: {
    name: "review_order",
    parameters: {
      reference_id: referenceId,
      order: { status, ...(description ? { description: description.slice(0, 120) } : {}) }
    }
  }
})

/** The text update of an order without a payment request. */
export const textUpdate = (order: Pick<Order.Order, "id">, status: Order.CustomerStatus, description?: string | null): string =>
  `Your order ${order.id} ${WORDS[status]}.${description ? ` ${description}` : ""}`

/** The body parameters of the order-updates template: the order's id, what happened, the description; as many as its body takes. */
const templateParameters = (order: Pick<Order.Order, "id">, status: Order.CustomerStatus, description: string | null, count: number) =>
  [order.id, WORDS[status], description ?? "-"].slice(0, count)

/** The message of one update: `order_status` for an order with a payment reference, else a text, else (outside the window) the store's template. */
const updateMessages = (order: Order.Order, status: Order.CustomerStatus, description: string | null, template: OrderUpdatesTemplate | null) =>
  Effect.gen(function* () {
    if (order.paymentReferenceId !== null)
      return [{ type: "interactive", to: order.customerPhone, interactive: orderStatus(order.paymentReferenceId, status, description) }] as const
    const text = { type: "text", to: order.customerPhone, text: { body: textUpdate(order, status, description) } } as const
    if (template === null) return [text] as const
    const found = yield* (yield* TemplateRepo).find(yield* tenantOf, template.name, template.language)
    const count = Option.match(found, { onNone: () => 0, onSome: (t) => TemplateSend.needsOf(t.components).body })
    const parameters = templateParameters(order, status, description, count)
    return [text, { type: "template", to: order.customerPhone, template: { name: template.name, language: template.language, parameters } }] as const
  })

const tenantOf = Effect.map(CurrentStore, (c) => c.tenant)

/** Sends one update of the order (needs `CurrentStore`); what became of it. Never fails. */
const sendOne = (order: Order.Order, status: Order.CustomerStatus, description: string | null, template: OrderUpdatesTemplate | null) =>
  Effect.gen(function* () {
    const [first, outsideWindow] = yield* updateMessages(order, status, description, template)
    const sent = Sending.send(first)
    return yield* outsideWindow === undefined ? sent : Effect.catchTag(sent, "OutsideCustomerWindow", () => Sending.send(outsideWindow))
  }).pipe(
    Effect.map((sent) => ({ status, outcome: "sent" as const, messageId: sent.id as string | null })),
    Effect.catchAll((error) =>
      Effect.succeed({
        status,
        outcome: error._tag === "OutsideCustomerWindow" ? ("skipped_outside_window" as const) : ("failed" as const),
        messageId: null
      })
    )
  )

/** Whether `m` is the update `status` of `order` (a sweep looks for the ones already sent). */
const isUpdate = (m: Message.Message, order: Order.Order, status: Order.CustomerStatus, description: string | null): boolean => {
  if (order.paymentReferenceId !== null)
    return (
      OrderPayments.isInteractiveFor(m, "order_status", order.paymentReferenceId) &&
      (m.content as { action: { parameters: { order: { status: string } } } }).action.parameters.order.status === status
    )
  if (m.type === "text") return (m.content as { body?: unknown }).body === textUpdate(order, status, description)
  if (m.type !== "template") return false
  const parameters = (m.content as { parameters?: unknown }).parameters
  return Array.isArray(parameters) && parameters[0] === order.id && (parameters.length < 2 || parameters[1] === WORDS[status])
}

const Payload = Schema.Struct({
  orderId: Schema.String,
  statuses: Schema.Array(Order.CustomerStatus),
  description: Schema.NullOr(Schema.String),
  /** When the change was prepared: a sweep's attempt looks for the updates sent since. */
  preparedAt: Schema.optional(Schema.Number)
})
type Payload = typeof Payload.Type

/** The mirrored write of an order's updates to its customer. */
export const CustomerUpdates = Mirror.kind({
  kind: "orders.customer_updates",
  payload: Payload,
  call: (p: Payload, ctx: Mirror.Step) =>
    Effect.gen(function* () {
      if (p.statuses.length === 0) return []
      const store = yield* (yield* StoreRepo).findById(ctx.tenant.storeId)
      const order = yield* (yield* OrderRepo).find(ctx.tenant, p.orderId as Order.OrderId)
      if (Option.isNone(store) || Option.isNone(order)) return []
      const o = order.value
      const since = p.preparedAt
      const settings = yield* (yield* CommerceSettingsRepo).find(ctx.tenant)
      const template = Option.match(settings, { onNone: () => null, onSome: (x) => x.orderUpdatesTemplate })
      // each message already sent stands for one update only (a template of one placeholder reads the same for every status)
      const counted = new Set<string>()
      return yield* Effect.forEach(p.statuses, (status) =>
        Effect.gen(function* () {
          // a sweep's attempt (after a crash between the sends and the settle): an update already sent is not sent again
          if (ctx.attempt > 1 && since !== undefined) {
            const found = yield* OrderPayments.sentSince(
              ctx.tenant,
              o.customerPhone,
              since,
              (m) => !counted.has(m.id) && isUpdate(m, o, status, p.description)
            )
            if (Option.isSome(found)) {
              counted.add(found.value.id)
              return { status, outcome: "sent" as const, messageId: found.value.id as string | null }
            }
          }
          return yield* sendOne(o, status, p.description, template)
        })
      ).pipe(Effect.provideService(CurrentStore, { store: store.value, tenant: ctx.tenant }))
      // every send's failure is an outcome: the call itself never fails
    }).pipe(Effect.mapError((e): OperatorUnavailable => e)),
  settle: (
    p: Payload,
    sent: ReadonlyArray<{ status: Order.CustomerStatus; outcome: Order.UpdateOutcome; messageId: string | null }>,
    ctx: Mirror.Step
  ) =>
    Effect.gen(function* () {
      if (sent.length === 0) return
      const at = yield* Time.now
      const repo = yield* OrderRepo
      const held = yield* repo.lock(ctx.tenant, p.orderId as Order.OrderId)
      if (Option.isSome(held)) {
        yield* repo.save(ctx.tenant, { ...held.value, customerUpdates: [...held.value.customerUpdates, ...sent.map((s) => ({ ...s, at }))] })
      }
    })
})

/** A change of an order: the route's answer, and the order before and after it (none for a replay). */
export interface Change<X> {
  readonly result: X
  readonly change?: { readonly before: Order.Order; readonly after: Order.Order; readonly shipped: boolean; readonly description?: string | null }
}

/** The statuses a change shows the customer: from `before` to `after`, shipping or not. */
export const statusesOf = (before: Order.Order, after: Order.Order, shipped: boolean): ReadonlyArray<Order.CustomerStatus> => {
  if (after.status === "cancelled" && before.status !== "cancelled") return ["canceled"]
  if (after.status === "completed" && before.status !== "completed") return shipped ? ["shipped", "completed"] : ["completed"]
  if (shipped) return ["partially-shipped"]
  if (after.status === "in_progress" && before.status === "pending") return ["processing"]
  return []
}

/**
 * Runs `change` (the order's transaction body: it holds the order) as the prepare step of a
 * mirrored write that tells the customer what changed. Answers the change's result once the
 * updates were sent and recorded (or were taken over by the sweep).
 */
export const changeAndTell = <X, E, R>(tenant: Tenant, change: Effect.Effect<Change<X>, E, R>) =>
  Effect.gen(function* () {
    const { store } = yield* CurrentStore
    let done: Change<X> | undefined
    const prepare = Effect.flatMap(change, (c) =>
      Effect.map(Time.now, (preparedAt): Payload => {
        done = c
        return c.change === undefined
          ? { orderId: "", statuses: [], description: null }
          : {
              orderId: c.change.after.id,
              statuses: statusesOf(c.change.before, c.change.after, c.change.shipped),
              description: c.change.description ?? null,
              preparedAt
            }
      })
    )
    const told = yield* Effect.either(Mirror.run(CustomerUpdates, { tenant, account: accountFor(store, tenant.mode), prepare }))
    if (done === undefined) return yield* Either.match(told, { onLeft: (e) => Effect.fail(e as E), onRight: () => Effect.die("no change") })
    return done.result
  })
