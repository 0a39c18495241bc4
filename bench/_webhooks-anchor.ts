/**
 * The anchor of `pnpm bench webhooks` (`_anchor-webhooks.mjs`, a plain `node` process:
 * node:http, the HMAC check, one prepared SQLite INSERT per POST), driven by the bench's own
 * client with the bench's POSTs at the same connections, over BENCH_ANCHOR_ROUNDS (3) rounds
 * (0 skips it), each on a fresh file. Prints min / median / max POSTs acknowledged per second
 * and each store's ingest rate as a share of the median.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, root, stop, waitForHttp } from "./_util.js"

interface Post {
  readonly body: Buffer
  readonly signature: string
}

type Fire<P extends Post> = (url: string, posts: ReadonlyArray<P>, connections: number) => Promise<{ byStatus: Record<number, number>; ms: number }>

export const anchorRates = async <P extends Post>(options: {
  readonly posts: ReadonlyArray<P>
  readonly fire: Fire<P>
  readonly connections: number
  readonly appSecret: string
  readonly rounds: number
}): Promise<Array<number>> => {
  const { posts, fire, connections } = options
  const rates: Array<number> = []
  for (let round = 0; round < options.rounds; round++) {
    const dir = mkdtempSync(join(tmpdir(), "sb-bench-webhooks-anchor-"))
    const port = await freePort()
    const anchor = spawn(process.execPath, ["bench/_anchor-webhooks.mjs", String(port), options.appSecret, join(dir, "anchor.sqlite")], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"]
    })
    try {
      await waitForHttp(`http://127.0.0.1:${port}/`)
      const url = `http://127.0.0.1:${port}/chat/operator/webhook`
      const forged = await fire(url, [{ ...posts[0], signature: "sha256=00" }], 1)
      if (forged.byStatus[401] !== 1) throw new Error("the webhooks anchor accepted a forged signature")
      await fire(url, posts.slice(0, 500), connections) // warm-up
      const load = await fire(url, posts, connections)
      if (load.byStatus[200] !== posts.length) throw new Error(`the webhooks anchor did not acknowledge every POST: ${JSON.stringify(load.byStatus)}`)
      rates.push((posts.length * 1000) / load.ms)
    } finally {
      await stop(anchor)
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return rates.sort((a, b) => a - b)
}

export const printAnchor = async <P extends Post>(options: {
  readonly posts: ReadonlyArray<P>
  readonly fire: Fire<P>
  readonly connections: number
  readonly appSecret: string
  /** Each store's ingest rate (POSTs acknowledged per second) in this run. */
  readonly ingest: ReadonlyArray<{ readonly store: string; readonly perSecond: number }>
}): Promise<void> => {
  const rates = await anchorRates({ ...options, rounds: Number(process.env.BENCH_ANCHOR_ROUNDS ?? 3) })
  if (rates.length === 0) return
  const median = rates[Math.floor((rates.length - 1) / 2)]
  const rate = (n: number) => Math.round(n).toLocaleString("en-US")
  console.log(`\nanchor: node:http + HMAC + one prepared SQLite INSERT per POST, same client, ${options.connections} connections`)
  console.log(`  POST/s min / median / max over ${rates.length} rounds: ${rate(rates[0])} / ${rate(median)} / ${rate(rates[rates.length - 1])}`)
  for (const r of options.ingest)
    console.log(`  ${r.store}: ingest ${rate(r.perSecond)} POST/s = ${(r.perSecond / median).toFixed(3)} of the anchor's median`)
}
