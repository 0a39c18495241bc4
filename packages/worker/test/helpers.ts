/** What the worker's pacing and lane tests share. */
import type { Campaign, CampaignRecipient, CampaignRepo } from "@switchboard/domain"
import { Lane, type LaneOptions } from "../src/internal/Lane.js"

export const options: LaneOptions = {
  messagesPerSecond: 100,
  maxInFlight: 32,
  batchSize: 500,
  leaseMs: 30_000,
  leaseMarginMs: 6_000,
  pacingMarginMs: 25,
  perUserGapMs: 6_000,
  progressMs: 1_000,
  watchMs: 100,
  failurePause: { window: 20, minimum: 10, ratio: 0.5 },
  refusalBrakes: { window: 20, thresholds: { 131048: 3, 131049: 4, 131064: 2 } }
}

export const campaign = (id: string, messagesPerSecond: number | null = null): Campaign.Campaign =>
  ({
    id,
    storeId: "str_1",
    mode: "test",
    status: "active",
    messagesPerSecond,
    parameters: [],
    templateName: "t",
    templateLanguage: "en"
  }) as unknown as Campaign.Campaign

let seq = 0
export const recipients = (n: number, phone?: (i: number) => string): Array<CampaignRepo.ClaimedRecipient> =>
  Array.from({ length: n }, (_, i) => {
    const s = seq++
    return { id: `rcp_${s}` as CampaignRecipient.RecipientId, seq: s, phone: phone?.(i) ?? `+1555${String(s).padStart(7, "0")}`, parameters: null }
  })

/** A lane whose lease was claimed at 0 and whose start block (one second) has passed at `t0`. */
export const makeLane = (o: Partial<LaneOptions> = {}) => {
  let wanted = 0
  const lane = new Lane({ ...options, ...o }, 0, () => wanted++)
  return { lane, claimsWanted: () => wanted }
}

/** The largest number of times in any window [t, t + windowMs), times sorted. */
export const maxInWindow = (times: ReadonlyArray<number>, windowMs: number): number => {
  let best = 0
  let start = 0
  for (let end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= windowMs) start++
    best = Math.max(best, end - start + 1)
  }
  return best
}
