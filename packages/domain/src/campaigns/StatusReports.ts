/**
 * Status reports for campaign sends: the operator's message status webhooks whose callback
 * data is a recipient id (`rcp_…`, the callback prefix campaigns own).
 */
import { Effect, Option } from "effect"
import * as OperatorErrorCode from "../operator/ErrorCode.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Time from "../shared/Time.js"
import type * as Store from "../stores/Store.js"
import { CampaignLaneRepo } from "./CampaignRepo.js"
import * as Events from "./Events.js"
import * as Recipient from "./Recipient.js"

/** Compare-and-set rounds against concurrent reports of the same recipient before giving up (each lost round means another report moved it). */
const ROUNDS = 20

/**
 * A status report for a campaign send, matched by our callback data (the recipient id)
 * within the store that owns the sending number. Moves the recipient forward and adds
 * exactly what changed to the campaign's counters, in one transaction with a
 * compare-and-set: the same report delivered 1,000 times changes state once. A failure
 * with 131050 also puts the phone on the opt-out list. Answers whether it matched.
 */
export const onRecipientStatus = (store: Store.Store, event: WebhookEvent.MessageStatus) =>
  Effect.gen(function* () {
    const id = event.callbackData
    if (id === null || !Recipient.RecipientId.is(id)) return false
    const lanes = yield* CampaignLaneRepo
    let found = yield* lanes.findRecipient(store.id, id)
    if (Option.isNone(found)) return false
    const report: Recipient.Report = { status: event.status, at: event.timestamp, error: event.error }
    for (let round = 0; round < ROUNDS && Option.isSome(found); round++) {
      const ref = found.value
      const next = Recipient.advance(ref.progress, report)
      if (next === undefined) return true
      const changed = yield* lanes.advanceRecipient(ref, next, event.messageId, Recipient.counterDelta(ref.progress, next), yield* Time.now)
      if (changed) {
        if (next.status === "failed" && next.failure?.code === OperatorErrorCode.USER_STOPPED_MARKETING && ref.phone !== null) {
          yield* Events.optOut({ storeId: ref.storeId, mode: ref.mode }, ref.phone)
        }
        return true
      }
      found = yield* lanes.findRecipient(store.id, id)
    }
    return true
  })
