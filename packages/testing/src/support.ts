/**
 * What the end-to-end tests and benchmarks share: the repository root, how to start our
 * TypeScript entry points, free ports, polling, and the operator's webhook signature.
 * (Databases per run: `dialects.ts`, `postgres.ts`.)
 */
import { createHmac } from "node:crypto"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root (this file is `packages/testing/src/support.ts`). */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** Node flags that run our sources as `pnpm start` does. */
export const nodeArgs: ReadonlyArray<string> = ["--conditions=@switchboard/source", "--import", "tsx"]

/**
 * Node's arguments to run the `switchboard` CLI with `args`: the bundle of the current
 * sources the test run built once (`SWITCHBOARD_TEST_BUNDLE`, see `test/globalSetup.ts`),
 * which starts in a fraction of the CPU time, else the sources through tsx.
 */
export const cliArgs = (...args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const bundle = process.env.SWITCHBOARD_TEST_BUNDLE
  return bundle ? [bundle, ...args] : [...nodeArgs, join(root, "apps/server/src/main.ts"), ...args]
}

/**
 * Node's arguments to run a TypeScript entry point (a test fixture, the emulator's `main.ts`)
 * with `args`: its bundle from the test run's setup (`SWITCHBOARD_TEST_ENTRIES`, see
 * `test/globalSetup.ts`; a process start costs a fifth of tsx's CPU, and the crash tests start
 * many), else the source through tsx.
 */
export const entryArgs = (source: string, ...args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const bundled = process.env.SWITCHBOARD_TEST_ENTRIES?.split(",").find((e) => e.startsWith(`${source}=`))
  return bundled ? [bundled.slice(source.length + 1), ...args] : [...nodeArgs, source, ...args]
}

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
  f: () => Promise<A | undefined | false | null> | A | undefined | false | null,
  what: string,
  timeoutMs = 30_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await f()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** `X-Hub-Signature-256` as the operator computes it: HMAC-SHA256 of the exact body bytes. */
export const signOperatorPayload = (body: string | Buffer, secret: string): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
