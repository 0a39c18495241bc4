import { spawn, type ChildProcess } from "node:child_process"
import { freePort, nodeArgs, root } from "@switchboard/testing"

export { freePort, root }

/** Starts a TypeScript entry point with the source condition, as `pnpm start` does. */
export const startTs = (
  entry: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  extraNodeArgs: ReadonlyArray<string> = []
): ChildProcess =>
  spawn(process.execPath, [...extraNodeArgs, ...nodeArgs, entry, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })

export const waitForHttp = async (url: string, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url)
      if (res.status < 500) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not come up within ${timeoutMs} ms`)
}

export const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 5000).unref()
  })
