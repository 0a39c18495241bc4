/**
 * What the end-to-end tests and benchmarks share: the repository root, how to start our
 * TypeScript entry points, free ports, polling, PostgreSQL databases per run, and the
 * operator's webhook signature.
 */
import { createHmac } from "node:crypto"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Node flags that run our sources as `pnpm start` does. */
export const nodeArgs: ReadonlyArray<string> = ["--conditions=@switchboard/source", "--import", "tsx"]

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (typeof address === "object" && address) server.close(() => resolve(address.port))
      else reject(new Error("no free port"))
    })
  })

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Polls `f` until it answers a truthy value; fails naming `what` after `timeoutMs`. */
export const eventually = async <A>(
  f: () => Promise<A | undefined | false> | A | undefined | false,
  what: string,
  timeoutMs = 30_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await f()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

/** `X-Hub-Signature-256` as the operator computes it: HMAC-SHA256 of the exact body bytes. */
export const signOperatorPayload = (body: string | Buffer, secret: string): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

export const postgresAvailable = process.env.SWITCHBOARD_POSTGRES_AVAILABLE === "1"
export const postgresAdminUrl = process.env.SWITCHBOARD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const admin = async (sql: string): Promise<void> => {
  const { Client } = (await import("pg")).default
  const client = new Client({ connectionString: postgresAdminUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** A fresh `sb_test_<random>` database for one run: its URL and how to drop it. */
export const createPostgresDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const name = `sb_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
