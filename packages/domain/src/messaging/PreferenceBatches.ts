/**
 * The operator's marketing preference signals (`user_preferences`) a batch at a time, with
 * the effect of `onMarketingPreference` applied to each in turn: the same opt-out list and
 * the same caller events in the same order.
 *
 * Per tenant, one read of which of the batch's phones are on the list; each phone's signals
 * are then folded in batch order from that state (a signal that changes nothing emits nothing,
 * as `optOut` and `optIn` do), and the list is written in two set-based statements: the
 * phones taken off at some point are removed, then the phones that end on it after joining in
 * the batch are added (with this signal's source, as the last add one at a time would leave
 * them). The caller events follow, in the order of the batch. A wa_id that is no phone number
 * is skipped, as one at a time.
 */
import { Effect } from "effect"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import * as Phone from "../shared/Phone.js"
import { byTenant, type Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { modesOf } from "./InboundEvents.js"
import { OptOutRepo } from "./MessagingRepo.js"

/** One signal of a batch, for one of its tenants. */
interface Signal {
  readonly tenant: Tenant
  readonly phone: string
  readonly optedOut: boolean
}

export const onMarketingPreferences = (items: ReadonlyArray<Routed<WebhookEvent.MarketingPreference>>) =>
  Effect.gen(function* () {
    const signals: Array<Signal> = []
    for (const { store, kind, event } of items) {
      const phone = Phone.fromWaId(event.waId)
      if (phone === undefined) continue
      for (const mode of modesOf(store, kind)) signals.push({ tenant: { storeId: store.id, mode }, phone, optedOut: event.optedOut })
    }
    const repo = yield* OptOutRepo
    /** The signals that changed the list, in batch order. */
    const changed = new Set<Signal>()
    for (const { tenant, items: group } of byTenant(signals)) {
      const onList = new Set(yield* repo.filterOptedOut(tenant, [...new Set(group.map((s) => s.phone))]))
      const removed = new Set<string>()
      const joined = new Set<string>()
      for (const signal of group) {
        if (signal.optedOut === onList.has(signal.phone)) continue
        changed.add(signal)
        if (signal.optedOut) {
          onList.add(signal.phone)
          joined.add(signal.phone)
        } else {
          onList.delete(signal.phone)
          removed.add(signal.phone)
        }
      }
      // phones sorted: concurrent batches take the rows' locks in one order
      if (removed.size > 0) yield* repo.removeMany(tenant, [...removed].sort())
      const added = [...joined].filter((phone) => onList.has(phone)).sort()
      if (added.length > 0) yield* repo.addMany(tenant, added, "operator_preference")
    }
    for (const signal of signals) {
      if (!changed.has(signal)) continue
      const { tenant, phone } = signal
      if (signal.optedOut) yield* Webhooks.emit(tenant, "customer.opted_out", { phone, source: "operator_preference" })
      else yield* Webhooks.emit(tenant, "customer.opted_in", { phone })
    }
  })
