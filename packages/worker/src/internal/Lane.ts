/**
 * The bookkeeping of one sender number's lane, pure: no I/O, no clock of its own (every
 * method that depends on time takes `now`), so it is proved on a simulated clock
 * (`test/campaign-lane.test.ts`). `CampaignLane` is the Effect shell around it.
 *
 * What it keeps: per active campaign (`CampaignBook`), the recipients claimed and not sent
 * yet, its own pacer, its recent failures and its unwritten outcomes; the number's pacer
 * (and the previous one for a second after a change of rate), the per-user gaps and the
 * recipients deferred for them; the lease (the lane sends only while it can prove, locally,
 * that its lease holds).
 *
 * What it decides: which recipient goes next (round-robin over the campaigns, one message
 * each), whether to send it now or how long to wait (`next`), what a send's result does
 * (`onResult`; a refusal's booking is `Results.ts`), which campaign to claim for and how
 * many, and which outcomes to write. The hot path (`next`, `finished`, `onResult`)
 * allocates nothing per message beyond the item it hands out and the outcome it records.
 */
import type { Campaign, CampaignLanes, CampaignRepo } from "@switchboard/domain"
import { type Batch, CampaignBook, type Item } from "./CampaignBook.js"
import type { LaneOptions } from "./LaneOptions.js"
import { Pacer, UserGaps } from "./Pacer.js"
import { type AutoPause, bookRefusal, NUMBER_THROTTLE_MS, type Wait } from "./Results.js"

export type { Batch, CampaignBook, Item, Outcomes } from "./CampaignBook.js"
export type { LaneOptions } from "./LaneOptions.js"
export type { AutoPause, Wait } from "./Results.js"

export class Lane {
  private readonly books = new Map<string, CampaignBook>()
  /** The campaigns in the order the sender takes turns (`books`' values, kept in step with it). */
  private order: Array<CampaignBook> = []
  /** Position in `order` of the campaign whose turn is next. */
  private turn = 0
  private roundRobin = 0
  private readonly deferred: Array<{ readonly item: Item; readonly readyAt: number }> = []
  private pacer: Pacer
  private previousPacer: { readonly pacer: Pacer; readonly until: number } | undefined
  private readonly gaps: UserGaps
  private unknownStreak = 0
  private lastBeat: number
  private lost = false
  /** Sends in flight. */
  inFlight = 0
  /** Set by `next` when it hands out nothing: what to wait for, and how long at most. */
  wait: Wait = "idle"
  waitMs = 0

  /**
   * @param claimedAt when the claim that leased the lane's job started
   * @param claimWanted called when a campaign may want a claim (the shell wakes its feeder)
   */
  constructor(
    private readonly o: LaneOptions,
    claimedAt: number,
    private readonly claimWanted: () => void
  ) {
    this.lastBeat = claimedAt
    this.gaps = new UserGaps(o.perUserGapMs)
    this.pacer = new Pacer(o.messagesPerSecond, o.pacingMarginMs)
    // The previous holder of this number's lane (a crashed worker, or the last generation
    // that just went idle) may have sent up to a second's worth right before: start after
    // a full window, so the two never share one.
    this.pacer.block(claimedAt + 1000 + o.pacingMarginMs)
  }

  // ---- the lease -----------------------------------------------------------------------

  leaseValid(now: number): boolean {
    return !this.lost && now - this.lastBeat < this.o.leaseMs - this.o.leaseMarginMs
  }

  /** A heartbeat (or a claim, which heartbeats) that started at `startedAt` succeeded. */
  beat(startedAt: number): void {
    if (startedAt > this.lastBeat) this.lastBeat = startedAt
  }

  /** The lease was taken over: nothing more is sent or claimed. */
  lose(): void {
    this.lost = true
  }

  // ---- campaigns -----------------------------------------------------------------------

  /** The campaigns the lane knows (a snapshot). */
  campaigns(): ReadonlyArray<CampaignBook> {
    return this.order.slice()
  }

  anyActive(): boolean {
    for (const book of this.order) if (book.active) return true
    return false
  }

  private rateOf(c: Campaign.Campaign): number {
    return Math.min(this.o.messagesPerSecond, c.messagesPerSecond ?? this.o.messagesPerSecond)
  }

  /**
   * Takes the number's active campaigns as the store has them now: new ones join, resumed
   * ones start afresh, others stop (their unsent recipients are released), and the pacers
   * follow the campaigns' rates.
   */
  refresh(active: ReadonlyArray<Campaign.Campaign>, now: number): void {
    let changed = false
    const ids = new Set(active.map((c) => c.id))
    for (const book of this.order) {
      if (book.active && !ids.has(book.campaign.id)) {
        book.active = false
        changed = true
      }
    }
    let rate = 0
    for (const c of active) {
      const book = this.books.get(c.id)
      if (book === undefined) {
        this.books.set(c.id, new CampaignBook(c, this.o.failurePause.window, this.o.refusalBrakes))
        this.order = [...this.books.values()]
        this.claimWanted()
      } else {
        if (!book.active) {
          // active again (resumed, retried): a fresh start
          book.restart()
          this.claimWanted()
        }
        book.campaign = c
      }
      rate = Math.max(rate, this.rateOf(c))
    }
    if (rate > 0 && rate !== this.pacer.perSecond) {
      // the old window keeps binding for a second, so a change of rate never bursts
      this.previousPacer = { pacer: this.pacer, until: now + 1000 + this.o.pacingMarginMs }
      this.pacer = new Pacer(rate, this.o.pacingMarginMs)
    }
    for (const book of this.order) {
      if (!book.active) continue
      const own = this.rateOf(book.campaign)
      if (own < this.pacer.perSecond && book.pacer?.perSecond !== own) book.pacer = new Pacer(own, this.o.pacingMarginMs)
      if (own >= this.pacer.perSecond) book.pacer = undefined
    }
    if (changed) this.releaseQueued(false)
  }

  // ---- claims --------------------------------------------------------------------------

  /**
   * Recipients per claim of a campaign: at most one second of its rate. A claimed row is
   * `sending` from its claim on, and reconciliation counts from then, so the queue must
   * never hold more than a couple of seconds of sends (claim when under one claim's worth).
   */
  claimSize(book: CampaignBook): number {
    return Math.min(this.o.batchSize, Math.max(1, Math.min(this.pacer.perSecond, this.rateOf(book.campaign))))
  }

  /** The next campaign to claim for, round-robin over active campaigns that may have work and run low. */
  nextToClaim(): CampaignBook | undefined {
    const candidates = this.order.filter((b) => b.active && !b.exhausted && !b.pausing && b.waiting < this.claimSize(b))
    if (candidates.length === 0) return undefined
    return candidates[this.roundRobin++ % candidates.length]
  }

  /** Queues what a claim answered; answers whether there is something new to send (else the campaign is exhausted). */
  claimed(book: CampaignBook, recipients: ReadonlyArray<CampaignRepo.ClaimedRecipient>): boolean {
    if (recipients.length === 0) {
      book.exhausted = true
      return false
    }
    book.push(recipients)
    return true
  }

  // ---- sending -------------------------------------------------------------------------

  /** The next recipient in turn: round-robin over the campaigns, one message each. */
  private takeNext(): Item | undefined {
    const order = this.order
    for (let k = 0; k < order.length; k++) {
      const book = order[(this.turn + k) % order.length]
      const recipient = book.shift()
      if (recipient !== undefined) {
        this.turn = (this.turn + k + 1) % order.length
        if (book.waiting < this.claimSize(book)) this.claimWanted()
        return { book, recipient, startedAt: 0, paced: [] }
      }
    }
    return undefined
  }

  /**
   * The recipient to send at `now`, already counted by the pacers, the user's gap and the
   * sends in flight; or undefined, with `wait` and `waitMs` saying what to wait for.
   * Recipients of campaigns that stopped are released on the way; recipients whose user's
   * gap has not passed are deferred.
   */
  next(now: number): Item | undefined {
    for (;;) {
      if (!this.leaseValid(now)) {
        this.wait = "lost"
        return undefined
      }
      const deferred = this.deferred
      const item = deferred.length > 0 && deferred[0].readyAt <= now ? deferred.shift()!.item : this.takeNext()
      if (item === undefined) {
        if (this.inFlight === 0 && !this.anyActive()) {
          this.wait = "done"
          return undefined
        }
        // until recipients are queued, the first deferred one is due, or the statuses need a look
        this.wait = "idle"
        this.waitMs = deferred.length > 0 ? Math.min(this.o.watchMs, deferred[0].readyAt - now) : this.o.watchMs
        return undefined
      }
      const book = item.book
      if (!book.active || book.pausing) {
        item.book.release(item.recipient)
        book.queued--
        continue
      }
      const readyAt = this.gaps.readyAt(item.recipient.phone)
      if (readyAt > now) {
        deferred.push({ item, readyAt })
        continue
      }
      const previous = this.previousPacer !== undefined && this.previousPacer.until > now ? this.previousPacer.pacer : undefined
      const earliest = Math.max(
        this.pacer.earliest(),
        book.pacer?.earliest() ?? Number.NEGATIVE_INFINITY,
        previous?.earliest() ?? Number.NEGATIVE_INFINITY
      )
      if (earliest > now) {
        item.book.putBack(item.recipient) // statuses and the lease are checked again after the wait
        if (earliest === Number.POSITIVE_INFINITY) {
          // the send leaving the window has not answered yet: wait for a send to finish
          this.wait = "full"
          this.waitMs = this.o.watchMs
        } else {
          this.wait = "paced"
          this.waitMs = Math.ceil(earliest - now)
        }
        return undefined
      }
      if (this.inFlight >= this.o.maxInFlight) {
        item.book.putBack(item.recipient) // statuses and the lease are checked again after the wait
        this.wait = "full"
        this.waitMs = this.o.watchMs
        return undefined
      }
      const paced: Array<readonly [Pacer, number]> = [[this.pacer, this.pacer.record(now)]]
      if (book.pacer !== undefined) paced.push([book.pacer, book.pacer.record(now)])
      if (previous !== undefined) paced.push([previous, previous.record(now)])
      item.paced = paced
      item.startedAt = now
      this.gaps.record(item.recipient.phone, now)
      this.inFlight++
      book.inFlight++
      book.queued--
      return item
    }
  }

  /**
   * A send handed out by `next` ended at `now` (before its result is booked): the pacers and
   * the user's gap count it from now, when its answer came back (see `Pacer.ts`).
   */
  finished(item: Item, now: number): void {
    for (const [pacer, slot] of item.paced) pacer.complete(slot, now)
    this.gaps.complete(item.recipient.phone, item.startedAt, now)
    this.inFlight--
    item.book.inFlight--
  }

  /** Books one send's result; answers the automatic pause to apply, if this result calls for one. */
  onResult(item: Item, result: CampaignLanes.SendResult, now: number): AutoPause | undefined {
    const { book, recipient } = item
    switch (result._tag) {
      case "Accepted":
        this.unknownStreak = 0
        book.outcomes.accepted.push({ id: recipient.id, operatorMessageId: result.operatorMessageId })
        book.failures.record(false)
        book.refusals.record(0)
        return undefined
      case "Throttled": {
        item.book.release(item.recipient)
        const brake = book.refusals.record(result.code ?? 0)
        if (result.scope === "user")
          this.gaps.record(recipient.phone, now) // this user waits a gap; the lane goes on
        else {
          // not sent: no gap for this user (else its resend waits 6 s, and a campaign's end with it)
          this.gaps.forget(recipient.phone)
          this.pacer.block(now + (result.scope === "number" ? Math.min(result.retryAfterMs, NUMBER_THROTTLE_MS) : result.retryAfterMs))
        }
        return brake === undefined ? undefined : this.autoPause(book, "refusal_rate", brake)
      }
      case "Unknown":
        // the operator may have taken it: left `sending` for the status webhook or reconciliation
        if (++this.unknownStreak >= 3) this.pacer.block(now + 1000)
        return undefined
      case "Refused": {
        this.unknownStreak = 0
        if (result.refusal === "template" || result.refusal === "throttled") {
          item.book.release(item.recipient)
          if (result.refusal === "throttled") {
            this.pacer.block(now + 1000) // (sendResultOf answers Throttled for these; kept for completeness)
            return undefined
          }
          return this.autoPause(book, "template_paused", `the operator refused the template (code ${result.code}): ${result.reason}`)
        }
        const general = bookRefusal(book, recipient, result, this.o.failurePause)
        const detail = book.refusals.record(result.code) ?? general
        return detail === undefined ? undefined : this.autoPause(book, "refusal_rate", detail)
      }
    }
  }

  private autoPause(book: CampaignBook, reason: AutoPause["reason"], detail: string): AutoPause | undefined {
    if (book.pausing) return undefined
    book.pausing = true
    book.active = false
    this.releaseQueued(false)
    return { campaign: book.campaign, reason, detail }
  }

  /** Gives back the claimed but unsent recipients of campaigns no longer active (or of all). */
  releaseQueued(all: boolean): void {
    for (const book of this.order) if (all || !book.active) book.releaseQueue()
    for (let i = this.deferred.length - 1; i >= 0; i--) {
      const d = this.deferred[i]
      if (all || !d.item.book.active) {
        d.item.book.release(d.item.recipient)
        d.item.book.queued--
        this.deferred.splice(i, 1)
      }
    }
  }

  // ---- outcomes and maintenance --------------------------------------------------------

  /**
   * The outcomes of `book` to write now, or undefined when it has none (a campaign that
   * stopped and has nothing left in flight or queued is then forgotten), or when its
   * outcomes were taken less than `afterMs` ago and it claims on (the periodic flush leaves
   * them to the next claim, which writes them in its transaction; a campaign whose last claim
   * found nothing, or that stopped, has its outcomes written at once).
   */
  take(book: CampaignBook, now: number, afterMs = 0): Batch | undefined {
    if (!book.hasOutcomes()) {
      if (!book.active && book.inFlight === 0 && book.queued === 0 && this.books.get(book.campaign.id) === book) {
        this.books.delete(book.campaign.id)
        this.order = [...this.books.values()]
      }
      return undefined
    }
    if (book.active && !book.exhausted && !book.pausing && now - book.outcomesTakenAt < afterMs) return undefined
    book.outcomesTakenAt = now
    return { book, outcomes: book.takeOutcomes(), progress: book.active && now - book.lastProgressAt >= this.o.progressMs }
  }

  /** A batch was written: `released` rows went back to pending, so the campaign may have work again. */
  written(batch: Batch, released: number, now: number): void {
    if (batch.progress) batch.book.lastProgressAt = now
    if (released > 0) {
      batch.book.exhausted = false
      this.claimWanted()
    }
  }

  /** A batch could not be written (a deadlock victim, a lost connection): kept for the next one. */
  notWritten(batch: Batch): void {
    batch.book.restoreOutcomes(batch.outcomes)
  }

  /** Whether some outcome is still to be written. */
  hasUnwritten(): boolean {
    for (const book of this.order) if (book.hasOutcomes()) return true
    return false
  }

  /**
   * Once a second for each campaign: one whose last claim found nothing claims again (a
   * retry or a release may have added work); answers whether it is idle (nothing queued,
   * in flight or unwritten), so the shell should reconcile it and see whether it is done.
   */
  exhaustedAndIdle(book: CampaignBook): boolean {
    if (!book.active || book.pausing || !book.exhausted) return false
    book.exhausted = false
    this.claimWanted()
    return book.inFlight === 0 && book.queued === 0 && !book.hasOutcomes()
  }

  /** The campaign completed: the lane stops sending for it. */
  completed(book: CampaignBook): void {
    book.active = false
  }
}
