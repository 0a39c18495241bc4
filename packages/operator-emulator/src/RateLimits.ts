/**
 * The operator's send limits (GRAPH_API.md §3.2): throughput per business number in a sliding
 * one-second window, and the pair rate between one business number and one user as a token bucket.
 * Both only count accepted sends: a check reads, `record` commits.
 */
import type { EmulatorConfig } from "./Config.js"
import { GraphErrors } from "./GraphError.js"
import type { GraphError } from "./GraphError.js"

/** Length of the throughput window. */
export const WINDOW_MS = 1000
/** One pair-rate token comes back every this many milliseconds. */
export const PAIR_REFILL_MS = 6000

/**
 * Timestamps of the accepted sends of one phone number within the last second.
 * A send at `now` is allowed when fewer than the limit were accepted in `(now - 1000, now]`,
 * which is exactly the condition under which no window `[t, t + 1000)` holds more than the limit.
 */
export class SlidingWindow {
  private times: number[] = []
  private head = 0

  /** How many sends were recorded in `(now - windowMs, now]`. */
  count(now: number, windowMs = WINDOW_MS): number {
    const edge = now - windowMs
    const times = this.times
    let head = this.head
    while (head < times.length && times[head] <= edge) head++
    this.head = head
    if (head > 1024 && head * 2 > times.length) {
      this.times = times.slice(head)
      this.head = 0
    }
    return this.times.length - this.head
  }

  /** Records one accepted send at `now`. */
  record(now: number): void {
    this.times.push(now)
  }
}

interface Bucket {
  tokens: number
  at: number
}

/** Token buckets per (phone number id, user) pair; full buckets are pruned. */
export class PairBuckets {
  private readonly buckets = new Map<string, Bucket>()
  private lastPrune = 0

  private level(bucket: Bucket | undefined, now: number, capacity: number): number {
    if (bucket === undefined) return capacity
    return Math.min(capacity, bucket.tokens + (now - bucket.at) / PAIR_REFILL_MS)
  }

  /** Whether one more message may go to this pair now. */
  allows(key: string, now: number, capacity: number): boolean {
    return this.level(this.buckets.get(key), now, capacity) >= 1
  }

  /** Takes one token for this pair. */
  take(key: string, now: number, capacity: number): void {
    const bucket = this.buckets.get(key)
    const tokens = this.level(bucket, now, capacity) - 1
    if (bucket === undefined) this.buckets.set(key, { tokens, at: now })
    else {
      bucket.tokens = tokens
      bucket.at = now
    }
    if (now - this.lastPrune > 60_000) this.prune(now, capacity)
  }

  private prune(now: number, capacity: number): void {
    this.lastPrune = now
    for (const [key, bucket] of this.buckets) {
      if (this.level(bucket, now, capacity) >= capacity) this.buckets.delete(key)
    }
  }

  clear(): void {
    this.buckets.clear()
  }
}

/** Throughput and pair-rate limits of all phone numbers. */
export class RateLimiter {
  private readonly windows = new Map<string, SlidingWindow>()
  private readonly pairs = new PairBuckets()

  private window(phoneNumberId: string): SlidingWindow {
    let window = this.windows.get(phoneNumberId)
    if (window === undefined) {
      window = new SlidingWindow()
      this.windows.set(phoneNumberId, window)
    }
    return window
  }

  /** Accepted sends of this number in the last second. */
  usage(phoneNumberId: string, now: number): number {
    return this.windows.get(phoneNumberId)?.count(now) ?? 0
  }

  /** The error a send at `now` would hit (130429 first, then 131056), or undefined when it is within both limits. */
  check(phoneNumberId: string, waId: string, now: number, config: EmulatorConfig): GraphError | undefined {
    if (this.window(phoneNumberId).count(now) >= config.messagesPerSecond) return GraphErrors.throughput()
    if (!this.pairs.allows(`${phoneNumberId}|${waId}`, now, config.pairBurst)) return GraphErrors.pairRate()
    return undefined
  }

  /** Commits one accepted send at `now` to both limits. */
  record(phoneNumberId: string, waId: string, now: number, config: EmulatorConfig): void {
    this.window(phoneNumberId).record(now)
    this.pairs.take(`${phoneNumberId}|${waId}`, now, config.pairBurst)
  }

  clear(): void {
    this.windows.clear()
    this.pairs.clear()
  }
}

/**
 * The largest number of timestamps inside any window `[t, t + windowMs)`, exactly, for
 * timestamps in ascending order (two pointers, O(n)).
 */
export const maxInAnyWindow = (sortedTimes: ReadonlyArray<number>, windowMs = WINDOW_MS): number => {
  let best = 0
  let start = 0
  for (let end = 0; end < sortedTimes.length; end++) {
    while (sortedTimes[end] - sortedTimes[start] >= windowMs) start++
    const count = end - start + 1
    if (count > best) best = count
  }
  return best
}
