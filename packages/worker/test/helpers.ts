/** What the worker's pacing tests share. */

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
