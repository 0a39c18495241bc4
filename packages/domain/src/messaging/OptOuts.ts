/**
 * Changes to a tenant's opt-out list, each with its caller event: `customer.opted_out` when
 * a phone joins, `customer.opted_in` when it leaves. A change that changes nothing (a phone
 * already on the list, or not on it) emits nothing.
 */
import { Effect } from "effect"
import type { Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { OptOutRepo } from "./MessagingRepo.js"
import type * as OptOut from "./OptOut.js"

/** Puts `phone` on the list; answers whether it joined now. */
export const optOut = (tenant: Tenant, phone: string, source: OptOut.Source) =>
  Effect.gen(function* () {
    const added = yield* (yield* OptOutRepo).add(tenant, phone, source)
    if (added) yield* Webhooks.emit(tenant, "customer.opted_out", { phone, source })
    return added
  })

/** Takes `phone` off the list; answers whether it was on it. */
export const optIn = (tenant: Tenant, phone: string) =>
  Effect.gen(function* () {
    const removed = yield* (yield* OptOutRepo).remove(tenant, phone)
    if (removed) yield* Webhooks.emit(tenant, "customer.opted_in", { phone })
    return removed
  })
