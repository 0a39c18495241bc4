/**
 * What campaigns tell the caller, on its webhooks: the campaign events (each emitted in the
 * transaction of the change it reports, with the campaign as the API shows it), and the
 * opt-out of a contact the operator says stopped marketing messages.
 */
import { Effect } from "effect"
import { OptOutRepo } from "../messaging/MessagingRepo.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Campaign from "./Campaign.js"

/** The caller webhook events campaigns emit. */
export const callerEvents = ["campaign.launched", "campaign.progress", "campaign.paused", "campaign.completed", "campaign.cancelled"] as const
export type CallerEvent = (typeof callerEvents)[number]

/** Records `type` for the campaign's tenant, with the campaign's JSON (and `extra` fields) as data. */
export const emit = (c: Campaign.Campaign, type: CallerEvent, extra: Record<string, unknown> = {}) =>
  Effect.zipRight(lifecycleLine(c, type, extra), Webhooks.emit(Campaign.tenantOf(c), type, { ...Campaign.toJson(c), ...extra }))

/** One INFO line when a campaign launches, pauses, completes or is cancelled (README, "Logs"); progress is not logged. */
const lifecycleLine = (c: Campaign.Campaign, type: CallerEvent, extra: Record<string, unknown>) =>
  type === "campaign.progress"
    ? Effect.void
    : Effect.logInfo(`campaign ${type.slice("campaign.".length)}`).pipe(
        Effect.annotateLogs({ campaign: c.id, store: c.storeId, mode: c.mode, name: c.name, ...extra })
      )

/** Puts `phone` on the tenant's opt-out list (source `operator_error`), with `customer.opted_out` when it was not on it. */
export const optOut = (tenant: Tenant, phone: string) =>
  Effect.gen(function* () {
    if (yield* (yield* OptOutRepo).add(tenant, phone, "operator_error")) {
      yield* Webhooks.emit(tenant, "customer.opted_out", { phone, source: "operator_error" })
    }
  })
