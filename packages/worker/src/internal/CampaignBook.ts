/**
 * One campaign of a lane (see `Lane.ts`), pure: the recipients claimed and not sent yet, its
 * own pacer when it asks for less than the number's rate, its recent failures, and the
 * outcomes not written yet.
 */
import type { Campaign, CampaignRepo } from "@switchboard/domain"
import { FailureWindow, type Pacer } from "./Pacer.js"
import { type RefusalBrakeOptions, RefusalWindow } from "./RefusalBrakes.js"

type Claimed = CampaignRepo.ClaimedRecipient

/** Outcomes of one campaign not written yet. */
export interface Outcomes {
  accepted: Array<{ readonly id: Claimed["id"]; readonly operatorMessageId: string }>
  failed: Array<{ readonly id: Claimed["id"]; readonly code: number; readonly reason: string; readonly retryable: boolean }>
  released: Array<{ readonly id: Claimed["id"]; readonly seq: number }>
  /** Phones that answered 131050 (stopped marketing messages): they go on the opt-out list. */
  optedOut: Array<string>
}

const emptyOutcomes = (): Outcomes => ({ accepted: [], failed: [], released: [], optedOut: [] })

export class CampaignBook {
  active = true
  /** Its own pace when slower than the number's. */
  pacer: Pacer | undefined = undefined
  failures: FailureWindow
  /** The per-code refusal brakes' window. */
  refusals: RefusalWindow
  /** The last claim found nothing pending. */
  exhausted = false
  /** An automatic pause was asked for. */
  pausing = false
  inFlight = 0
  /** Claimed and not sent yet (in `queue` from `head`, or deferred by the lane for the per-user gap). */
  queued = 0
  outcomes: Outcomes = emptyOutcomes()
  lastProgressAt = 0
  /** When its outcomes were last taken for writing (`Lane.take`). */
  outcomesTakenAt = Number.NEGATIVE_INFINITY
  private queue: Array<Claimed> = []
  private head = 0

  constructor(
    public campaign: Campaign.Campaign,
    private readonly failureWindow: number,
    private readonly brakes: RefusalBrakeOptions
  ) {
    this.failures = new FailureWindow(failureWindow)
    this.refusals = new RefusalWindow(brakes)
  }

  /** Active again (resumed, retried): a fresh start. */
  restart(): void {
    this.active = true
    this.pausing = false
    this.exhausted = false
    this.failures = new FailureWindow(this.failureWindow)
    this.refusals = new RefusalWindow(this.brakes)
  }

  /** Recipients claimed and waiting in the queue. */
  get waiting(): number {
    return this.queue.length - this.head
  }

  /** Queues what a claim answered. */
  push(recipients: ReadonlyArray<Claimed>): void {
    for (const recipient of recipients) this.queue.push(recipient)
    this.queued += recipients.length
  }

  /** The next recipient of the queue (the queue is compacted now and then, not per message). */
  shift(): Claimed | undefined {
    if (this.head >= this.queue.length) return undefined
    const recipient = this.queue[this.head++]
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.head = 0
    }
    return recipient
  }

  /** Back to the front of the queue. */
  putBack(recipient: Claimed): void {
    if (this.head > 0) this.queue[--this.head] = recipient
    else this.queue.unshift(recipient)
  }

  /** Not sent: back to pending when the outcomes are written. */
  release(recipient: Claimed): void {
    this.outcomes.released.push({ id: recipient.id, seq: recipient.seq })
  }

  /** Releases every recipient still in the queue. */
  releaseQueue(): void {
    for (let i = this.head; i < this.queue.length; i++) {
      this.release(this.queue[i])
      this.queued--
    }
    this.queue = []
    this.head = 0
  }

  hasOutcomes(): boolean {
    const o = this.outcomes
    return o.accepted.length + o.failed.length + o.released.length + o.optedOut.length > 0
  }

  /** Hands out the outcomes to write (and starts new ones). */
  takeOutcomes(): Outcomes {
    const outcomes = this.outcomes
    this.outcomes = emptyOutcomes()
    return outcomes
  }

  /** Outcomes that could not be written go before the ones booked since. */
  restoreOutcomes(outcomes: Outcomes): void {
    const next = this.outcomes
    this.outcomes = {
      accepted: [...outcomes.accepted, ...next.accepted],
      failed: [...outcomes.failed, ...next.failed],
      released: [...outcomes.released, ...next.released],
      optedOut: [...outcomes.optedOut, ...next.optedOut]
    }
  }
}

/** A recipient on its way: taken from its campaign's queue, sent or deferred. */
export interface Item {
  readonly book: CampaignBook
  readonly recipient: Claimed
  /** When it was handed out to be sent (set by `Lane.next`). */
  startedAt: number
  /** The pacers that counted it, with its slot in each (completed by `Lane.finished`). */
  paced: ReadonlyArray<readonly [Pacer, number]>
}

/** Outcomes taken for writing (`written` or `notWritten` says how it went). */
export interface Batch {
  readonly book: CampaignBook
  readonly outcomes: Outcomes
  /** Also fold counters and emit `campaign.progress`. */
  readonly progress: boolean
}
