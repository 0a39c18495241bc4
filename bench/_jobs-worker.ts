/**
 * The worker process of `pnpm bench jobs`: a job runner over the PostgreSQL store (idle poll
 * 1 s, as `switchboard worker`), printing `job <name> <epoch ms>` when a job starts, and a
 * raw `LISTEN bench_anchor` connection printing `anchor <name> <epoch ms>` (the floor: one
 * NOTIFY through the same server, no queue).
 */
import { StorePostgres } from "@switchboard/store-postgres"
import { JobRunner } from "@switchboard/worker"
import { Effect } from "effect"
import pg from "pg"

const url = process.env.DATABASE_URL!
const anchor = new pg.Client({ connectionString: url })
await anchor.connect()
anchor.on("notification", (n) => process.stdout.write(`anchor ${n.payload} ${Date.now()}\n`))
await anchor.query("LISTEN bench_anchor")

const handlers: Record<string, JobRunner.Handler<never>> = {
  "bench.job": { run: (job) => Effect.sync(() => process.stdout.write(`job ${(job.payload as { name: string }).name} ${Date.now()}\n`)) }
}
process.stdout.write("ready\n")
await Effect.runPromise(
  Effect.scoped(JobRunner.run({ handlers, pollMs: 100, idlePollMs: 1000 })).pipe(Effect.provide(StorePostgres.layer({ url, poolSize: 4 })))
)
