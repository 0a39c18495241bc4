/** A campaign's counters as one line with a progress bar (`campaigns watch`). */

export interface Progress {
  readonly status: string
  readonly total: number
  readonly sent: number
  readonly delivered: number
  readonly read: number
  readonly failed: number
  readonly skipped: number
  readonly cancelled: number
  readonly pausedReason?: string | null | undefined
}

/** The statuses after which nothing changes any more. */
export const FINAL: ReadonlySet<string> = new Set(["completed", "cancelled"])

/** Recipients with an outcome (sent, failed, skipped or cancelled), at most the total. */
export const done = (p: Progress): number => Math.min(p.total, p.sent + p.failed + p.skipped + p.cancelled)

/** `[██████░░░░]  60%  600/1000  sent 590 · delivered 550 · read 300 · failed 10 · skipped 0  active` */
export const progressLine = (p: Progress, width = 30): string => {
  const finished = done(p)
  const share = p.total === 0 ? (FINAL.has(p.status) ? 1 : 0) : finished / p.total
  const filled = Math.round(share * width)
  const bar = `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`
  const percent = `${Math.floor(share * 100)}%`.padStart(4)
  const status = p.status === "paused" && p.pausedReason ? `paused (${p.pausedReason})` : p.status
  return `${bar} ${percent}  ${finished}/${p.total}  sent ${p.sent} · delivered ${p.delivered} · read ${p.read} · failed ${p.failed} · skipped ${p.skipped}  ${status}`
}
