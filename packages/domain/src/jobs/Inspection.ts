/**
 * What an administrator reads about the machinery (the console's "job queue" and "operator
 * inbox" pages, behind the admin token): jobs counted by kind and state with the oldest
 * one's time, and the latest operator webhooks with their outcomes. Reads only, across
 * every store.
 */
import { Context, Effect } from "effect"
import * as Time from "../shared/Time.js"

/** One kind's jobs in one state: `queued` (runnable or waiting for its time), `running`, `dead` (failed for good). */
export interface JobCount {
  readonly kind: string
  readonly status: "queued" | "running" | "dead"
  readonly count: number
  /** When the oldest of them was created. */
  readonly oldestCreatedAt: Time.Millis
}

export interface InboxRecord {
  readonly id: string
  readonly kind: string
  readonly body: string
  readonly receivedAt: Time.Millis
  readonly processedAt: Time.Millis | null
  readonly outcome: string | null
}

export class Inspection extends Context.Tag("@switchboard/domain/Inspection")<
  Inspection,
  {
    /** Jobs not done, counted by kind and status (done jobs are left out: retention prunes them). */
    readonly jobCounts: () => Effect.Effect<ReadonlyArray<JobCount>>
    /** The newest `limit` operator webhooks received, newest first. */
    readonly recentInbox: (limit: number) => Effect.Effect<ReadonlyArray<InboxRecord>>
  }
>() {}

/** `GET /admin/jobs`: each kind with its queued, running and dead jobs and the oldest live job's age. */
export const jobs = Effect.gen(function* () {
  const counts = yield* (yield* Inspection).jobCounts()
  const now = yield* Time.now
  const kinds = new Map<string, { kind: string; queued: number; running: number; dead: number; oldestAgeSeconds: number | null }>()
  for (const c of counts) {
    const row = kinds.get(c.kind) ?? { kind: c.kind, queued: 0, running: 0, dead: 0, oldestAgeSeconds: null }
    row[c.status] += c.count
    if (c.status !== "dead") {
      const age = Math.max(0, Math.round((now - c.oldestCreatedAt) / 1000))
      row.oldestAgeSeconds = Math.max(row.oldestAgeSeconds ?? 0, age)
    }
    kinds.set(c.kind, row)
  }
  return { kinds: [...kinds.values()].sort((a, b) => a.kind.localeCompare(b.kind)) }
})

/** The operator's fields (`entry[].changes[].field`) and numbers a webhook body names, for a list. */
const summarise = (body: string): { readonly fields: Array<string>; readonly phoneNumberIds: Array<string> } => {
  const fields = new Set<string>()
  const numbers = new Set<string>()
  try {
    const parsed = JSON.parse(body) as {
      entry?: Array<{ changes?: Array<{ field?: unknown; value?: { metadata?: { phone_number_id?: unknown } } }> }>
    }
    for (const entry of parsed.entry ?? [])
      for (const change of entry.changes ?? []) {
        if (typeof change.field === "string") fields.add(change.field)
        const id = change.value?.metadata?.phone_number_id
        if (typeof id === "string") numbers.add(id)
      }
  } catch {
    // a body that is not JSON is listed without a summary
  }
  return { fields: [...fields], phoneNumberIds: [...numbers] }
}

/** `GET /admin/inbox`: the latest operator webhooks (at most `limit`), their fields and outcomes. */
export const inbox = (limit: number) =>
  Effect.map(
    Effect.flatMap(Inspection, (i) => i.recentInbox(limit)),
    (records) => ({
      entries: records.map((r) => ({ ...r, ...summarise(r.body), bytes: r.body.length }))
    })
  )
