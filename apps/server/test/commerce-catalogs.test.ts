/**
 * Catalogs end to end (spec §4.1, issue 12 item 1), on SQLite and PostgreSQL over real HTTP
 * with the emulator: a created catalog exists at the operator and is connected to the
 * store's WhatsApp business account (read back from the emulator's state file); an existing
 * operator catalog is connected by its id; rename, disconnect and delete reach the operator;
 * another store's or mode's ids answer 404 as unknown ones; bad input is a 400 naming the field.
 */
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startServer, type CreatedStore, type Harness } from "./harness.js"

interface OperatorCatalog {
  readonly id: string
  readonly name: string
  readonly businessId: string
  readonly wabas: ReadonlyArray<string>
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`catalogs end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore

    beforeAll(async () => {
      h = await startServer({}, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
    })
    afterAll(() => h?.stop())

    /** The emulator's catalogs, from its state file (written within ~100 ms of a change). */
    const operatorCatalogs = (): ReadonlyArray<OperatorCatalog> =>
      existsSync(h.env.SWITCHBOARD_EMULATOR_STATE)
        ? (JSON.parse(readFileSync(h.env.SWITCHBOARD_EMULATOR_STATE, "utf8")).catalogs?.catalogs ?? [])
        : []
    const atOperator = (id: string, check: (c: OperatorCatalog | undefined) => boolean, what: string) =>
      eventually(async () => check(operatorCatalogs().find((c) => c.id === id)), what, 5_000)

    it("create answers 201 with id; the catalog exists at the operator, connected to one business account", async () => {
      const created = await h.request("POST", "/chat/catalogs", a.live_key, { name: "Spring" })
      expect(created.status).toBe(201)
      expect(created.json).toMatchObject({ id: expect.stringMatching(/^cat_/), name: "Spring", origin: "created", connected: true })
      expect(created.json.operator_catalog_id).toMatch(/^\d+$/)
      await atOperator(created.json.operator_catalog_id, (c) => c?.name === "Spring" && c.wabas.length === 1, "the operator has it")
      const read = await h.request("GET", `/chat/catalogs/${created.json.id}`, a.live_key)
      expect(read.json).toEqual(created.json)
      const listed = await h.request("GET", "/chat/catalogs", a.live_key)
      expect(listed.json.data.map((c: { id: string }) => c.id)).toContain(created.json.id)
    })

    it("rename, disconnect and delete reach the operator", async () => {
      const created = (await h.request("POST", "/chat/catalogs", a.live_key, { name: "Temp" })).json
      const operatorId = created.operator_catalog_id
      const renamed = await h.request("PATCH", `/chat/catalogs/${created.id}`, a.live_key, { name: "Renamed" })
      expect(renamed.json).toMatchObject({ name: "Renamed" })
      await atOperator(operatorId, (c) => c?.name === "Renamed", "renamed at the operator")
      const off = await h.request("POST", `/chat/catalogs/${created.id}/disconnect`, a.live_key)
      expect(off.json.connected).toBe(false)
      await atOperator(operatorId, (c) => c !== undefined && c.wabas.length === 0, "disconnected at the operator")
      const removed = await h.request("DELETE", `/chat/catalogs/${created.id}`, a.live_key)
      expect(removed.json).toEqual({ id: created.id, deleted: true })
      await atOperator(operatorId, (c) => c === undefined, "deleted at the operator")
      expect((await h.request("GET", `/chat/catalogs/${created.id}`, a.live_key)).status).toBe(404)
    })

    it("connect takes an existing operator catalog by id, with its name; twice is 409; an unknown operator id is 400", async () => {
      // a catalog of the store's business that another tenant (the test mode) created
      const other = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Made elsewhere" })).json
      const connected = await h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: other.operator_catalog_id })
      expect(connected.status).toBe(201)
      expect(connected.json).toMatchObject({
        name: "Made elsewhere",
        origin: "connected",
        connected: true,
        operator_catalog_id: other.operator_catalog_id
      })
      const again = await h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: other.operator_catalog_id })
      expect(again.status).toBe(409)
      expect(again.json.error.code).toBe("resource_already_exists")
      const unknown = await h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: "999999999999999" })
      expect(unknown.status).toBe(400)
      expect(unknown.json.error.details.map((d: { path: string }) => d.path)).toContain("operator_catalog_id")
      // deleting a connected catalog leaves the operator's catalog in place
      await h.request("DELETE", `/chat/catalogs/${connected.json.id}`, a.live_key)
      await atOperator(other.operator_catalog_id, (c) => c !== undefined, "still at the operator")
    })

    it("another store's, the other mode's, an unknown and a malformed id: the same 404 resource_not_found on every route", async () => {
      const own = (await h.request("POST", "/chat/catalogs", a.live_key, { name: "Mine" })).json.id
      for (const [key, id] of [
        [b.live_key, own],
        [a.test_key, own],
        [a.live_key, "cat_01M85GK8TB3E8BH2R1WY18AD8X"],
        [a.live_key, "nope"]
      ]) {
        for (const [method, path, body] of [
          ["GET", `/chat/catalogs/${id}`, undefined],
          ["PATCH", `/chat/catalogs/${id}`, { name: "x" }],
          ["DELETE", `/chat/catalogs/${id}`, undefined],
          ["POST", `/chat/catalogs/${id}/disconnect`, undefined]
        ] as const) {
          const res = await h.request(method, path, key, body)
          expect(res.status, `${method} ${path}`).toBe(404)
          expect(res.json.error.code).toBe("resource_not_found")
        }
      }
      expect((await h.request("GET", `/chat/catalogs/${own}`, a.live_key)).json.connected).toBe(true)
      expect((await h.request("GET", "/chat/catalogs", b.live_key)).json.data).toEqual([])
    })

    it("bad input: 400 validation_failed naming the field, never a 500", async () => {
      for (const [path, body, field] of [
        ["/chat/catalogs", { name: "" }, "name"],
        ["/chat/catalogs", {}, "name"],
        ["/chat/catalogs", { name: "x", vertical: "pets" }, "vertical"],
        ["/chat/catalogs/connect", { operator_catalog_id: "abc" }, "operator_catalog_id"]
      ] as const) {
        const res = await h.request("POST", path, a.live_key, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.json.error.code).toBe("validation_failed")
        expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(field)
      }
    })
  })
