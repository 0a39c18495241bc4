/**
 * Catalogs end to end (spec §4.1, issue 12 item 1), on SQLite and PostgreSQL over real HTTP
 * with the emulator: a created catalog exists at the operator and is connected to the
 * store's WhatsApp business account (read back from the emulator's state file); an existing
 * operator catalog is connected by its id; rename, disconnect and delete reach the operator;
 * another store's or mode's ids answer 404 as unknown ones; bad input is a 400 naming the field.
 * An operator catalog belongs to one store (issue "Hardening III", defect 1): another store
 * connecting it, with either key, gets the 404 of an unknown operator id and writes nothing,
 * also when the operator itself would connect it (two stores of one business), and also when
 * both connect at once.
 */
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, freePort, startServer, type CreatedStore, type Harness, withStores } from "./harness.js"

interface OperatorCatalog {
  readonly id: string
  readonly name: string
  readonly businessId: string
  readonly wabas: ReadonlyArray<string>
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`catalogs end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect))
    }, 60_000)
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

    it("connect takes an existing operator catalog by id, with its name; twice is 409; an unknown operator id is 404", async () => {
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
      expect(unknown.status).toBe(404)
      expect(unknown.json.error.code).toBe("resource_not_found")
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

    it("another store cannot connect a store's operator catalog, in any mode: the 404 of an unknown id, and nothing is written", async () => {
      // A's catalogs: created with each key, one connected by the other mode, one with an item
      const created = (await h.request("POST", "/chat/catalogs", a.live_key, { name: "A live" })).json
      const madeInTest = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "A test" })).json
      expect((await h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: madeInTest.operator_catalog_id })).status).toBe(
        201
      )
      const batch = await h.request("POST", `/chat/catalogs/${created.id}/products/batch`, a.live_key, {
        requests: [
          { method: "CREATE", data: { retailer_id: "A-1", name: "Shirt", price: 1999, currency: "USD", image_url: "https://img.example.com/a.jpg" } }
        ]
      })
      expect(batch.status, batch.text).toBe(202)
      await eventually(
        async () =>
          (await h.request("GET", `/chat/catalogs/${created.id}/products/batch/${batch.json.handle}`, a.live_key)).json.status === "finished",
        "A's batch finished",
        20_000
      )
      const unknown = await h.request("POST", "/chat/catalogs/connect", b.live_key, { operator_catalog_id: "999999999999998" })
      expect(unknown.status).toBe(404)
      const shape = (json: any, id: string) => JSON.stringify(json).replaceAll(id, "ID")
      const wabasBefore = new Map(operatorCatalogs().map((c) => [c.id, [...c.wabas]]))
      for (const key of [b.live_key, b.test_key])
        for (const operatorCatalogId of [created.operator_catalog_id, madeInTest.operator_catalog_id]) {
          const res = await h.request("POST", "/chat/catalogs/connect", key, { operator_catalog_id: operatorCatalogId, name: "Stolen" })
          expect(res.status, res.text).toBe(404)
          expect(res.json.error.code).toBe("resource_not_found")
          // the same answer as an id the operator does not know
          expect(shape(res.json, operatorCatalogId)).toBe(shape(unknown.json, "999999999999998"))
        }
      for (const key of [b.live_key, b.test_key]) expect((await h.request("GET", "/chat/catalogs", key)).json.data).toEqual([])
      expect(Number((await h.query(`SELECT count(*) AS n FROM catalogs WHERE store_id = '${b.id}'`))[0].n)).toBe(0)
      expect(Number((await h.query(`SELECT count(*) AS n FROM products WHERE store_id = '${b.id}'`))[0].n)).toBe(0)
      // the operator's catalogs are connected to the same accounts as before
      await new Promise((r) => setTimeout(r, 300))
      for (const c of operatorCatalogs()) if (wabasBefore.has(c.id)) expect(c.wabas, c.id).toEqual(wabasBefore.get(c.id))
      // A still has its catalogs, and A's other mode may still connect them
      expect((await h.request("GET", `/chat/catalogs/${created.id}`, a.live_key)).json.connected).toBe(true)
      expect((await h.request("POST", "/chat/catalogs/connect", a.test_key, { operator_catalog_id: created.operator_catalog_id })).status).toBe(201)
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

/**
 * The defect as reported: one operator token serves every store, and two stores' live
 * accounts belong to the same business, so the operator itself would connect either store
 * to the other's catalog. Our service refuses it (the emulator plays the live operator).
 */
for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`catalog ownership with one operator business for two stores (${dialect.name})`, () => {
    let h: Harness
    let emulator: string
    let a: CreatedStore
    let b: CreatedStore
    /** A store of another business. */
    let c: CreatedStore
    // two WABAs of one business (the emulator's convention: the business is `8` and the WABA id's other digits)
    const wabas = ["109000000000001", "309000000000001"] as const
    const business = "809000000000001"

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer(
        {
          SWITCHBOARD_EMULATOR_PORT: String(port),
          OPERATOR_BASE_URL: emulator,
          OPERATOR_ACCESS_TOKEN: "live-token",
          OPERATOR_APP_SECRET: "e2e-app-secret"
        },
        { dialect }
      )
      const live = async (name: string, waba: string, phone: string) => {
        const accounts = await fetch(`${emulator}/_emulator/accounts`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ waba_id: waba, phone_number_id: phone })
        })
        expect(accounts.status).toBe(200)
        return JSON.parse(
          h.cli(
            "stores",
            "create",
            "--name",
            name,
            "--live-waba-id",
            waba,
            "--live-phone-number-id",
            phone,
            "--live-display-phone",
            `1555000${phone.slice(-4)}`
          )
        ) as CreatedStore
      }
      a = await live("Shop A", wabas[0], "209000000000001")
      b = await live("Shop B", wabas[1], "209000000000002")
      c = await live("Shop C", "119000000000001", "209000000000003")
    })
    afterAll(() => h?.stop())

    it("store B cannot connect the catalog store A created, though the operator would: 404, nothing written", async () => {
      const created = await h.request("POST", "/chat/catalogs", a.live_key, { name: "A's" })
      expect(created.status, created.text).toBe(201)
      for (const key of [b.live_key, b.test_key]) {
        const res = await h.request("POST", "/chat/catalogs/connect", key, { operator_catalog_id: created.json.operator_catalog_id })
        expect(res.status, res.text).toBe(404)
        expect(res.json.error.code).toBe("resource_not_found")
      }
      expect(Number((await h.query(`SELECT count(*) AS n FROM catalogs WHERE store_id = '${b.id}'`))[0].n)).toBe(0)
    })

    it("the operator connects a catalog only to its business's accounts: another business's store gets the same 404", async () => {
      const made = await fetch(`${emulator}/v23.0/${business}/owned_product_catalogs`, {
        method: "POST",
        headers: { authorization: "Bearer live-token", "content-type": "application/json" },
        body: JSON.stringify({ name: "Nobody's yet", vertical: "commerce" })
      })
      const id = ((await made.json()) as { id: string }).id
      const res = await h.request("POST", "/chat/catalogs/connect", c.live_key, { operator_catalog_id: id })
      expect(res.status, res.text).toBe(404)
      expect(res.json.error.code).toBe("resource_not_found")
      expect(Number((await h.query(`SELECT count(*) AS n FROM catalogs WHERE store_id = '${c.id}'`))[0].n)).toBe(0)
      // the business's own store may still connect it
      expect((await h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: id })).status).toBe(201)
    })

    it("two stores connecting the same operator catalog at once: one 201, the other the 404, one row", async () => {
      for (let round = 0; round < 3; round++) {
        const made = await fetch(`${emulator}/v23.0/${business}/owned_product_catalogs`, {
          method: "POST",
          headers: { authorization: "Bearer live-token", "content-type": "application/json" },
          body: JSON.stringify({ name: `Shared ${round}`, vertical: "commerce" })
        })
        const id = ((await made.json()) as { id: string }).id
        const answers = await Promise.all(
          [a.live_key, b.live_key].map((key) => h.request("POST", "/chat/catalogs/connect", key, { operator_catalog_id: id }))
        )
        expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join("\n")).toEqual([201, 404])
        expect(Number((await h.query(`SELECT count(*) AS n FROM catalogs WHERE operator_catalog_id = '${id}'`))[0].n)).toBe(1)
      }
    })
  })
