/**
 * Mirrored writes end to end (`domain/src/shared/Mirror.ts`):
 * - a crash (the server killed with SIGKILL) between a route's prepare and its operator call
 *   is finished by the sweep job after the restart: one catalog (one flow) at the operator,
 *   the same one here; on SQLite and PostgreSQL.
 * - while store A's catalog create and flow create wait on a slow operator (4 s), store B's
 *   local writes (an opt-out, a draft campaign) answer within 500 ms, before A's calls finish
 *   (SQLite, whose one writer a call inside a transaction would hold).
 */
import { startEmulator } from "@switchboard/operator-emulator"
import { DIALECTS, eventually, SQLITE } from "@switchboard/testing"
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, startServer } from "./harness.js"
import { crashAt as killedAt } from "./steps.js"

const SWEEP_MS = "3000"

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`mirrored writes killed mid-way (${dialect.name})`, () => {
    let h: Harness
    let a: CreatedStore

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: SWEEP_MS }, { dialect })
      a = h.createStore("Shop A")
    }, 120_000)
    afterAll(() => h?.stop())

    const operatorState = () =>
      existsSync(h.env.SWITCHBOARD_EMULATOR_STATE) ? JSON.parse(readFileSync(h.env.SWITCHBOARD_EMULATOR_STATE, "utf8")) : {}

    /** Starts `request`, waits until the server halts between prepare and call, kills it and starts it again without the halt. */
    const crashAt = (halt: string, request: () => Promise<unknown>) => killedAt(h, halt, request)

    it("POST /chat/catalogs: killed after prepare, the sweep creates it once at the operator and records it", async () => {
      await crashAt("catalogs.create:prepared", () => h.request("POST", "/chat/catalogs", a.test_key, { name: "Crashed spring" }))
      const listed = async () => (await h.request("GET", "/chat/catalogs", a.test_key)).json.data as Array<any>
      await eventually(async () => (await listed()).some((c) => c.name === "Crashed spring"), "the sweep recorded the catalog", 30_000)
      const [local] = (await listed()).filter((c) => c.name === "Crashed spring")
      await eventually(
        async () => (operatorState().catalogs?.catalogs ?? []).filter((c: any) => c.name === "Crashed spring").length === 1,
        "the operator has it",
        5_000
      )
      const atOperator = (operatorState().catalogs.catalogs as Array<any>).filter((c) => c.name === "Crashed spring")
      expect(atOperator.map((c) => c.id)).toEqual([local.operator_catalog_id])
      const rows = await h.query<{ status: string }>("SELECT status FROM mirror_outbox WHERE kind = 'catalogs.create'")
      expect(rows.map((r) => r.status)).toEqual(["done"])
    }, 180_000)

    it("POST /chat/flows: killed after prepare, the sweep creates the flow once and records it as a DRAFT", async () => {
      await crashAt("flows.create:prepared", () => h.request("POST", "/chat/flows", a.test_key, { name: "crashed_signup", categories: ["SIGN_UP"] }))
      const listed = async () => (await h.request("GET", "/chat/flows", a.test_key)).json.data as Array<any>
      await eventually(async () => (await listed()).some((f) => f.name === "crashed_signup"), "the sweep recorded the flow", 30_000)
      const flows = (await listed()).filter((f) => f.name === "crashed_signup")
      expect(flows.length).toBe(1)
      expect(flows[0]).toMatchObject({ status: "DRAFT", version: 1 })
      expect(flows[0].operator_flow_id).toMatch(/\d+/)
      const rows = await h.query<{ status: string }>("SELECT status FROM mirror_outbox WHERE kind = 'flows.create'")
      expect(rows.map((r) => r.status)).toEqual(["done"])
    }, 180_000)
  })
}

describe.skipIf(!SQLITE.available)("a slow operator does not hold other stores' writes (SQLite)", () => {
  let h: Harness
  let emulator: Awaited<ReturnType<typeof startEmulator>>

  beforeAll(async () => {
    emulator = await startEmulator({ appSecret: "e2e-app-secret" })
    h = await startServer({ SWITCHBOARD_EMULATOR_URL: emulator.url }, { dialect: SQLITE })
  })
  afterAll(async () => {
    await h?.stop()
    await emulator?.close()
  })

  it("store B's opt-out and draft campaign answer within 500 ms while A's catalog and flow creates wait 4 s on the operator", async () => {
    const a = h.createStore("Slow A")
    const b = h.createStore("Quick B")
    emulator.configure({ latencyMs: 4000 })
    const finished: Array<string> = []
    const started = Date.now()
    const slow = [
      h.request("POST", "/chat/catalogs", a.test_key, { name: "Slow catalog" }).then((r) => {
        finished.push("catalog")
        return r
      }),
      h.request("POST", "/chat/flows", a.test_key, { name: "slow_flow", categories: ["OTHER"] }).then((r) => {
        finished.push("flow")
        return r
      })
    ]
    await new Promise((r) => setTimeout(r, 300))
    const timed = async (run: () => Promise<{ status: number }>) => {
      const t0 = Date.now()
      const res = await run()
      return { status: res.status, ms: Date.now() - t0 }
    }
    const optOut = await timed(() => h.request("POST", "/chat/opt-outs", b.test_key, { phone: "+4915112345678" }))
    const draft = await timed(() =>
      h.request("POST", "/chat/campaigns", b.test_key, { name: "Quick draft", template: { name: "hello_world", language: "en_US", parameters: [] } })
    )
    expect(finished).toEqual([])
    expect(optOut.status).toBe(201)
    expect(optOut.ms).toBeLessThan(500)
    expect(draft.ms).toBeLessThan(500)
    expect([201, 404, 400]).toContain(draft.status)
    const [catalog, flow] = await Promise.all(slow)
    expect(catalog.status).toBe(201)
    expect(flow.status).toBe(201)
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000)
  })
})
