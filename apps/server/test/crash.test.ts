/**
 * Workers die and stall while they hold jobs; every job still completes exactly once.
 *
 * The worker processes are `fixtures/worker.ts`: `JobRunner.run` over a real store with a
 * 1.5 s lease and one transactional job kind whose handler writes one inbox row naming
 * (job, attempt, worker) and then sleeps 30-80 ms, so that jobs are in flight when a signal
 * lands. Each process reports on stdout the jobs it claims, starts and writes.
 *
 * What would fail without the guarantees:
 * - without the handler's transaction, a job killed during its sleep would keep the row it
 *   wrote and get a second one from the worker that takes it over: "exactly one row" fails;
 * - without the fencing by attempt, the PostgreSQL worker that is stopped (SIGSTOP) longer
 *   than its lease and then resumed would commit the jobs that were meanwhile taken over
 *   and completed by another worker: again two rows; and the in-process stalled-worker test
 *   sees `complete` answer true.
 */
import { it as effectIt } from "@effect/vitest"
import { Inbox, JobQueue, Transactor } from "@switchboard/domain"
import { Database } from "@switchboard/store-sql"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { Cause, Deferred, Effect, Exit, Fiber, type Layer, ManagedRuntime, Option } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, eventually, entryArgs, POSTGRES, root, sleep, SQLITE, type TestDatabase } from "@switchboard/testing"
import { JobRunner } from "@switchboard/worker"

const here = dirname(fileURLToPath(import.meta.url))
const fixture = join(here, "fixtures", "worker.ts")
const KIND = "test.work"
const JOBS = 300
const LEASE_MS = 1500

// ---------------------------------------------------------------------------
// stores

type StoreLayer = Layer.Layer<JobQueue.JobQueue | Transactor.Transactor | Inbox.Inbox | Database.Database, unknown>

const layerFor = (target: string): StoreLayer =>
  target.startsWith("postgres") ? StorePostgres.layer({ url: target, poolSize: 4 }) : StoreSqlite.layer({ filename: target })

interface SideEffect {
  readonly job: string
  readonly attempt: number
  readonly worker: string
}

/** The test's own view of the store: enqueue, stats, and the rows the handlers wrote. */
const openStore = (target: string) => {
  const runtime = ManagedRuntime.make(layerFor(target))
  return {
    runtime,
    enqueue: (n: number) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const tx = yield* Transactor.Transactor
          return yield* tx.withTransaction(
            Effect.forEach(
              Array.from({ length: n }, (_, i) => i),
              (i) => queue.enqueue({ kind: KIND, payload: { n: i } })
            )
          )
        })
      ),
    stats: () => runtime.runPromise(Effect.flatMap(JobQueue.JobQueue, (queue) => queue.stats())),
    sideEffects: () =>
      runtime
        .runPromise(
          Effect.flatMap(Database.Database, (db) => db.query((k) => k.selectFrom("inbox").select("body").where("kind", "=", "sandbox").execute()))
        )
        .then((rows) => rows.map((row) => JSON.parse(row.body) as SideEffect)),
    /** The running jobs whose lease `workerId` holds, with the attempt it holds. */
    heldBy: (workerId: string) =>
      runtime
        .runPromise(
          Effect.flatMap(Database.Database, (db) =>
            db.query((k) =>
              k.selectFrom("jobs").select(["id", "attempt"]).where("status", "=", "running").where("locked_by", "=", workerId).execute()
            )
          )
        )
        .then((rows) => new Map(rows.map((row) => [row.id, Number(row.attempt)]))),
    jobs: () =>
      runtime.runPromise(
        Effect.flatMap(Database.Database, (db) =>
          db.query((k) => k.selectFrom("jobs").select(["id", "status", "attempt"]).where("kind", "=", KIND).execute())
        )
      ),
    close: () => runtime.dispose()
  }
}

// ---------------------------------------------------------------------------
// worker processes

interface Worker {
  readonly id: string
  readonly child: ChildProcess
  /** jobId -> attempts, in the order reported */
  readonly claimed: Map<string, Array<number>>
  readonly started: Map<string, Array<number>>
  readonly wrote: Map<string, Array<number>>
  readonly stderr: () => string
  readonly ready: Promise<void>
  /** Resolves once `predicate` holds after some stdout line (checked on every line). */
  readonly when: (predicate: () => boolean) => Promise<void>
  readonly exited: Promise<void>
}

const live = new Set<ChildProcess>()

const startWorker = (target: string, id: string): Worker => {
  const child = spawn(process.execPath, entryArgs(fixture, target, id), {
    cwd: root,
    env: { ...process.env, LEASE_MS: String(LEASE_MS), CONCURRENCY: "8" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  live.add(child)
  const claimed = new Map<string, Array<number>>()
  const started = new Map<string, Array<number>>()
  const wrote = new Map<string, Array<number>>()
  let stderr = ""
  child.stderr!.on("data", (d) => (stderr += String(d)))
  const waiters: Array<{ predicate: () => boolean; resolve: () => void }> = []
  let markReady: () => void = () => undefined
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve
    child.once("exit", (code, signal) => reject(new Error(`worker ${id} exited (${code ?? signal}) before it was ready:\n${stderr}`)))
  })
  ready.catch(() => undefined)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  exited.then(() => live.delete(child))
  const record = (map: Map<string, Array<number>>, job: string, attempt: string) => {
    const list = map.get(job) ?? []
    list.push(Number(attempt))
    map.set(job, list)
  }
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [what, job, attempt] = line.split(" ")
    if (what === "ready") markReady()
    else if (what === "claim") record(claimed, job, attempt)
    else if (what === "start") record(started, job, attempt)
    else if (what === "wrote") record(wrote, job, attempt)
    for (const waiter of [...waiters]) {
      if (waiter.predicate()) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
  })
  const when = (predicate: () => boolean) =>
    predicate()
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ predicate, resolve })
          exited.then(() => reject(new Error(`worker ${id} exited while the test waited on it:\n${stderr}`)))
        })
  return { id, child, claimed, started, wrote, stderr: () => stderr, ready, when, exited }
}

const stopWorker = async (worker: Worker): Promise<void> => {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return
  worker.child.kill("SIGCONT")
  worker.child.kill("SIGTERM")
  const timer = setTimeout(() => worker.child.kill("SIGKILL"), 5000)
  await worker.exited
  clearTimeout(timer)
}

const kill = async (worker: Worker): Promise<void> => {
  worker.child.kill("SIGKILL")
  await worker.exited
  expect(worker.child.signalCode).toBe("SIGKILL")
}

const count = (map: Map<string, Array<number>>) => [...map.values()].reduce((n, list) => n + list.length, 0)

/** Waits until no job is queued or running (the deadline is generous; the usual case is seconds). */
const drained = async (store: ReturnType<typeof openStore>, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const stats = await store.stats()
    if (stats.queued === 0 && stats.running === 0) return stats
    if (Date.now() > deadline) throw new Error(`queue not drained within ${timeoutMs} ms: ${JSON.stringify(stats)}`)
    await sleep(100)
  }
}

/** The last attempt at which `worker` claimed each job. */
const lastClaims = (worker: Worker) => new Map([...worker.claimed].map(([job, attempts]) => [job, Math.max(...attempts)]))

/**
 * Every job done, exactly one side effect per job, written by the attempt that completed it;
 * answers the side effect per job.
 */
const expectExactlyOnce = async (store: ReturnType<typeof openStore>, ids: ReadonlyArray<string>) => {
  const stats = await store.stats()
  expect(stats).toEqual({ queued: 0, running: 0, done: ids.length, dead: 0 })

  const effects = await store.sideEffects()
  const byJob = new Map<string, Array<SideEffect>>()
  for (const effect of effects) byJob.set(effect.job, [...(byJob.get(effect.job) ?? []), effect])
  const missing = ids.filter((id) => !byJob.has(id))
  const twice = [...byJob].filter(([, list]) => list.length > 1)
  const unknown = [...byJob.keys()].filter((id) => !ids.includes(id))
  expect({ missing, twice, unknown }).toEqual({ missing: [], twice: [], unknown: [] })
  expect(effects).toHaveLength(ids.length)

  const jobs = await store.jobs()
  expect(jobs).toHaveLength(ids.length)
  for (const job of jobs) {
    expect(job.status).toBe("done")
    // the row that committed is the one of the attempt that completed the job
    expect(byJob.get(job.id)![0].attempt).toBe(Number(job.attempt))
  }
  return new Map([...byJob].map(([job, [effect]]) => [job, effect]))
}

/**
 * The jobs `worker` held (claimed, without its side effect committed) when it died or
 * stalled: each must have been finished by another worker at a later attempt.
 */
const expectTakenOver = (worker: Worker, effects: Map<string, SideEffect>) => {
  const held = [...lastClaims(worker)].filter(([job]) => effects.get(job)!.worker !== worker.id)
  expect(held.length).toBeGreaterThan(0)
  for (const [job, attempt] of held) {
    const effect = effects.get(job)!
    expect(effect.worker).not.toBe(worker.id)
    expect(effect.attempt).toBeGreaterThan(attempt)
  }
  return held
}

afterEach(async () => {
  for (const child of live) {
    child.kill("SIGKILL")
  }
  live.clear()
})

// ---------------------------------------------------------------------------

describe.skipIf(!SQLITE.available)(`a ${SQLITE.name} worker killed while it holds jobs`, () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await SQLITE.createDatabase()
  })
  afterAll(async () => {
    await database?.drop()
  })

  it("its jobs are taken over by the next worker: every job completes, none twice", { timeout: 180_000 }, async () => {
    const file = database.url
    const store = openStore(file)
    try {
      const ids = await store.enqueue(JOBS)

      const victim = startWorker(file, "victim")
      await victim.ready
      // kill right after a write: that job is in its sleep, inside its uncommitted transaction
      await victim.when(() => count(victim.wrote) >= 40)
      await kill(victim)
      const afterKill = await store.stats()
      expect(afterKill.running).toBeGreaterThan(0)
      expect(afterKill.done).toBeLessThan(JOBS)

      const replacement = startWorker(file, "replacement")
      await replacement.ready
      await drained(store)
      await stopWorker(replacement)

      const effects = await expectExactlyOnce(store, ids)
      const held = expectTakenOver(victim, effects)
      for (const [job] of held) expect(effects.get(job)!.worker).toBe("replacement")
      expect([...effects.values()].some((e) => e.attempt > 1)).toBe(true)
    } finally {
      await store.close()
    }
  })
})

describe.skipIf(!POSTGRES.available)(`three ${POSTGRES.name} workers, one killed and one stalled`, () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await POSTGRES.createDatabase()
  })
  afterAll(async () => {
    await database?.drop()
  })

  it("every job completes, none twice", { timeout: 180_000 }, async () => {
    const store = openStore(database.url)
    try {
      await store.stats() // migrated before the workers start
      const workers = ["w1", "w2", "w3"].map((id) => startWorker(database.url, id))
      const [victim, stalled] = workers // the third survives: it takes over what the other two leave
      await Promise.all(workers.map((w) => w.ready))
      const ids = await store.enqueue(JOBS)

      // the victim dies mid-run, right after a write
      await victim.when(() => count(victim.wrote) >= 20)
      await kill(victim)
      // another one stops for longer than its lease, then wakes up: its writes must not commit
      await stalled.when(() => count(stalled.wrote) >= 30)
      stalled.child.kill("SIGSTOP")
      const stalledHeld = await store.heldBy(stalled.id)
      expect(stalledHeld.size).toBeGreaterThan(0)
      // Stay stopped until another worker has taken over one of its jobs. A fixed pause is not
      // enough: expired leases come after the queued jobs in claim order, and a slow survivor
      // may not reach them before the stalled worker wakes and reclaims its own (seen in CI).
      const takenOver = async () => {
        const jobs = await store.jobs()
        return jobs.some((job) => stalledHeld.has(job.id) && Number(job.attempt) > stalledHeld.get(job.id)!)
      }
      const stallDeadline = Date.now() + 60_000
      await sleep(LEASE_MS)
      while (!(await takenOver()) && Date.now() < stallDeadline) await sleep(100)
      stalled.child.kill("SIGCONT")

      await drained(store)
      // the woken worker notices it lost its leases (its late commits were refused)
      const deadline = Date.now() + 10_000
      while (!stalled.stderr().includes("job lease lost") && Date.now() < deadline) await sleep(50)
      await Promise.all(workers.map(stopWorker))

      const effects = await expectExactlyOnce(store, ids)
      const killedHeld = expectTakenOver(victim, effects)
      const stolen = [...stalledHeld].filter(([job]) => effects.get(job)!.worker !== "w2")
      expect(stolen.length).toBeGreaterThan(0)
      for (const [job, attempt] of stolen) expect(effects.get(job)!.attempt).toBeGreaterThan(attempt)
      expect(stalled.stderr()).toContain("job lease lost")
      // the stalled worker had written (uncommitted) some of the jobs that were taken from it
      expect(stolen.some(([job]) => stalled.wrote.has(job))).toBe(true)
      // all three workers did work
      for (const w of workers) expect([...effects.values()].some((e) => e.worker === w.id)).toBe(true)
      expect(killedHeld.length + stolen.length).toBeGreaterThan(1)
    } finally {
      await store.close()
    }
  })
})

// ---------------------------------------------------------------------------
// A stalled worker cannot commit, in process and step by step.

const stalledWorkerCannotCommit = Effect.gen(function* () {
  const queue = yield* JobQueue.JobQueue
  const tx = yield* Transactor.Transactor
  const inbox = yield* Inbox.Inbox
  const db = yield* Database.Database
  const kind = "test.stall"
  const id = yield* queue.enqueue({ kind, payload: null })
  const rows = () =>
    db
      .query((k) => k.selectFrom("inbox").select("body").where("kind", "=", "sandbox").execute())
      .pipe(Effect.map((all) => all.map((r) => JSON.parse(r.body) as SideEffect).filter((e) => e.job === id)))

  // what the runner does for a transactional handler: the write and the completion commit together
  const runHandler = (lease: JobQueue.Lease, worker: string) =>
    tx.withTransaction(
      Effect.gen(function* () {
        yield* inbox.insert([
          {
            id: yield* Inbox.InboxEntryId.generate,
            kind: "sandbox",
            body: JSON.stringify({ job: lease.id, attempt: lease.attempt, worker }),
            receivedAt: Date.now()
          }
        ])
        if (!(yield* queue.complete(lease))) return yield* new JobQueue.LeaseLost({ jobId: lease.id, attempt: lease.attempt })
      })
    )

  const [first] = yield* queue.claim({ workerId: "stalled", kinds: [kind], limit: 1, leaseMs: 300 })
  expect(first).toMatchObject({ id, attempt: 1 })
  // while the lease holds nobody else gets the job
  expect(yield* queue.claim({ workerId: "other", kinds: [kind], limit: 1, leaseMs: 30_000 })).toEqual([])

  yield* Effect.sleep("450 millis")
  const [second] = yield* queue.claim({ workerId: "other", kinds: [kind], limit: 1, leaseMs: 30_000 })
  expect(second).toMatchObject({ id, attempt: 2 })

  // the stalled worker wakes up: nothing it does about the job takes effect
  const exit = yield* Effect.exit(runHandler(first, "stalled"))
  expect(Exit.isFailure(exit) && Option.getOrUndefined(Cause.failureOption(exit.cause))).toBeInstanceOf(JobQueue.LeaseLost)
  expect(yield* rows()).toEqual([])
  expect(yield* queue.heartbeat(first, 30_000)).toBe(false)
  expect(yield* queue.complete(first)).toBe(false)
  expect(yield* queue.retry(first, Date.now(), "late")).toBe(false)
  expect(yield* queue.fail(first, "late")).toBe(false)

  // the new holder's lease is intact and its transaction commits
  yield* runHandler(second, "other")
  expect(yield* rows()).toEqual([{ job: id, attempt: 2, worker: "other" }])
  expect(yield* queue.complete(second)).toBe(false) // done already: no second completion
  const stats = yield* queue.stats()
  expect(stats.done).toBe(1)
  expect(stats.running).toBe(0)
})

describe("a stalled worker", () => {
  for (const dialect of DIALECTS) {
    effectIt.scopedLive.skipIf(!dialect.available)(`cannot commit after its lease was taken over (${dialect.name})`, () =>
      Effect.gen(function* () {
        const database = yield* Effect.acquireRelease(Effect.promise(dialect.createDatabase), (d) => Effect.promise(d.drop))
        yield* Effect.provide(stalledWorkerCannotCommit, layerFor(database.url))
      })
    )
  }
})

// ---------------------------------------------------------------------------
// A deadlock's victim runs again at once, in process.

/**
 * Two transactional jobs write the same two rows in opposite orders, each waiting for the
 * other's first write: PostgreSQL aborts one of them as a deadlock's victim. The runner runs
 * the victim's transaction again at once, so both jobs complete at their first attempt (no
 * back-off that would let later jobs overtake), each write exactly once.
 */
const deadlockVictimRunsAgain = Effect.gen(function* () {
  const queue = yield* JobQueue.JobQueue
  const inbox = yield* Inbox.Inbox
  const db = yield* Database.Database
  const kind = "test.deadlock"
  const rows = [yield* Inbox.InboxEntryId.generate, yield* Inbox.InboxEntryId.generate]
  yield* inbox.insert(rows.map((id) => ({ id, kind: "sandbox" as const, body: "{}", receivedAt: Date.now() })))
  const first = yield* queue.enqueue({ kind, payload: { order: [0, 1] } })
  const second = yield* queue.enqueue({ kind, payload: { order: [1, 0] } })
  const wrote = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
  let runs = 0
  const handlers: Record<string, JobRunner.Handler<Inbox.Inbox | Database.Database>> = {
    [kind]: {
      run: (job) =>
        Effect.gen(function* () {
          runs++
          const [a, b] = (job.payload as { order: [number, number] }).order
          const mark = (i: number) =>
            db.query((k) =>
              k
                .updateTable("inbox")
                .set({ outcome: `${job.id} ${i}` })
                .where("id", "=", rows[i])
                .execute()
            )
          yield* mark(a)
          yield* Deferred.succeed(wrote[a], undefined)
          yield* Deferred.await(wrote[b])
          yield* mark(b)
        })
    }
  }
  const runner = yield* Effect.forkScoped(JobRunner.run({ handlers, concurrency: 2, pollMs: 20, leaseMs: 30_000 }))
  const done = async () => (await Effect.runPromise(queue.stats())).done
  yield* Effect.promise(() => eventually(async () => (await done()) >= 2 || undefined, "both jobs done", 30_000))
  yield* Fiber.interrupt(runner)
  expect(runs).toBe(3) // the victim ran twice, the other once
  const jobs = yield* db.query((k) => k.selectFrom("jobs").select(["id", "attempt", "status", "last_error"]).where("kind", "=", kind).execute())
  expect(jobs.map((j) => ({ ...j, attempt: Number(j.attempt) })).sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
    [first, second].sort().map((id) => ({ id, attempt: 1, status: "done", last_error: null }))
  )
})

describe.skipIf(!POSTGRES.available)("a deadlock", () => {
  effectIt.scopedLive(`its victim runs again at once and both jobs complete at their first attempt (${POSTGRES.name})`, () =>
    Effect.gen(function* () {
      const database = yield* Effect.acquireRelease(Effect.promise(POSTGRES.createDatabase), (d) => Effect.promise(d.drop))
      yield* Effect.provide(deadlockVictimRunsAgain, layerFor(database.url))
    })
  )
})
