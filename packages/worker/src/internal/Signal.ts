import { Effect } from "effect"

/**
 * A wake-up call between the lane's loops, so that a loop with nothing to do waits for the
 * event it needs instead of polling: `wait(ms)` ends at the next `notify()` or after `ms`,
 * whichever comes first. One waiter at a time (each loop has its own signal).
 */
export class Signal {
  private wake: (() => void) | undefined

  notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  wait(ms: number): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
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
