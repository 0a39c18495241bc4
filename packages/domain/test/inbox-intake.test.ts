/**
 * The group-commit writer of operator webhooks (`inbox/Intake.ts`) over an inbox and a job
 * queue kept in memory: a POST is acknowledged only once its batch committed, a failed batch
 * answers each of its POSTs with the failure and the writer goes on, batches are at most
 * `MAX_BATCH`, one transaction runs at a time, and closing waits for what was accepted.
 */
import { it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Scope } from "effect"
import { describe, expect } from "vitest"
import { Inbox, InboxIntake, JobQueue, Transactor } from "../src/index.js"

interface Committed {
  readonly entries: ReadonlyArray<Inbox.InboxEntry>
  readonly jobs: ReadonlyArray<JobQueue.NewJob>
}

/** An inbox and a queue in memory; a transaction commits what it wrote, or nothing when it fails (a body `"fail"` fails it). */
const memory = (options: { readonly writeMs?: number } = {}) => {
  const committed: Array<Committed> = []
  let open: { entries: Array<Inbox.InboxEntry>; jobs: Array<JobQueue.NewJob> } | undefined
  let concurrent = 0
  let mostConcurrent = 0
  const inbox = Inbox.Inbox.of({
    insert: (entries) =>
      Effect.suspend(() => {
        if (entries.some((e) => e.body === '"fail"')) return Effect.die(new Error("disk full"))
        open!.entries.push(...entries)
        return Effect.void
      }),
    find: () => Effect.succeed([]),
    markProcessed: () => Effect.void
  })
  const queue = {
    enqueueAll: (jobs: ReadonlyArray<JobQueue.NewJob>) => Effect.sync(() => void open!.jobs.push(...jobs))
  } as unknown as JobQueue.JobQueue["Type"]
  const tx = Transactor.Transactor.of({
    withTransaction: (effect) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          concurrent++
          mostConcurrent = Math.max(mostConcurrent, concurrent)
          open = { entries: [], jobs: [] }
        }),
        () =>
          Effect.zipLeft(
            effect,
            options.writeMs === undefined ? Effect.void : Effect.promise(() => new Promise((r) => setTimeout(r, options.writeMs)))
          ),
        (_, exit) =>
          Effect.sync(() => {
            concurrent--
            if (Exit.isSuccess(exit)) committed.push(open!)
            open = undefined
          })
      )
  })
  const layer = InboxIntake.layer.pipe(
    Layer.provide(
      Layer.mergeAll(Layer.succeed(Inbox.Inbox, inbox), Layer.succeed(JobQueue.JobQueue, queue), Layer.succeed(Transactor.Transactor, tx))
    )
  )
  return { committed, layer, mostConcurrent: () => mostConcurrent }
}

const bytes = (text: string) => new TextEncoder().encode(text)

/** `offer`, as the route calls it. */
const offer = (intake: InboxIntake.Intake["Type"], body: string) =>
  Effect.async<Inbox.InboxEntryId>((resume) => intake.offer("sandbox", bytes(body), resume))

describe("InboxIntake (group commit)", () => {
  it.live("acknowledges each POST once its batch committed, with its entry and one job naming the batch", () => {
    const db = memory()
    return Effect.gen(function* () {
      const intake = yield* InboxIntake.Intake
      const ids = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, n) => `{"n":${n}}`),
        (body) =>
          Effect.map(offer(intake, body), (id) => {
            // committed before it is answered
            expect(db.committed.some((c) => c.entries.some((e) => e.id === id))).toBe(true)
            return id
          }),
        { concurrency: "unbounded" }
      )
      expect(db.committed).toHaveLength(1)
      const [batch] = db.committed
      expect(batch.entries.map((e) => e.id)).toEqual(ids)
      expect(batch.entries.map((e) => e.body)).toEqual(Array.from({ length: 20 }, (_, n) => `{"n":${n}}`))
      expect(batch.jobs).toEqual([InboxIntake.processJobOf(ids)])
    }).pipe(Effect.provide(db.layer))
  })

  it.live("a failed batch answers each of its POSTs with the failure and stores none; the next batch is written", () => {
    const db = memory()
    return Effect.gen(function* () {
      const intake = yield* InboxIntake.Intake
      const exits = yield* Effect.forEach(['{"a":1}', '"fail"', '{"b":2}'], (body) => Effect.exit(offer(intake, body)), {
        concurrency: "unbounded"
      })
      expect(exits.map(Exit.isFailure)).toEqual([true, true, true])
      expect(db.committed).toEqual([])
      const after = yield* offer(intake, '{"c":3}')
      expect(db.committed.map((c) => c.entries.map((e) => e.id))).toEqual([[after]])
      // `store` shares the queue and its outcomes
      const entry: Inbox.InboxEntry = { id: yield* Inbox.InboxEntryId.generate, kind: "live", body: '"fail"', receivedAt: 1 as never }
      expect(Exit.isFailure(yield* Effect.exit(intake.store(entry)))).toBe(true)
    }).pipe(Effect.provide(db.layer))
  })

  it.live("an answer that throws is logged; the batch's other POSTs are answered and the writer goes on", () => {
    const db = memory()
    const logged: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => void logged.push(`${logLevel.label} ${String(message)}`))
    return Effect.gen(function* () {
      const intake = yield* InboxIntake.Intake
      const answered: Array<string> = []
      yield* Effect.async<void>((resume) => {
        intake.offer("sandbox", bytes('{"a":1}'), () => {
          throw new Error("socket gone")
        })
        intake.offer("sandbox", bytes('{"b":2}'), (exit) => {
          answered.push(exit._tag)
          resume(Effect.void)
        })
      })
      expect(answered).toEqual(["Success"])
      expect(yield* offer(intake, '{"c":3}')).toBeDefined()
      expect(db.committed.flatMap((c) => c.entries.map((e) => e.body))).toEqual(['{"a":1}', '{"b":2}', '{"c":3}'])
      expect(logged.some((line) => line.startsWith("ERROR an operator webhook's answer failed"))).toBe(true)
    }).pipe(Effect.provide(Layer.provide(db.layer, Logger.replace(Logger.defaultLogger, logger))))
  })

  it.live("batches are at most MAX_BATCH, written one transaction at a time, in the order offered", () => {
    const db = memory({ writeMs: 5 })
    return Effect.gen(function* () {
      const intake = yield* InboxIntake.Intake
      const n = InboxIntake.MAX_BATCH * 2 + 10
      const ids = yield* Effect.forEach(
        Array.from({ length: n }, (_, i) => `{"i":${i}}`),
        (body) => offer(intake, body),
        { concurrency: "unbounded" }
      )
      expect(db.committed.flatMap((c) => c.entries.map((e) => e.id))).toEqual(ids)
      expect(Math.max(...db.committed.map((c) => c.entries.length))).toBe(InboxIntake.MAX_BATCH)
      expect(db.committed.every((c) => c.jobs.length === 1)).toBe(true)
      expect(db.mostConcurrent()).toBe(1)
    }).pipe(Effect.provide(db.layer))
  })

  it.live("closing waits for the POSTs already accepted; an offer after that is refused", () => {
    const db = memory({ writeMs: 20 })
    return Effect.gen(function* () {
      const scope = yield* Scope.make()
      const intake = yield* Effect.provideService(Layer.buildWithScope(db.layer, scope), Scope.Scope, scope).pipe(
        Effect.map((context) => context.unsafeMap.get(InboxIntake.Intake.key) as InboxIntake.Intake["Type"])
      )
      const answers: Array<Exit.Exit<Inbox.InboxEntryId>> = []
      for (let i = 0; i < 3; i++) intake.offer("live", bytes(`{"i":${i}}`), (exit) => answers.push(exit))
      yield* Scope.close(scope, Exit.void)
      expect(answers.map(Exit.isSuccess)).toEqual([true, true, true])
      expect(db.committed.flatMap((c) => c.entries)).toHaveLength(3)
      const late = yield* Effect.exit(offer(intake, "{}"))
      expect(Exit.isInterrupted(late)).toBe(true)
      expect(db.committed.flatMap((c) => c.entries)).toHaveLength(3)
    })
  })
})
