/**
 * `pnpm bench http`: GET /chat/templates?limit=25 (authentication included) on our server
 * against a bare node:http server reading the same rows from the same SQLite file, in the
 * same run, 50 connections each. Prints requests/s, p50/p99 latency and the ratio.
 */
import autocannon from "autocannon"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, root, startTs, stop, waitForHttp } from "./_util.js"

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const TEMPLATES = 40

const dir = mkdtempSync(join(tmpdir(), "sb-bench-http-"))
const file = join(dir, "bench.sqlite")
const env = { DATABASE_URL: file, LOG_LEVEL: "WARN", SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "100" }

const created = JSON.parse(
  execFileSync(
    process.execPath,
    ["--conditions=@switchboard/source", "--import", "tsx", "apps/server/src/main.ts", "stores", "create", "--name", "bench"],
    {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: "utf8"
    }
  )
) as { id: string; live_key: string }

const port = await freePort()
const server = startTs("apps/server/src/main.ts", ["serve"], { ...env, PORT: String(port) })
server.stderr?.on("data", (d) => process.env.BENCH_VERBOSE && process.stderr.write(d))
const base = `http://127.0.0.1:${port}`
await waitForHttp(`${base}/healthz`)
const auth = { authorization: `Bearer ${created.live_key}`, "content-type": "application/json" }
for (let i = 0; i < TEMPLATES; i++) {
  const res = await fetch(`${base}/chat/templates`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      templateData: {
        name: `order_update_${i}`,
        category: "UTILITY",
        language: "en_US",
        components: [{ type: "BODY", text: "Hello {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
      }
    })
  })
  if (res.status !== 201) throw new Error(`template create answered ${res.status}: ${await res.text()}`)
}

const barePort = await freePort()
const bare = startTs("bench/_bare.ts", [file, created.id, String(barePort)], {})
await waitForHttp(`http://127.0.0.1:${barePort}/`)

const load = (url: string, headers: Record<string, string>) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers }, (err, result) => (err ? reject(err) : resolve(result)))
  })

const check = await fetch(`${base}/chat/templates?limit=25`, { headers: auth })
const page = (await check.json()) as { data: Array<unknown> }
if (check.status !== 200 || page.data.length !== 25) throw new Error(`unexpected answer ${check.status}`)

// warm up both
await Promise.all([
  new Promise((r) => autocannon({ url: `${base}/chat/templates?limit=25`, connections: 10, duration: 2, headers: auth }, r)),
  new Promise((r) => autocannon({ url: `http://127.0.0.1:${barePort}/chat/templates?limit=25`, connections: 10, duration: 2 }, r))
])
const bareResult = await load(`http://127.0.0.1:${barePort}/chat/templates?limit=25`, {})
const ours = await load(`${base}/chat/templates?limit=25`, auth)

const row = (name: string, r: autocannon.Result) =>
  `${name.padEnd(28)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   non-2xx ${r.non2xx}`
console.log(`\nGET /chat/templates?limit=25, ${CONNECTIONS} connections, ${DURATION} s each`)
console.log(row("bare node:http + sqlite", bareResult))
console.log(row("switchboard (auth incl.)", ours))
console.log(`ratio ${(ours.requests.average / bareResult.requests.average).toFixed(3)} (goal >= 0.2, p99 < 15 ms)`)

await Promise.all([stop(server), stop(bare)])
rmSync(dir, { recursive: true, force: true })
