/**
 * The anchor of `pnpm bench campaign`'s ingestion: the rows `POST /chat/campaigns/{id}/recipients`
 * stores for the bench's phones (their time zones as the id of their list, `zone_id`), inserted into the same database by the bare driver, in
 * transactions of 10,000 rows (one a request), with the same `ON CONFLICT (campaign_id, phone)
 * DO NOTHING` where the statement allows it. SQLite: better-sqlite3, one multi-row INSERT
 * prepared once. PostgreSQL, two ways: one `unnest` INSERT of column arrays a transaction, and
 * `COPY … FROM STDIN` (text format) a transaction (no ON CONFLICT: COPY has none), and COPY
 * into a temporary table then one `INSERT … SELECT … ON CONFLICT DO NOTHING` from it.
 * Each answers the wall seconds and this process's CPU seconds.
 */
import Sqlite from "better-sqlite3"
import { readFileSync } from "node:fs"
import pg from "pg"

const PER_TRANSACTION = 10_000
const COLUMNS = "id, campaign_id, seq, phone, input, customer_id, parameters, status, skip_reason, retryable, updated_at, zone_id"

export interface AnchorRun {
  readonly seconds: number
  readonly cpuSeconds: number
  /** PostgreSQL: the CPU seconds of the connection's backend (from /proc: the server runs here). */
  readonly backendCpuSeconds?: number
}

/** CPU seconds (user + system) of a process of this machine. */
const processCpu = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** The id of the bench's `i`th anchor row of `round`: shaped as a recipient id (`rcp_` and 26 characters). */
const idOf = (round: number, i: number, how = 0) => `rcp_01ANCHOR${how}${String(round).padStart(2, "0")}${String(i).padStart(11, "0")}`

const timed = async (run: () => Promise<void> | void): Promise<AnchorRun> => {
  const started = performance.now()
  const cpu = process.cpuUsage()
  await run()
  const used = process.cpuUsage(cpu)
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 }
}

/** better-sqlite3 on the server's file: a multi-row INSERT of `perStatement` rows prepared once, a transaction per 10,000 rows. */
export const sqliteAnchor = (
  file: string,
  campaignId: string,
  round: number,
  n: number,
  phoneOf: (i: number) => string,
  zone: number | null,
  perStatement = 100
): Promise<AnchorRun> => {
  const db = new Sqlite(file)
  db.pragma("busy_timeout = 5000")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  try {
    const tuple = "(?, ?, ?, ?, null, null, null, 'pending', null, 0, ?, ?)"
    const statement = db.prepare(
      `insert into campaign_recipients (${COLUMNS}) values ${Array(perStatement).fill(tuple).join(", ")} on conflict (campaign_id, phone) do nothing`
    )
    const now = Date.now()
    return timed(() => {
      const values = new Array<unknown>(perStatement * 6)
      const insert = db.transaction((from: number) => {
        for (let start = from; start < from + PER_TRANSACTION; start += perStatement) {
          for (let k = 0; k < perStatement; k++) {
            const i = start + k
            const o = k * 6
            values[o] = idOf(round, i)
            values[o + 1] = campaignId
            values[o + 2] = i
            values[o + 3] = phoneOf(i)
            values[o + 4] = now
            values[o + 5] = zone
          }
          statement.run(values)
        }
      })
      for (let from = 0; from < n; from += PER_TRANSACTION) insert(from)
    })
  } finally {
    db.close()
  }
}

/** A `COPY … FROM STDIN` for pg's `client.query`: sends `data` once the server asks for it; resolves with the rows copied. */
class CopyIn {
  private resolve!: (rows: number) => void
  private reject!: (error: unknown) => void
  private rows = 0
  readonly done = new Promise<number>((resolve, reject) => {
    this.resolve = resolve
    this.reject = reject
  })
  constructor(
    readonly text: string,
    private readonly data: Buffer
  ) {}
  submit(connection: any) {
    connection.query(this.text)
  }
  handleCopyInResponse(connection: any) {
    connection.sendCopyFromChunk(this.data)
    connection.endCopyFrom()
  }
  handleCommandComplete(message: { text: string }) {
    this.rows = Number(message.text.split(" ")[1])
  }
  handleReadyForQuery() {
    this.resolve(this.rows)
  }
  handleError(error: unknown) {
    this.reject(error)
  }
  handleRowDescription() {}
  handleDataRow() {}
  handlePortalSuspended() {}
  handleEmptyQuery() {}
  handleCopyData() {}
}

/** pg on the server's database: `unnest` of column arrays, or COPY text, a transaction per 10,000 rows. */
export const postgresAnchor = async (
  url: string,
  how: "unnest" | "copy" | "copy+insert",
  campaignId: string,
  round: number,
  n: number,
  phoneOf: (i: number) => string,
  zone: number | null
): Promise<AnchorRun> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const now = Date.now()
    const backend = Number((await client.query("select pg_backend_pid() as pid")).rows[0].pid)
    const backendBefore = processCpu(backend)
    const run = await timed(async () => {
      for (let from = 0; from < n; from += PER_TRANSACTION) {
        const count = Math.min(PER_TRANSACTION, n - from)
        await client.query("begin")
        if (how === "unnest") {
          const ids = new Array<string>(count)
          const seqs = new Array<number>(count)
          const phones = new Array<string>(count)
          for (let k = 0; k < count; k++) {
            ids[k] = idOf(round, from + k)
            seqs[k] = from + k
            phones[k] = phoneOf(from + k)
          }
          await client.query(
            `insert into campaign_recipients (${COLUMNS})
             select u.id, $1::text, u.seq, u.phone, null, null, null, 'pending', null, 0, $2::bigint, $3::int
             from unnest($4::text[], $5::bigint[], $6::text[]) as u(id, seq, phone)
             on conflict (campaign_id, phone) do nothing`,
            [campaignId, now, zone, ids, seqs, phones]
          )
        } else {
          const tail = `\t\\N\t\\N\t\\N\tpending\t\\N\t0\t${now}\t${zone ?? "\\N"}\n`
          let text = ""
          for (let k = 0; k < count; k++)
            text += `${idOf(round, from + k, how === "copy" ? 1 : 2)}\t${campaignId}\t${from + k}\t${phoneOf(from + k)}${tail}`
          const staged = how === "copy+insert"
          if (staged) await client.query("create temp table if not exists anchor_in (like campaign_recipients) on commit delete rows")
          const copy = new CopyIn(`copy ${staged ? "anchor_in" : "campaign_recipients"} (${COLUMNS}) from stdin`, Buffer.from(text))
          client.query(copy as any)
          await copy.done
          if (staged)
            await client.query(
              `insert into campaign_recipients (${COLUMNS}) select ${COLUMNS} from anchor_in on conflict (campaign_id, phone) do nothing`
            )
        }
        await client.query("commit")
      }
    })
    return { ...run, backendCpuSeconds: processCpu(backend) - backendBefore }
  } finally {
    await client.end()
  }
}
