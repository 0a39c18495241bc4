/**
 * Send pacing for one sender number, by start times (no token bucket: a bucket that refills
 * continuously lets a full bucket's burst land next to a second's refill, which overshoots
 * a sliding window).
 *
 * `SlidingWindow` keeps the start times of the last `capacity` sends in a ring buffer; a new
 * send may start once the oldest of them is at least `windowMs` old. Then any `capacity + 1`
 * consecutive starts span at least `windowMs`, so no window of that length ever holds more
 * than `capacity` starts: exactly the operator's rule, with `windowMs` = 1 s plus a margin
 * for the jitter between our start and the operator's acceptance.
 *
 * `Pacer` combines the hard window with a short smoothing window (the same rate over 50 ms),
 * so a second's budget is spread over the second instead of leaving in one burst, and a
 * wait after a throttling answer.
 */
export class SlidingWindow {
  private readonly times: Float64Array
  private head = 0
  private count = 0

  constructor(
    readonly capacity: number,
    readonly windowMs: number
  ) {
    this.times = new Float64Array(Math.max(1, capacity))
  }

  /** The earliest time a new start is allowed (-Infinity when under capacity). */
  earliest(): number {
    return this.count < this.capacity ? Number.NEGATIVE_INFINITY : this.times[this.head] + this.windowMs
  }

  record(at: number): void {
    if (this.count < this.capacity) {
      this.times[(this.head + this.count) % this.capacity] = at
      this.count++
    } else {
      this.times[this.head] = at
      this.head = (this.head + 1) % this.capacity
    }
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
   * @param marginMs added to the second (covers the jitter between our start and the operator's clock)
   */
  constructor(
    readonly perSecond: number,
    marginMs: number
  ) {
    this.hard = new SlidingWindow(perSecond, 1000 + marginMs)
    this.smooth = new SlidingWindow(Math.max(1, Math.ceil((perSecond * SMOOTHING_MS) / 1000)), SMOOTHING_MS)
  }

  /** The earliest time the next send may start. */
  earliest(): number {
    return Math.max(this.hard.earliest(), this.smooth.earliest(), this.blockedUntil)
  }

  record(at: number): void {
    this.hard.record(at)
    this.smooth.record(at)
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
