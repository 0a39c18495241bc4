/**
 * Operator webhooks are stored by group commit: every verified POST waits in a queue, and
 * one writer stores all that are waiting in one transaction (their inbox entries and one
 * job that processes them all), then acknowledges each. A POST is answered only once its
 * body is committed, so nothing acknowledged is lost; under load many POSTs share one
 * transaction, and alone a POST is written after one turn of the event loop (a batch of one).
 */
import { Cause, Context, Deferred, Effect, Exit, Layer, Queue } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import { Inbox, type InboxEntry } from "./Inbox.js"

/** The job kind that processes stored inbox entries (declared with its payload in `module.ts`). */
export const PROCESS_JOB = "inbox.process"

/** The most entries one transaction stores (and one job then processes). */
export const MAX_BATCH = 256

/** The processing job of a batch: its dedupe key is the first entry's id, so storing the batch again enqueues nothing new. */
export const processJobOf = (ids: ReadonlyArray<InboxEntry["id"]>) => ({
  kind: PROCESS_JOB,
  payload: { inboxIds: ids },
  dedupeKey: `${PROCESS_JOB}:${ids[0]}`
})

export class Intake extends Context.Tag("@switchboard/domain/InboxIntake")<
  Intake,
  {
    /** Stores the entry with its processing job; succeeds once both are committed. */
    readonly store: (entry: InboxEntry) => Effect.Effect<void>
  }
>() {}

/**
 * Yields to the event loop once: the POSTs that reached the server meanwhile are read and
 * join the batch. (A synchronous driver such as SQLite's would otherwise write each POST
 * before the next one is even read, one transaction each.)
 */
const letInputIn = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

interface Waiting {
  readonly entry: InboxEntry
  readonly done: Deferred.Deferred<void>
}

/** The group-commit writer: one fiber, for as long as the layer's scope lives. */
export const layer: Layer.Layer<Intake, never, Inbox | JobQueue | Transactor> = Layer.scoped(
  Intake,
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const queue = yield* JobQueue
    const tx = yield* Transactor
    const waiting = yield* Queue.unbounded<Waiting>()
    yield* Effect.addFinalizer(() => Queue.shutdown(waiting))

    const write = (batch: ReadonlyArray<Waiting>) => {
      const entries = batch.map((w) => w.entry)
      return tx.withTransaction(Effect.zipRight(inbox.insert(entries), queue.enqueue(processJobOf(entries.map((e) => e.id)))))
    }

    const flush = Effect.gen(function* () {
      const first = yield* Queue.take(waiting)
      yield* letInputIn
      const rest = yield* Queue.takeUpTo(waiting, MAX_BATCH - 1)
      const batch = [first, ...rest]
      const exit = yield* Effect.exit(write(batch))
      if (Exit.isFailure(exit)) yield* Effect.logError("operator webhooks could not be stored", Cause.pretty(exit.cause))
      yield* Effect.forEach(batch, (w) => Deferred.done(w.done, Exit.asVoid(exit)), { discard: true })
    })
    yield* Effect.forkScoped(Effect.forever(flush))

    return Intake.of({
      store: (entry) => Effect.flatMap(Deferred.make<void>(), (done) => Effect.zipRight(Queue.offer(waiting, { entry, done }), Deferred.await(done)))
    })
  })
)
