import { Effect } from "effect"

/**
 * A wake-up call between the lane's loops, so that a loop with nothing to do waits for the
 * event it needs instead of polling: `wait(ms)` ends at the next `notify()` or after `ms`,
 * whichever comes first. A `notify()` while nobody waits is kept for the next `wait()`,
 * which then ends at once: the fiber may yield between checking its condition and waiting,
 * and the event must not be lost in that gap (a spurious wake-up only costs a re-check).
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

  wait(ms: number): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      if (this.pending) {
        this.pending = false
        resume(Effect.void)
        return
      }
      const done = () => {
        clearTimeout(timer)
        if (this.wake === done) this.wake = undefined
        resume(Effect.void)
      }
      const timer = setTimeout(done, Math.max(0, ms))
      this.wake = done
      return Effect.sync(() => {
        clearTimeout(timer)
        if (this.wake === done) this.wake = undefined
      })
    })
  }
}
