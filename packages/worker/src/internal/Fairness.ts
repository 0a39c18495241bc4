/**
 * How a runner shares its slots: no kind and no store may take them all.
 *
 * - **Per kind**: at most `perKind` jobs of one kind run at once. An ordered kind is exempt:
 *   its jobs claimed together run one after another (or as one, `runMany`), a single unit of
 *   work that only writes to the database, and no more of them are claimed meanwhile.
 * - **Per store**: at most `perStore` jobs of one store (jobs that name one) run at once.
 * - **Outbound**: jobs of kinds that call the outside world (not transactional: caller
 *   webhooks, feed fetches, operator batches) hold at most `outbound` slots together, so the
 *   rest are always there for the jobs that only write to the database (the inbox, which
 *   applies orders, calls and statuses), whatever peer stops answering.
 *
 * Within those limits, free slots go round-robin across kinds (the kind whose oldest
 * runnable job is oldest first), and within a kind to its oldest runnable jobs.
 */
import type { JobQueue } from "@switchboard/domain"

export interface Limits {
  readonly concurrency: number
  readonly perKind: number
  readonly perStore: number
  readonly outbound: number
}

export interface Load {
  readonly byKind: ReadonlyMap<string, number>
  readonly byStore: ReadonlyMap<string, number>
  readonly outbound: number
  readonly total: number
}

export interface Kind {
  readonly kind: string
  /** Calls the outside world (not transactional). */
  readonly outbound: boolean
  /** Runs its jobs one at a time (exempt from `perKind`). */
  readonly ordered?: boolean | undefined
  /** Runs one at a time and none is to be claimed now (one runs or waits). */
  readonly blocked: boolean
}

const kindLimit = (kind: Kind | undefined, limits: Limits) => (kind?.ordered === true ? limits.concurrency : limits.perKind)

/**
 * Default limits for `concurrency` slots: half of them per kind (at least two, so that two
 * jobs of a kind can always overlap), a quarter per store (so one store cannot take even a
 * whole kind's share), all but one for outbound kinds.
 */
export const limitsOf = (
  concurrency: number,
  options: { readonly perKind?: number | undefined; readonly perStore?: number | undefined } = {}
): Limits => {
  return {
    concurrency,
    perKind: Math.max(1, options.perKind ?? Math.min(concurrency, Math.max(2, Math.ceil(concurrency / 2)))),
    perStore: Math.max(1, options.perStore ?? Math.ceil(concurrency / 4)),
    outbound: Math.max(1, concurrency - 1)
  }
}

const countOf = (map: ReadonlyMap<string, number>, key: string) => map.get(key) ?? 0

/** How many jobs of each kind a poll may read (and claim): none for a kind at its limit. */
export const room = (kinds: ReadonlyArray<Kind>, limits: Limits, load: Load): Array<{ kind: string; limit: number }> => {
  const free = limits.concurrency - load.total
  if (free <= 0) return []
  const outboundFree = limits.outbound - load.outbound
  return kinds
    .map((k) => ({
      kind: k.kind,
      limit: k.blocked ? 0 : Math.min(free, kindLimit(k, limits) - countOf(load.byKind, k.kind), k.outbound ? outboundFree : free)
    }))
    .filter((k) => k.limit > 0)
}

/** Stores at their limit: their jobs are left out of the poll. */
export const fullStores = (limits: Limits, load: Load): Array<string> =>
  [...load.byStore].filter(([, n]) => n >= limits.perStore).map(([store]) => store)

/** The candidates to claim, in turn across kinds, within every limit. */
export const choose = (
  candidates: ReadonlyArray<JobQueue.Candidate>,
  kinds: ReadonlyArray<Kind>,
  limits: Limits,
  load: Load
): Array<JobQueue.Candidate> => {
  const outboundKinds = new Set(kinds.filter((k) => k.outbound).map((k) => k.kind))
  const kindsByName = new Map(kinds.map((k) => [k.kind, k]))
  const byKind = new Map<string, Array<JobQueue.Candidate>>()
  for (const c of [...candidates].sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const list = byKind.get(c.kind)
    if (list === undefined) byKind.set(c.kind, [c])
    else list.push(c)
  }
  const kindCount = new Map(load.byKind)
  const storeCount = new Map(load.byStore)
  let outbound = load.outbound
  let free = limits.concurrency - load.total
  const chosen: Array<JobQueue.Candidate> = []
  // kinds in the order of their oldest runnable job, one job each per round
  const queues = [...byKind.values()]
  while (free > 0) {
    let picked = false
    for (const queue of queues) {
      if (free <= 0) break
      const kind = queue[0]?.kind
      if (kind === undefined || countOf(kindCount, kind) >= kindLimit(kindsByName.get(kind), limits)) continue
      const isOutbound = outboundKinds.has(kind)
      if (isOutbound && outbound >= limits.outbound) continue
      const at = queue.findIndex((c) => c.storeId === null || countOf(storeCount, c.storeId) < limits.perStore)
      if (at === -1) {
        queue.length = 0
        continue
      }
      const [c] = queue.splice(0, at + 1).slice(-1)
      chosen.push(c)
      picked = true
      free--
      kindCount.set(kind, countOf(kindCount, kind) + 1)
      if (c.storeId !== null) storeCount.set(c.storeId, countOf(storeCount, c.storeId) + 1)
      if (isOutbound) outbound++
    }
    if (!picked) break
  }
  return chosen
}
