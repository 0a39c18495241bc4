import { Effect } from "effect"

/**
 * A wake-up call between the lane's loops, so that a loop with nothing to do waits for the
 * event it needs instead of polling: a wait ends at the next `notify()` or after `ms`,
 * whichever comes first. A `notify()` while nobody waits is kept for the next wait, which
 * then ends at once: the loop may yield between checking its condition and waiting, and
 * the event must not be lost in that gap (a spurious wake-up only costs a re-check).
 * One waiter at a time (each loop has its own signal).
 */
export class Signal {
  private wake: (() => void) | undefined
  private pending = false

  notify(): void {
    const wake = this.wake
    if (wake === undefined) {
      this.pending = true
      return
    }
    this.wake = undefined
    wake()
  }

  /**
   * Calls `done` once, at the next `notify()` or after `ms` (at once, synchronously, when a
   * notify is pending); answers a function that cancels the wait (`done` is then not called).
   */
  onNext(ms: number, done: () => void): () => void {
    if (this.pending) {
      this.pending = false
      done()
      return noop
    }
    const fire = () => {
      clearTimeout(timer)
      if (this.wake === fire) this.wake = undefined
      done()
    }
    const timer = setTimeout(fire, Math.max(0, ms))
    this.wake = fire
    return () => {
      clearTimeout(timer)
      if (this.wake === fire) this.wake = undefined
    }
  }

  /** `onNext` as an Effect (interrupting it cancels the wait). */
  wait(ms: number): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      const cancel = this.onNext(ms, () => resume(Effect.void))
      return Effect.sync(cancel)
    })
  }
}

const noop = () => {}
