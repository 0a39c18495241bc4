/**
 * Customers' messages and operator notices a batch at a time (the inbox's), with the effect
 * of applying each in turn (`onInboundMessage`, `onOperatorNotice`): the same rows, the same
 * caller events in the same order.
 *
 * Per tenant, the batch's messages are recorded in one multi-row insert that skips the wamids
 * stored before (a replay) and answers the ones it stored; a wamid twice in the batch is
 * stored once, for its first. For customer messages, the fresh ones are folded by phone in
 * the order of the batch (the first's wa_id and new id, the last profile name given, the
 * latest time), as one upsert after another would leave the customer, and every phone's
 * customer is written in one upsert. Then, in the order of the batch, each fresh message's
 * `message.received` and the STOP/START keyword it carries (`received`). A sender whose
 * wa_id is no phone number is left to the per-event path (which logs it).
 */
import { Effect } from "effect"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import * as Phone from "../shared/Phone.js"
import { byTenant, type Tenant } from "../shared/Tenant.js"
import type * as Time from "../shared/Time.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type { Customer } from "./Customer.js"
import { customerOf, modesOf, onInboundMessage, onOperatorNotice, received, recordOf } from "./InboundEvents.js"
import { CustomerInboundRepo, type InboundCustomer, InboundMessageRepo } from "./MessagingRepo.js"

/** One event of a batch as recorded: its tenant and its event (the handlers' working set; exported for the declarations of the module). */
export interface Received<E> {
  readonly tenant: Tenant
  readonly event: E
  readonly phone: string
}

/**
 * Records each tenant's messages of `items` (those with a phone; the others go to `alone`)
 * in one insert; answers the ones stored now, in the order of the batch.
 */
const record = <E extends WebhookEvent.InboundMessage | WebhookEvent.OperatorNotice, R>(
  items: ReadonlyArray<Routed<E>>,
  phoneOf: (event: E) => string | null,
  alone: (item: Routed<E>) => Effect.Effect<unknown, never, R>
) =>
  Effect.gen(function* () {
    const all: Array<Received<E>> = []
    for (const item of items) {
      const from = phoneOf(item.event)
      const phone = from === null ? undefined : Phone.fromWaId(from)
      if (phone === undefined) yield* alone(item)
      else for (const mode of modesOf(item.store, item.kind)) all.push({ tenant: { storeId: item.store.id, mode }, event: item.event, phone })
    }
    const repo = yield* InboundMessageRepo
    const fresh = new Set<Received<E>>()
    for (const { tenant, items: group } of byTenant(all)) {
      const firsts = new Map<string, Received<E>>()
      for (const r of group) if (!firsts.has(r.event.messageId)) firsts.set(r.event.messageId, r)
      // inserted in the order of their wamids: concurrent batches take the unique index's locks in one order
      const rows = yield* Effect.forEach([...firsts.values()], (r) => recordOf(r.event, r.phone))
      const stored = yield* repo.recordMany(
        tenant,
        rows.sort((a, b) => (a.operatorMessageId < b.operatorMessageId ? -1 : 1))
      )
      for (const [wamid, r] of firsts) if (stored.has(wamid)) fresh.add(r)
    }
    return all.filter((r) => fresh.has(r))
  })

export const onInboundMessages = (items: ReadonlyArray<Routed<WebhookEvent.InboundMessage>>) =>
  Effect.gen(function* () {
    const fresh = yield* record(
      items,
      (event) => event.from,
      (item) => onInboundMessage(item.store, item.kind, item.event)
    )
    const repo = yield* CustomerInboundRepo
    const customers = new Map<Received<WebhookEvent.InboundMessage>, Customer>()
    for (const { tenant, items: group } of byTenant(fresh)) {
      const byPhone = new Map<string, InboundCustomer>()
      for (const { event, phone } of group) {
        const before = byPhone.get(phone)
        byPhone.set(
          phone,
          before === undefined
            ? yield* customerOf(event, phone)
            : { ...before, profileName: event.profileName ?? before.profileName, at: Math.max(before.at, event.timestamp) as Time.Millis }
        )
      }
      const rows = yield* repo.recordInbounds(tenant, [...byPhone.values()])
      for (const r of group) customers.set(r, rows.get(r.phone)!)
    }
    for (const r of fresh) yield* received(r.tenant, customers.get(r)!.id, r.phone, r.event)
  }).pipe(Webhooks.batched)

export const onOperatorNotices = (items: ReadonlyArray<Routed<WebhookEvent.OperatorNotice>>) =>
  record(
    items,
    (event) => event.from,
    (item) => onOperatorNotice(item.store, item.kind, item.event)
  )
