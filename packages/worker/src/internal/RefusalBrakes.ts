/**
 * The per-code refusal brakes of a campaign (issue 30): among its last `window` send
 * results, a count of refusals with one of the operator's quality codes at or above that
 * code's threshold pauses the campaign (`paused_reason: refusal_rate`). The codes:
 * - 131048, the spam rate limit (the number is restricted after blocks and reports: going on
 *   only makes it worse; each one also makes the lane wait, see `Lane.onResult`);
 * - 131049, the per-user marketing cap (each fails only its recipient, retryable later; many
 *   of them say the audience is saturated with marketing);
 * - 131064, the messaging limit hit for template-classification violations.
 * Pure and allocation-free per result: a ring of the last codes and a count per tracked code.
 */
import { OperatorErrorCode } from "@switchboard/domain"

export interface RefusalBrakeOptions {
  /** Send results the counts look back over (default 200). */
  readonly window: number
  /** Refusals of a code among them that pause the campaign (default 131048: 5, 131049: 40, 131064: 5). */
  readonly thresholds: Readonly<Record<number, number>>
}

export const DEFAULT_REFUSAL_BRAKES: RefusalBrakeOptions = {
  window: 200,
  thresholds: {
    [OperatorErrorCode.SPAM_RATE_LIMIT]: 5,
    [OperatorErrorCode.MARKETING_CAP]: 40,
    [OperatorErrorCode.TEMPLATE_CLASSIFICATION_LIMIT]: 5
  }
}

const NAMES: Readonly<Record<number, string>> = {
  [OperatorErrorCode.SPAM_RATE_LIMIT]: "spam rate limit",
  [OperatorErrorCode.MARKETING_CAP]: "per-user marketing cap",
  [OperatorErrorCode.TEMPLATE_CLASSIFICATION_LIMIT]: "messaging limit for template-classification violations"
}

export class RefusalWindow {
  private readonly codes: Int32Array
  private next = 0
  private count = 0
  private readonly counts = new Map<number, number>()

  constructor(private readonly o: RefusalBrakeOptions) {
    this.codes = new Int32Array(Math.max(1, o.window))
    for (const code of Object.keys(o.thresholds)) this.counts.set(Number(code), 0)
  }

  /** Records one send result (`code` 0: not a refusal with a tracked code); answers the detail of the pause it calls for, if any. */
  record(code: number): string | undefined {
    const tracked = this.counts.has(code) ? code : 0
    if (this.count === this.codes.length) {
      const old = this.codes[this.next]
      if (old !== 0) this.counts.set(old, this.counts.get(old)! - 1)
    } else this.count++
    this.codes[this.next] = tracked
    this.next = (this.next + 1) % this.codes.length
    if (tracked === 0) return undefined
    const n = this.counts.get(tracked)! + 1
    this.counts.set(tracked, n)
    return n >= this.o.thresholds[tracked]
      ? `${n} of the last ${this.count} sends were refused with code ${tracked} (${NAMES[tracked] ?? "operator refusal"})`
      : undefined
  }
}
