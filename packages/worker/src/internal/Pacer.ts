/**
 * Send pacing for one sender number (no token bucket: a bucket that refills continuously
 * lets a full bucket's burst land next to a second's refill, which overshoots a sliding
 * window).
 *
 * The operator counts a send when it accepts it, somewhere between our start and the moment
 * its answer reaches us; a send held up on the way (a busy event loop, a slow process) lands
 * later than it started, next to sends that started after it. So the hard window books each
 * send by the time its answer came back (`complete`), an upper bound of the operator's
 * acceptance time, and the one that leaves the window must have answered: a new send may
 * start once the send `capacity` places back has completed and `windowMs` have passed since
 * the latest completion of every send that has left the window. Then every send that can
 * share an operator window with the new one is among the last `capacity - 1`, whatever the
 * jitter: no window of `windowMs` ever holds more than `capacity` acceptances.
 *
 * `SlidingWindow` keeps the last `capacity` sends in a ring buffer (their completion times,
 * NaN while in flight; or their start times when it books starts, as the smoothing window
 * does). `Pacer` combines the hard window with a short smoothing window (the same rate over
 * 50 ms, by start), so a second's budget is spread over the second instead of leaving in one
 * burst, and a wait after a throttling answer.
 */
export class SlidingWindow {
  private readonly times: Float64Array
  private head = 0
  private count = 0
  /** The latest completion among the sends that have left the ring. */
  private retired = Number.NEGATIVE_INFINITY

  /**
   * @param byCompletion book sends by `complete` (true) or by their start (false)
   */
  constructor(
    readonly capacity: number,
    readonly windowMs: number,
    private readonly byCompletion = false
  ) {
    this.times = new Float64Array(Math.max(1, capacity))
  }

  /** The earliest time a new start is allowed (-Infinity when under capacity, +Infinity while the send leaving the window is in flight). */
  earliest(): number {
    if (this.count < this.capacity) return Number.NEGATIVE_INFINITY
    const leaving = this.times[this.head]
    if (Number.isNaN(leaving)) return Number.POSITIVE_INFINITY
    return Math.max(this.retired, leaving) + this.windowMs
  }

  /** A send starts at `at`; answers its slot, for `complete`. */
  record(at: number): number {
    const value = this.byCompletion ? Number.NaN : at
    if (this.count < this.capacity) {
      const slot = (this.head + this.count) % this.capacity
      this.times[slot] = value
      this.count++
      return slot
    }
    const slot = this.head
    const leaving = this.times[slot]
    // (a send leaves only once it has completed; `at` bounds one that somehow has not)
    this.retired = Math.max(this.retired, Number.isNaN(leaving) ? at : leaving)
    this.times[slot] = value
    this.head = (this.head + 1) % this.capacity
    return slot
  }

  /** The send of `slot` got its answer at `at`. */
  complete(slot: number, at: number): void {
    if (this.byCompletion && Number.isNaN(this.times[slot])) this.times[slot] = at
  }
}

/** Length of the smoothing window. */
const SMOOTHING_MS = 50

export class Pacer {
  private readonly hard: SlidingWindow
  private readonly smooth: SlidingWindow
  private blockedUntil = 0

  /**
   * @param perSecond sends allowed in any one-second window
   * @param marginMs added to the second (the operator's window may include both of its ends)
   */
  constructor(
    readonly perSecond: number,
    marginMs: number
  ) {
    this.hard = new SlidingWindow(perSecond, 1000 + marginMs, true)
    this.smooth = new SlidingWindow(Math.max(1, Math.ceil((perSecond * SMOOTHING_MS) / 1000)), SMOOTHING_MS)
  }

  /** The earliest time the next send may start (+Infinity: wait for a send in flight to complete). */
  earliest(): number {
    return Math.max(this.hard.earliest(), this.smooth.earliest(), this.blockedUntil)
  }

  /** A send starts at `at`; answers its slot, for `complete`. */
  record(at: number): number {
    this.smooth.record(at)
    return this.hard.record(at)
  }

  /** The send of `slot` got its answer (or its failure) at `at`. */
  complete(slot: number, at: number): void {
    this.hard.complete(slot, at)
  }

  /** No start before `until` (after a throttling answer). */
  block(until: number): void {
    if (until > this.blockedUntil) this.blockedUntil = until
  }
}

/** About one message per `gapMs` to the same user: the last start per phone, pruned as it ages. */
export class UserGaps {
  private readonly last = new Map<string, number>()
  private readonly order: Array<{ readonly phone: string; readonly at: number }> = []
  private head = 0

  constructor(readonly gapMs: number) {}

  /** The earliest time `phone` may receive the next message. */
  readyAt(phone: string): number {
    const at = this.last.get(phone)
    return at === undefined ? Number.NEGATIVE_INFINITY : at + this.gapMs
  }

  /**
   * The send to `phone` that started at `startedAt` got its answer at `at`: the gap counts
   * from then (an upper bound of the operator's acceptance), unless the user's last send
   * has changed or been forgotten since.
   */
  complete(phone: string, startedAt: number, at: number): void {
    if (this.last.get(phone) === startedAt && at > startedAt) this.record(phone, at)
  }

  record(phone: string, at: number): void {
    this.last.set(phone, at)
    this.order.push({ phone, at })
    const edge = at - this.gapMs
    while (this.head < this.order.length && this.order[this.head].at <= edge) {
      const old = this.order[this.head++]
      if (this.last.get(old.phone) === old.at) this.last.delete(old.phone)
    }
    if (this.head > 4096 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head)
      this.head = 0
    }
  }

  /**
   * Forgets the last start to `phone`: the operator refused that send for the number's or the
   * account's rate, so it never reached the user and the user's gap does not apply (the
   * recipient goes back to pending and is sent again soon). Another campaign of the lane may
   * have sent to the same phone just before (rare); the operator's pair rate (131056) then
   * answers, and the lane waits the gap for that user.
   */
  forget(phone: string): void {
    this.last.delete(phone)
  }

  get size(): number {
    return this.last.size
  }
}

/** The share of failures among the last `window` outcomes. */
export class FailureWindow {
  private readonly outcomes: Uint8Array
  private next = 0
  private count = 0
  private failures = 0

  constructor(readonly window: number) {
    this.outcomes = new Uint8Array(window)
  }

  record(failed: boolean): void {
    if (this.count === this.window) this.failures -= this.outcomes[this.next]
    else this.count++
    this.outcomes[this.next] = failed ? 1 : 0
    this.failures += failed ? 1 : 0
    this.next = (this.next + 1) % this.window
  }

  /** Whether at least `minimum` outcomes were seen and more than `ratio` of them failed. */
  exceeds(minimum: number, ratio: number): boolean {
    return this.count >= minimum && this.failures > ratio * this.count
  }

  get size(): number {
    return this.count
  }

  get failed(): number {
    return this.failures
  }
}
