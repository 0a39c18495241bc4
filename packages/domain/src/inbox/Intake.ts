/**
 * Operator webhooks are stored by group commit: every verified POST waits in a queue, and
 * one writer stores all that are waiting in one transaction (their inbox entries and one
 * job that processes them all), then acknowledges each. A POST is answered only once its
 * body is committed, so nothing acknowledged is lost; under load many POSTs share one
 * transaction, and alone a POST is written after one turn of the event loop (a batch of one).
 *
 * The queue is a plain array of callbacks (`offer`): a POST costs no fiber, no deferred and
 * no effect of its own; the writer runs one effect per transaction, and one transaction at
 * a time. `store` is the same queue for a caller that is an effect.
 */
import { Cause, Context, Effect, Exit, FiberId, Layer, Runtime } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import * as Id from "../shared/Id.js"
import type { Millis } from "../shared/Time.js"
import type { AccountKind } from "../stores/Store.js"
import { Inbox, type InboxEntry, InboxEntryId } from "./Inbox.js"

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
    /**
     * Stores a verified body received now: its id and its time are taken here (the `Clock`'s),
     * the body decoded as UTF-8 as `TextDecoder` does. `done` is called once: with the entry's
     * id once the entry and its job are committed, or with the failure (an interruption once
     * the intake has closed). The same entry as `store` of `{ id, kind, body, receivedAt }`.
     */
    readonly offer: (kind: AccountKind, body: Uint8Array, done: (exit: Exit.Exit<InboxEntryId>) => void) => void
  }
>() {}

interface Waiting {
  readonly entry: InboxEntry
  readonly done: (exit: Exit.Exit<void>) => void
}

const decoder = new TextDecoder()

/** Refused: the intake has closed. */
const closedExit = Exit.interrupt(FiberId.none)

/**
 * The group-commit writer, for as long as the layer's scope lives. Alone a POST waits one
 * turn of the event loop (`setImmediate`), so the POSTs that reached the server meanwhile are
 * read and join its batch (a synchronous driver such as SQLite's would otherwise write each
 * POST before the next one is even read, one transaction each); under load the POSTs that
 * arrive while a transaction runs form the next batch. Closing waits for the batch being
 * written and the ones already waiting; an offer after that is refused.
 */
export const layer: Layer.Layer<Intake, never, Inbox | JobQueue | Transactor> = Layer.scoped(
  Intake,
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const queue = yield* JobQueue
    const tx = yield* Transactor
    const clock = yield* Effect.clock
    const run = Runtime.runCallback(yield* Effect.runtime<never>())

    const write = (entries: ReadonlyArray<InboxEntry>) =>
      tx
        .withTransaction(Effect.zipRight(inbox.insert(entries), queue.enqueueAll([processJobOf(entries.map((e) => e.id))])))
        .pipe(Effect.tapErrorCause((cause) => Effect.logError("operator webhooks could not be stored", Cause.pretty(cause))))

    let waiting: Array<Waiting> = []
    /** A flush is due or a batch is being written. */
    let busy = false
    let closed = false
    /** Called once the writer has nothing left to write (closing waits for it). */
    let drained: (() => void) | undefined

    const flush = (): void => {
      const batch = waiting.length <= MAX_BATCH ? waiting : waiting.slice(0, MAX_BATCH)
      waiting = waiting.length <= MAX_BATCH ? [] : waiting.slice(MAX_BATCH)
      const entries = new Array<InboxEntry>(batch.length)
      for (let i = 0; i < batch.length; i++) entries[i] = batch[i].entry
      run(write(entries), {
        onExit: (exit) => {
          const outcome = Exit.asVoid(exit)
          for (const w of batch) {
            try {
              w.done(outcome)
            } catch (error) {
              // one caller's fault: logged, the others are still answered, and the writer goes on
              run(Effect.logError("an operator webhook's answer failed", Cause.pretty(Cause.die(error))))
            }
          }
          if (waiting.length > 0) setImmediate(flush)
          else {
            busy = false
            drained?.()
          }
        }
      })
    }

    const enter = (entry: InboxEntry, done: Waiting["done"]): void => {
      if (closed) {
        done(closedExit)
        return
      }
      waiting.push({ entry, done })
      if (!busy) {
        busy = true
        setImmediate(flush)
      }
    }

    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        closed = true
        if (busy) drained = () => resume(Effect.void)
        else resume(Effect.void)
      })
    )

    return Intake.of({
      store: (entry) => Effect.async<void>((resume) => enter(entry, resume)),
      offer: (kind, body, done) => {
        const receivedAt = clock.unsafeCurrentTimeMillis() as Millis
        const id = Id.unsafeMake(InboxEntryId.prefix, receivedAt) as InboxEntryId
        enter({ id, kind, body: decoder.decode(body), receivedAt }, (exit) => done(Exit.as(exit, id)))
      }
    })
  })
)
