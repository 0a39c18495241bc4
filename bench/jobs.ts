/**
 * `pnpm bench jobs`: on PostgreSQL, how soon a job queued by one process starts in an idle
 * job runner of another (`switchboard worker` beside `serve`). Jobs are queued one at a time,
 * 20 to 60 ms apart (the runner idles between them), BENCH_JOBS (200) a round, BENCH_ROUNDS
 * (3) rounds; each job's latency is its start in the worker minus the commit of its enqueue in
 * this process (one machine, one clock). The anchor, in the same run and the same worker
 * process: a bare `NOTIFY` on a raw connection to a raw `LISTEN`. Goal: p99 under 50 ms (the
 * runner's idle poll is 1 s: without the wake-up a job waits up to that).
 */
import { JobQueue } from "@switchboard/domain"
import { StorePostgres } from "@switchboard/store-postgres"
import { probePostgres, POSTGRES } from "@switchboard/testing"
import { Effect } from "effect"
import { createInterface } from "node:readline"
import pg from "pg"
import { startTs, stop } from "./_util.js"

const JOBS = Number(process.env.BENCH_JOBS ?? 200)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

if (!(await probePostgres())) {
  console.error("bench jobs: PostgreSQL is not reachable at 127.0.0.1:5432")
  process.exit(1)
}
const database = await POSTGRES.createDatabase()
// migrate once before the worker starts
await Effect.runPromise(Effect.scoped(Effect.provide(Effect.void, StorePostgres.layer({ url: database.url, poolSize: 1 }))))

const worker = startTs("bench/_jobs-worker.ts", [], { DATABASE_URL: database.url })
const seen = new Map<string, number>()
let ready: () => void
const isReady = new Promise<void>((r) => (ready = r))
createInterface({ input: worker.stdout! }).on("line", (line) => {
  if (line === "ready") return ready()
  const [kind, name, at] = line.split(" ")
  seen.set(`${kind}:${name}`, Number(at))
})
worker.stderr!.on("data", (d) => process.env.BENCH_VERBOSE && process.stderr.write(d))
await isReady

const pause = () => new Promise((r) => setTimeout(r, 20 + Math.random() * 40))
const arrival = async (key: string) => {
  const until = Date.now() + 10_000
  while (!seen.has(key)) {
    if (Date.now() > until) throw new Error(`${key} never arrived`)
    await new Promise((r) => setTimeout(r, 1))
  }
  return seen.get(key)!
}
const quantile = (xs: ReadonlyArray<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!
const spread = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return `min ${s[0]!.toFixed(1)} / median ${s[Math.floor(s.length / 2)]!.toFixed(1)} / max ${s[s.length - 1]!.toFixed(1)} ms`
}

const notifier = new pg.Client({ connectionString: database.url })
await notifier.connect()
const rounds: Array<{ jobP50: number; jobP99: number; anchorP50: number; anchorP99: number }> = []
await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const queue = yield* JobQueue.JobQueue
      for (let round = 0; round < ROUNDS; round++) {
        const jobs: Array<number> = []
        const anchors: Array<number> = []
        for (let i = 0; i < JOBS; i++) {
          const name = `${round}-${i}`
          yield* Effect.promise(pause)
          yield* queue.enqueue({ kind: "bench.job", payload: { name } })
          const queuedAt = Date.now()
          jobs.push((yield* Effect.promise(() => arrival(`job:${name}`))) - queuedAt)
          yield* Effect.promise(pause)
          const sentAt = Date.now()
          yield* Effect.promise(() => notifier.query(`NOTIFY bench_anchor, '${name}'`))
          anchors.push((yield* Effect.promise(() => arrival(`anchor:${name}`))) - sentAt)
        }
        rounds.push({
          jobP50: quantile(jobs, 0.5),
          jobP99: quantile(jobs, 0.99),
          anchorP50: quantile(anchors, 0.5),
          anchorP99: quantile(anchors, 0.99)
        })
        console.log(
          `round ${round + 1}: job start p50 ${quantile(jobs, 0.5)} ms, p99 ${quantile(jobs, 0.99)} ms, max ${Math.max(...jobs)} ms; bare NOTIFY p50 ${quantile(anchors, 0.5)} ms, p99 ${quantile(anchors, 0.99)} ms`
        )
      }
    }).pipe(Effect.provide(StorePostgres.layer({ url: database.url, poolSize: 4 })))
  )
)
await notifier.end()
await stop(worker)
await database.drop()
console.log(`\njobs queued by one process, started by an idle runner in another (PostgreSQL, ${JOBS} jobs x ${ROUNDS} rounds):`)
console.log(`  p50: ${spread(rounds.map((r) => r.jobP50))}   (bare NOTIFY: ${spread(rounds.map((r) => r.anchorP50))})`)
console.log(`  p99: ${spread(rounds.map((r) => r.jobP99))}   (bare NOTIFY: ${spread(rounds.map((r) => r.anchorP99))})   goal: p99 < 50 ms`)
