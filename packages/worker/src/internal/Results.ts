/**
 * What a lane hands its shell besides recipients (what to wait for, the automatic pauses to
 * apply), and the booking of a refused send into its campaign's outcomes and failure window.
 * Split from `Lane.ts`, which keeps the state these touch.
 */
import type { Campaign, CampaignLanes, CampaignLimits, CampaignRepo } from "@switchboard/domain"
import type { CampaignBook } from "./CampaignBook.js"
import type { LaneOptions } from "./LaneOptions.js"

/**
 * What the sending loop waits for when `next` hands out nothing:
 * - `idle`: nothing to send; wait for claimed recipients (`claimed` answered true), at most `waitMs`;
 * - `paced`: the pacer; sleep `waitMs`;
 * - `full`: `maxInFlight` sends in flight; wait for one to finish (`finished`), at most `waitMs`;
 * - `done`: no campaign active and nothing in flight; the lane may end;
 * - `lost`: the lease can no longer be proven; stop sending.
 */
export type Wait = "idle" | "paced" | "full" | "done" | "lost"

/** An automatic pause the shell must apply. */
export interface AutoPause {
  readonly campaign: Campaign.Campaign
  /** What `paused_reason` shows. */
  readonly reason: CampaignLimits.PausedReason
  /** What the caller event tells besides. */
  readonly detail: string
}

/**
 * The wait after the operator's per-number throughput answer (130429). The pacer already
 * keeps the rate; such an answer means the operator's clock saw a few of our sends closer
 * together than we started them, so a short pause is enough (a full second would cost a
 * second's worth of sends).
 */
export const NUMBER_THROTTLE_MS = 50

type Refused = Extract<CampaignLanes.SendResult, { readonly _tag: "Refused" }>

/**
 * Books a refusal that fails the recipient (opted out, retryable, permanent) and counts it in
 * the campaign's failure window; answers the reason of the automatic pause it calls for, if
 * the failures now exceed the threshold.
 */
export const bookRefusal = (
  book: CampaignBook,
  recipient: CampaignRepo.ClaimedRecipient,
  result: Refused,
  failurePause: LaneOptions["failurePause"]
): string | undefined => {
  const failed = { id: recipient.id, code: result.code, reason: result.reason, retryable: result.refusal === "retryable" }
  if (result.refusal === "optedOut") book.outcomes.optedOut.push(recipient.phone)
  book.outcomes.failed.push(failed)
  book.failures.record(true)
  return book.failures.exceeds(failurePause.minimum, failurePause.ratio)
    ? `${book.failures.failed} of the last ${book.failures.size} sends failed (last: code ${result.code}, ${result.reason})`
    : undefined
}
