/**
 * Mirrored writes of catalogs, products and calls killed mid-way (`domain/src/shared/Mirror.ts`,
 * `commerce/CatalogMirrors.ts`, `commerce/ProductMirrors.ts`, `calls/CallMirrors.ts`): the
 * server is killed (SIGKILL) at a step of a real route, started again, and the sweep finishes
 * the write: one effect at the operator, the local record equal to the operator's.
 *
 * - catalog create killed after the operator created it (the call takes no idempotency key):
 *   the sweep finds it by name (`recover`), no second catalog;
 * - product create and product delete killed after prepare: the sweep sends the request once;
 * - a product write the operator refuses is undone here (compensate);
 * - commerce settings, call settings, a catalog's rename, disconnect, connect (by another
 *   tenant) and delete, each killed between the operator call and the settle: the sweep leaves
 *   each the same here and at the operator, once;
 * - call terminate killed after prepare: the sweep ends the call at the operator and here;
 * - call connect killed after the operator placed it: the sweep keeps it (recover, from the
 *   ringing webhook); killed before: the sweep never dials, the call is failed.
 *
 * The emulator runs in the test process (its items and calls outlive the server's restarts).
 * SQLite: the runner's contract suite runs the steps on both stores.
 */
import { startEmulator } from "@switchboard/operator-emulator"
import { eventually, SQLITE } from "@switchboard/testing"
import { Sdp } from "@switchboard/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, startServer } from "./harness.js"
import { graphGet, crashAt as killedAt } from "./steps.js"

const item = (rid: string) => ({
  retailer_id: rid,
  name: `Shirt ${rid}`,
  price: 1999,
  currency: "USD",
  image_url: `https://img.example.com/${rid}.jpg`
})

describe.skipIf(!SQLITE.available)("catalog, product and call writes killed mid-way (SQLite, emulator outside the server)", () => {
  let h: Harness
  let a: CreatedStore
  let emulator: Awaited<ReturnType<typeof startEmulator>>

  beforeAll(async () => {
    emulator = await startEmulator({ appSecret: "e2e-app-secret", itemsBatchProcessMs: 200 })
    h = await startServer({ SWITCHBOARD_EMULATOR_URL: emulator.url, SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: "2000" }, { dialect: SQLITE })
    emulator.setWebhookUrl(`${h.base}/chat/operator/webhook`)
    a = h.createStore("Shop A")
  }, 120_000)
  afterAll(async () => {
    await h?.stop()
    await emulator?.close()
  })

  const control = async (path: string, body?: unknown) => {
    const res = await fetch(`${emulator.url}/_emulator${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return res.json() as Promise<any>
  }
  const graph = (path: string) => graphGet(emulator.url, path)

  /** Starts `request`, waits until the server halts at `halt`, kills it and starts it again without the halt. */
  const crashAt = (halt: string, request: () => Promise<unknown>) => killedAt(h, halt, request)
  const permitted = async (phone: string) => {
    expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: phone, text: "hi" })).status).toBe(202)
    expect((await h.request("POST", "/chat/calls/permissions", a.test_key, { phone })).status).toBe(202)
    await h.request("POST", "/chat/sandbox/call-permission-replies", a.test_key, { phone, response: "accept" })
  }
  const connect = (phone: string) => h.request("POST", "/chat/calls/connect", a.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
  const operatorCallsTo = async (phone: string) => ((await control("/calls")).data as Array<any>).filter((c) => `+${c.user}` === phone)
  const outbox = (kind: string) => h.query<{ status: string }>(`SELECT status FROM mirror_outbox WHERE kind = '${kind}'`)

  it("POST /chat/catalogs killed after the operator created it: the sweep finds it by name, no second catalog", async () => {
    await crashAt("catalogs.create:called", () => h.request("POST", "/chat/catalogs", a.test_key, { name: "Crashed after" }))
    const listed = async () => (await h.request("GET", "/chat/catalogs", a.test_key)).json.data as Array<any>
    await eventually(async () => (await listed()).some((c) => c.name === "Crashed after"), "the sweep recorded the catalog", 30_000)
    const local = (await listed()).filter((c) => c.name === "Crashed after")
    expect(local.length).toBe(1)
    const business = `8${(await graph(`/${local[0].operator_catalog_id}`)).business.id.slice(1)}`
    const owned = (await graph(`/${business}/owned_product_catalogs?limit=100`)).data.filter((c: any) => c.name === "Crashed after")
    expect(owned.map((c: any) => c.id)).toEqual([local[0].operator_catalog_id])
    expect((await outbox("catalogs.create")).map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("POST /chat/catalogs/{id}/products and DELETE /chat/products/{id} killed after prepare: the sweep sends each once", async () => {
    const catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Products crash" })).json
    const operatorItems = async () => (await graph(`/${catalog.operator_catalog_id}/products`)).data as Array<any>
    const stats = () => control(`/items-batches?catalog_id=${catalog.operator_catalog_id}`)

    await crashAt("products.create:prepared", () => h.request("POST", `/chat/catalogs/${catalog.id}/products`, a.test_key, item("CRASH-1")))
    const products = async () => (await h.request("GET", `/chat/catalogs/${catalog.id}/products`, a.test_key)).json.data as Array<any>
    // the product was recorded in the prepare; the sweep sends it and the batch job reads the verdict
    await eventually(async () => (await products()).some((p) => p.review_status === "approved"), "approved after the sweep", 30_000)
    const [local] = await products()
    expect(local).toMatchObject({ retailer_id: "CRASH-1", name: "Shirt CRASH-1", price: 1999 })
    const [remote] = await operatorItems()
    expect(remote).toMatchObject({ retailer_id: "CRASH-1", name: local.name, review_status: "approved" })
    expect(await stats()).toMatchObject({ calls: 1, duplicates: 0 })

    await crashAt("products.delete:prepared", () => h.request("DELETE", `/chat/products/${local.id}`, a.test_key))
    expect((await h.request("GET", `/chat/products/${local.id}`, a.test_key)).status).toBe(404)
    await eventually(async () => (await operatorItems()).length === 0, "deleted at the operator by the sweep", 30_000)
    expect(await stats()).toMatchObject({ calls: 2, duplicates: 0 })
    expect((await outbox("products.create")).map((r) => r.status)).toEqual(["done"])
    expect((await outbox("products.delete")).map((r) => r.status)).toEqual(["done"])
    const batches = (await h.request("GET", `/chat/catalogs/${catalog.id}/products/batch`, a.test_key)).json.data as Array<any>
    await eventually(
      async () =>
        ((await h.request("GET", `/chat/catalogs/${catalog.id}/products/batch`, a.test_key)).json.data as Array<any>).every(
          (b) => b.status === "finished" && b.failed === 0
        ),
      "both batches of one finished without errors",
      15_000
    )
    expect(batches.map((b) => b.source)).toEqual(["product", "product"])
  }, 240_000)

  it("a product write the operator refuses is undone here: the create is gone, the update and delete restore the product", async () => {
    const catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Refusing" })).json
    const kept = await h.request("POST", `/chat/catalogs/${catalog.id}/products`, a.test_key, item("KEPT"))
    expect(kept.status).toBe(201)
    // the catalog deleted at the operator behind our back: every items_batch is refused (error 100)
    const gone = await fetch(`${emulator.url}/v23.0/${catalog.operator_catalog_id}`, {
      method: "DELETE",
      headers: { authorization: "Bearer sandbox" }
    })
    expect(gone.status).toBe(200)
    const created = await h.request("POST", `/chat/catalogs/${catalog.id}/products`, a.test_key, item("REFUSED"))
    expect(created.status, created.text).toBe(422)
    expect(created.json.error.code).toBe("operator_rejected")
    const patched = await h.request("PATCH", `/chat/products/${kept.json.id}`, a.test_key, { name: "Renamed" })
    expect(patched.status).toBe(422)
    const removed = await h.request("DELETE", `/chat/products/${kept.json.id}`, a.test_key)
    expect(removed.status).toBe(422)
    const listed = (await h.request("GET", `/chat/catalogs/${catalog.id}/products`, a.test_key)).json.data as Array<any>
    expect(listed.map((p) => [p.id, p.retailer_id, p.name])).toEqual([[kept.json.id, "KEPT", "Shirt KEPT"]])
    const rows = await h.query<{ kind: string; status: string }>(
      "SELECT kind, status FROM mirror_outbox WHERE kind LIKE 'products.%' AND status = 'rolled_back' ORDER BY kind"
    )
    expect(rows.map((r) => r.kind)).toEqual(["products.create", "products.delete", "products.update"])
  }, 60_000)

  it("settings and catalog edits killed between the operator call and the settle: the sweep leaves each the same here and at the operator", async () => {
    const [{ phone }] = await h.query<{ phone: string }>(`SELECT sandbox_phone_number_id AS phone FROM stores WHERE id = '${a.id}'`)
    // commerce settings: the catalog shown at the operator, then here
    await crashAt("commerce.settings:called", () => h.request("PATCH", "/chat/commerce/settings", a.test_key, { is_catalog_visible: true }))
    await eventually(async () => (await graph(`/${phone}/whatsapp_commerce_settings`)).data[0].is_catalog_visible === true, "at the operator", 30_000)
    await eventually(async () => (await h.request("GET", "/chat/commerce/settings", a.test_key)).json.updated_at !== null, "settled here", 30_000)
    expect((await h.request("GET", "/chat/commerce/settings", a.test_key)).json.is_catalog_visible).toBe(true)

    // call settings: the call icon hidden at the operator, then here
    await crashAt("calls.settings:called", () => h.request("PATCH", "/chat/calls/settings", a.test_key, { call_icon_visibility: "DISABLE_ALL" }))
    await eventually(async () => (await graph(`/${phone}/settings`)).calling.call_icon_visibility === "DISABLE_ALL", "at the operator", 30_000)
    await eventually(
      async () => (await h.request("GET", "/chat/calls/settings", a.test_key)).json.call_icon_visibility === "DISABLE_ALL",
      "settled here",
      30_000
    )

    // a catalog renamed, then deleted
    const catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Before rename" })).json
    await crashAt("catalogs.rename:called", () => h.request("PATCH", `/chat/catalogs/${catalog.id}`, a.test_key, { name: "After rename" }))
    await eventually(async () => (await graph(`/${catalog.operator_catalog_id}`)).name === "After rename", "renamed at the operator", 30_000)
    await eventually(
      async () => (await h.request("GET", `/chat/catalogs/${catalog.id}`, a.test_key)).json.name === "After rename",
      "renamed here",
      30_000
    )
    await crashAt("catalogs.set_connected:called", () => h.request("POST", `/chat/catalogs/${catalog.id}/disconnect`, a.test_key))
    await eventually(
      async () => (await h.request("GET", `/chat/catalogs/${catalog.id}`, a.test_key)).json.connected === false,
      "disconnected here",
      30_000
    )
    // connected by the live tenant: an operator catalog of the same business that the test tenant made
    await crashAt("catalogs.connect:called", () =>
      h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: catalog.operator_catalog_id })
    )
    const connected = async () =>
      ((await h.request("GET", "/chat/catalogs", a.live_key)).json.data as Array<any>).filter(
        (c) => c.operator_catalog_id === catalog.operator_catalog_id
      )
    await eventually(async () => (await connected()).length === 1, "connected here by the sweep", 30_000)
    expect((await connected())[0]).toMatchObject({ origin: "connected", connected: true, name: "After rename" })
    await crashAt("catalogs.delete:called", () => h.request("DELETE", `/chat/catalogs/${catalog.id}`, a.test_key))
    await eventually(async () => (await h.request("GET", `/chat/catalogs/${catalog.id}`, a.test_key)).status === 404, "deleted here", 30_000)
    const gone = await fetch(`${emulator.url}/v23.0/${catalog.operator_catalog_id}`, { headers: { authorization: "Bearer sandbox" } })
    expect(gone.status).toBe(400)
    for (const kind of ["commerce.settings", "calls.settings", "catalogs.rename", "catalogs.set_connected", "catalogs.connect", "catalogs.delete"])
      expect(
        (await outbox(kind)).map((r) => r.status),
        kind
      ).toEqual(["done"])
  }, 240_000)

  it("POST /chat/calls/{id}/terminate killed after prepare: the sweep ends the call at the operator and here", async () => {
    const phone = "+15551239301"
    await control("/calls/config", { duration_ms: 600_000 })
    await permitted(phone)
    const connected = await h.request("POST", "/chat/calls/connect", a.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
    expect(connected.status, connected.text).toBe(201)
    const id = connected.json.id as string
    const call = async () => (await h.request("GET", `/chat/calls/${id}`, a.test_key)).json
    await eventually(async () => (await call()).status === "accepted", "accepted", 15_000)
    const live = await eventually(async () => ((await call()).operator_call_id ? await call() : undefined), "the operator's call id", 5_000)
    const atOperator = async () => ((await control("/calls")).data as Array<any>).find((c) => c.id === live.operator_call_id)
    expect((await atOperator())?.status).toBe("accepted")

    await crashAt("calls.terminate:prepared", () => h.request("POST", `/chat/calls/${id}/terminate`, a.test_key))
    await eventually(async () => (await call()).status === "ended", "ended by the sweep", 30_000)
    expect((await atOperator())?.status).toBe("ended")
    expect((await outbox("calls.terminate")).map((r) => r.status)).toEqual(["done"])
  }, 240_000)

  it("POST /chat/calls/connect killed after the operator placed the call: the sweep keeps it (its ringing webhook named it), no second call", async () => {
    const phone = "+15551239302"
    await control("/calls/config", { duration_ms: 600_000 })
    await permitted(phone)
    await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "calls.connect:called" })
    const answered = connect(phone).catch(() => "connection lost")
    await eventually(async () => h.stderr().includes("mirror halted at calls.connect:called"), "the server halts after the call", 20_000)
    // the operator's RINGING status (our id in biz_opaque_callback_data) reaches the halted server and names the call
    const [row] = await eventually(
      async () => {
        const rows = await h.query<{ id: string; operator_call_id: string | null }>(`SELECT id, operator_call_id FROM calls WHERE phone = '${phone}'`)
        return rows.length === 1 && rows[0].operator_call_id !== null ? rows : undefined
      },
      "the ringing webhook",
      15_000
    )
    await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "" })
    expect(await answered).toBe("connection lost")
    await eventually(async () => (await outbox("calls.connect")).some((r) => r.status === "done"), "the sweep settled the connect", 30_000)
    const local = (await h.request("GET", `/chat/calls/${row.id}`, a.test_key)).json
    expect(local.status).not.toBe("failed")
    const remote = await operatorCallsTo(phone)
    expect(remote.map((c) => c.id)).toEqual([local.operator_call_id])
  }, 240_000)

  it("POST /chat/calls/connect killed before the operator was called: the sweep never dials, the call is failed", async () => {
    const phone = "+15551239303"
    await permitted(phone)
    await crashAt("calls.connect:prepared", () => connect(phone))
    const listed = async () => (await h.request("GET", `/chat/calls?phone=${encodeURIComponent(phone)}`, a.test_key)).json.data as Array<any>
    await eventually(async () => (await listed())[0]?.status === "failed", "failed by the sweep", 30_000)
    expect((await listed()).length).toBe(1)
    expect((await listed())[0].error.message).toMatch(/never dialled twice/)
    expect(await operatorCallsTo(phone)).toEqual([])
  }, 240_000)
})
