/**
 * Flows end to end (spec §4.11, issue 15), on SQLite and PostgreSQL over real HTTP with the
 * emulator: create, put broken JSON and get positioned errors, put it with autoFix and get
 * the fixes, publish (mirrored at the operator, read back from the emulator's state file),
 * editing a published flow is 409 flow_published, versions deprecate their predecessor (and
 * any other published version of their lineage), concurrent new versions take distinct
 * numbers, delete only drafts, and another store's flow id answers 404 on every flow route.
 */
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { signUpFlowOf } from "./fixtures/flows.js"
import { eventually, type CreatedStore, type Harness, withStores } from "./harness.js"

interface OperatorFlow {
  readonly id: string
  readonly name: string
  readonly status: string
  readonly json?: string
  readonly categories: ReadonlyArray<string>
}

const signUp = (version = "7.3") => signUpFlowOf(version, { "input-type": "email" })

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`flows end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect))
    }, 60_000)
    afterAll(() => h?.stop())

    const operatorFlows = (): ReadonlyArray<OperatorFlow> =>
      existsSync(h.env.SWITCHBOARD_EMULATOR_STATE) ? (JSON.parse(readFileSync(h.env.SWITCHBOARD_EMULATOR_STATE, "utf8")).flows?.flows ?? []) : []
    const atOperator = (id: string, check: (f: OperatorFlow | undefined) => boolean, what: string) =>
      eventually(async () => check(operatorFlows().find((f) => f.id === id)), what, 5_000)

    const create = async (key: string, name = "Sign up") => {
      const created = await h.request("POST", "/chat/flows", key, { name, categories: ["OTHER"] })
      expect(created.status).toBe(201)
      return created.json
    }

    it("create answers 201 with id and status DRAFT, mirrored at the operator; bad input is a 400 naming the field", async () => {
      const flow = await create(a.live_key)
      expect(flow).toMatchObject({
        id: expect.stringMatching(/^flw_/),
        status: "DRAFT",
        version: 1,
        previous_version_id: null,
        categories: ["OTHER"]
      })
      await atOperator(flow.operator_flow_id, (f) => f?.status === "DRAFT" && f.name === "Sign up", "the operator has the draft")
      const bad = await h.request("POST", "/chat/flows", a.live_key, { name: "x", categories: ["NOPE"] })
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe("validation_failed")
      expect(JSON.stringify(bad.json.error.details)).toContain("categories")
      expect((await h.request("GET", "/chat/flows", a.live_key)).json.data.map((f: any) => f.id)).toContain(flow.id)
    })

    it("broken JSON sent as text gets positioned errors and nothing is stored; autoFix lists its fixes; patch after publish is 409 flow_published", async () => {
      const flow = await create(a.live_key)
      const broken = signUp()
      delete (broken as any).version
      ;(broken.screens[0] as any).terminal = undefined
      const text = JSON.stringify(broken, null, 2)
      const rejected = await h.request("PUT", `/chat/flows/${flow.id}/json`, a.live_key, { json: text })
      expect(rejected.status).toBe(400)
      expect(rejected.json.error.code).toBe("validation_failed")
      expect(rejected.json.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ error: "MISSING_REQUIRED_PROPERTY", path: "", line_start: 1 })])
      )
      for (const e of rejected.json.error.details) expect(e).toMatchObject({ path: expect.any(String), line_start: expect.any(Number) })
      expect((await h.request("GET", `/chat/flows/${flow.id}/json`, a.live_key)).json.json).toBeNull()

      const fixed = await h.request("PUT", `/chat/flows/${flow.id}/json`, a.live_key, { json: text, autoFix: true })
      expect(fixed.status).toBe(200)
      expect(fixed.json.fixes_applied.map((f: any) => f.fix)).toEqual(["add_version", "set_terminal"])
      expect(fixed.json).toMatchObject({ json_version: "7.3", status: "DRAFT" })
      const stored = (await h.request("GET", `/chat/flows/${flow.id}/json`, a.live_key)).json
      expect(stored.json.version).toBe("7.3")
      await atOperator(flow.operator_flow_id, (f) => f?.json !== undefined && JSON.parse(f.json).version === "7.3", "the operator has the JSON")

      const unfixable = await h.request("PUT", `/chat/flows/${flow.id}/json`, a.live_key, { json: { ...signUp(), version: "1.0" }, autoFix: true })
      expect(unfixable.status).toBe(400)
      expect(unfixable.json.error.details[0]).toMatchObject({ path: "/version" })

      const published = await h.request("POST", `/chat/flows/${flow.id}/publish`, a.live_key)
      expect(published.status).toBe(200)
      expect(published.json.status).toBe("PUBLISHED")
      await atOperator(flow.operator_flow_id, (f) => f?.status === "PUBLISHED", "published at the operator")
      const patch = await h.request("PATCH", `/chat/flows/${flow.id}`, a.live_key, { name: "Renamed" })
      expect(patch.status).toBe(409)
      expect(patch.json.error.code).toBe("flow_published")
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.live_key, { json: signUp() })).json.error.code).toBe("flow_published")
      expect((await h.request("DELETE", `/chat/flows/${flow.id}`, a.live_key)).status).toBe(409)
      expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, a.live_key)).json.error.code).toBe("invalid_state")
    })

    it("a draft is patched and deleted (at the operator too); deprecating a draft is 409 invalid_state; publishing without JSON is 400", async () => {
      const flow = await create(a.live_key, "Temp")
      const patched = await h.request("PATCH", `/chat/flows/${flow.id}`, a.live_key, { name: "Temp 2", categories: ["SURVEY"] })
      expect(patched.json).toMatchObject({ name: "Temp 2", categories: ["SURVEY"] })
      await atOperator(flow.operator_flow_id, (f) => f?.name === "Temp 2", "renamed at the operator")
      const deprecate = await h.request("POST", `/chat/flows/${flow.id}/deprecate`, a.live_key)
      expect(deprecate.status).toBe(409)
      expect(deprecate.json.error).toMatchObject({ code: "invalid_state", details: { status: "DRAFT" } })
      const publish = await h.request("POST", `/chat/flows/${flow.id}/publish`, a.live_key)
      expect(publish.status).toBe(400)
      expect(JSON.stringify(publish.json.error.details)).toContain("json")
      expect((await h.request("DELETE", `/chat/flows/${flow.id}`, a.live_key)).json).toEqual({ id: flow.id, deleted: true })
      await atOperator(flow.operator_flow_id, (f) => f === undefined, "deleted at the operator")
      expect((await h.request("GET", `/chat/flows/${flow.id}`, a.live_key)).status).toBe(404)
    })

    it("version 2 names its predecessor; publishing it deprecates version 1; the lineage lists both", async () => {
      const v1 = await create(a.live_key, "Booking")
      await h.request("PUT", `/chat/flows/${v1.id}/json`, a.live_key, { json: signUp() })
      await h.request("POST", `/chat/flows/${v1.id}/publish`, a.live_key)
      const v2 = await h.request("POST", `/chat/flows/${v1.id}/versions`, a.live_key)
      expect(v2.status).toBe(201)
      expect(v2.json).toMatchObject({ status: "DRAFT", version: 2, previous_version_id: v1.id, name: "Booking", json_version: "7.3" })
      expect(v2.json.operator_flow_id).not.toBe(v1.operator_flow_id)
      const published = await h.request("POST", `/chat/flows/${v2.json.id}/publish`, a.live_key)
      expect(published.json.status).toBe("PUBLISHED")
      expect((await h.request("GET", `/chat/flows/${v1.id}`, a.live_key)).json.status).toBe("DEPRECATED")
      await atOperator(v1.operator_flow_id, (f) => f?.status === "DEPRECATED", "v1 deprecated at the operator")
      const lineage = await h.request("GET", `/chat/flows/${v2.json.id}/versions`, a.live_key)
      expect(lineage.json.data.map((f: any) => [f.version, f.status])).toEqual([
        [1, "DEPRECATED"],
        [2, "PUBLISHED"]
      ])
      // deprecate_previous=false keeps the predecessor published
      const v3 = (await h.request("POST", `/chat/flows/${v2.json.id}/versions`, a.live_key)).json
      expect((await h.request("POST", `/chat/flows/${v3.id}/publish?deprecate_previous=false`, a.live_key)).json.status).toBe("PUBLISHED")
      expect((await h.request("GET", `/chat/flows/${v2.json.id}`, a.live_key)).json.status).toBe("PUBLISHED")
      expect((await h.request("POST", `/chat/flows/${v2.json.id}/deprecate`, a.live_key)).json.status).toBe("DEPRECATED")
    })

    it("concurrent new versions of one flow (two at a time, several rounds) are all created, with distinct numbers, never a 500", async () => {
      const v1 = await create(a.live_key, "Twins")
      const versions = [v1.version]
      for (let round = 0; round < 6; round++) {
        const twins = await Promise.all([0, 1].map(() => h.request("POST", `/chat/flows/${v1.id}/versions`, a.live_key)))
        expect(twins.map((t) => t.status)).toEqual([201, 201])
        versions.push(...twins.map((t) => t.json.version))
      }
      expect([...versions].sort((x, y) => x - y)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1))
      const lineage = await h.request("GET", `/chat/flows/${v1.id}/versions?limit=100`, a.live_key)
      expect(lineage.json.data.map((f: any) => f.version)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1))
    })

    it("publishing a version deprecates every published version of its lineage, not only its predecessor", async () => {
      const v1 = await create(a.live_key, "Skip")
      await h.request("PUT", `/chat/flows/${v1.id}/json`, a.live_key, { json: signUp() })
      await h.request("POST", `/chat/flows/${v1.id}/publish`, a.live_key)
      const v2 = (await h.request("POST", `/chat/flows/${v1.id}/versions`, a.live_key)).json
      // a version made from the draft v2, skipping it
      const v3 = (await h.request("POST", `/chat/flows/${v2.id}/versions`, a.live_key)).json
      expect((await h.request("POST", `/chat/flows/${v3.id}/publish`, a.live_key)).json.status).toBe("PUBLISHED")
      const lineage = await h.request("GET", `/chat/flows/${v1.id}/versions`, a.live_key)
      expect(lineage.json.data.map((f: any) => [f.version, f.status])).toEqual([
        [1, "DEPRECATED"],
        [2, "DRAFT"],
        [3, "PUBLISHED"]
      ])
      await atOperator(v1.operator_flow_id, (f) => f?.status === "DEPRECATED", "v1 deprecated at the operator")
    })

    it("the preview link opens our own page without a key, showing the first screen's title; a tampered or foreign link is 404", async () => {
      const flow = await create(a.live_key, "Preview me")
      await h.request("PUT", `/chat/flows/${flow.id}/json`, a.live_key, { json: signUp() })
      const preview = await h.request("GET", `/chat/flows/${flow.id}/preview`, a.live_key)
      expect(preview.status).toBe(200)
      expect(preview.json.preview_url).toContain(`/chat/flow-preview/${flow.id}?expires=`)
      expect(Date.parse(preview.json.expires_at)).toBeGreaterThan(Date.now())
      const page = await fetch(preview.json.preview_url)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toContain("text/html")
      const html = await page.text()
      expect(html).toContain('<section id="SIGN_UP"><h1>Sign up</h1>')
      expect(html).toContain('<input name="email" type="email">')
      expect(html).toContain("<button")
      const tampered = await fetch(preview.json.preview_url.replace(/signature=.{4}/, "signature=AAAA"))
      expect(tampered.status).toBe(404)
      const otherFlow = preview.json.preview_url.replace(flow.id, (await create(a.live_key, "Other")).id)
      expect((await fetch(otherFlow)).status).toBe(404)
      expect((await h.request("GET", `/chat/flows/${flow.id}/preview`, b.live_key)).status).toBe(404)
    })

    it("another store's, another mode's, an unknown or a malformed flow id answers 404 resource_not_found on every flow route", async () => {
      const flow = await create(a.live_key, "Private")
      const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
        ["GET", ""],
        ["PATCH", "", { name: "x" }],
        ["DELETE", ""],
        ["PUT", "/json", { json: signUp() }],
        ["GET", "/json"],
        ["POST", "/publish"],
        ["POST", "/deprecate"],
        ["POST", "/versions"],
        ["GET", "/versions"],
        ["GET", "/preview"],
        ["GET", "/stats"],
        ["GET", "/responses"]
      ]
      for (const [method, suffix, body] of routes) {
        for (const [key, id] of [
          [b.live_key, flow.id],
          [a.test_key, flow.id],
          [a.live_key, "flw_01M85GK8TB3E8BH2R1WY18AD8X"],
          [a.live_key, "nope"]
        ] as const) {
          const res = await h.request(method, `/chat/flows/${id}${suffix}`, key, body)
          expect([method, suffix, res.status, res.json.error?.code]).toEqual([method, suffix, 404, "resource_not_found"])
        }
      }
      expect((await h.request("GET", `/chat/flows/${flow.id}`, a.live_key)).json.status).toBe("DRAFT")
    })
  })
