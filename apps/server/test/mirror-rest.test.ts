/**
 * The last mirrored writes without a crash test of their own (issue 27), each killed (SIGKILL)
 * between the operator call and the settle (`SWITCHBOARD_TEST_MIRROR_HALT <kind>:called`), then
 * finished by the sweep after the restart. Each ends with one effect at the operator, the local
 * record equal to the operator's, and its outbox row done once:
 * - `products.update` (`PATCH /chat/products/{id}`): the sweep sends the same UPDATE again
 *   (the operator's items are keyed by retailer id: one item, renamed once) and records its
 *   batch of one, whose job reads the verdict;
 * - `calls.reject` (`POST /chat/calls/{id}/reject` of a customer's ringing call): the operator
 *   ends the call and refuses a second reject; its terminate webhook (FAILED) ends the call
 *   here, so `recover` does not call again and the settle keeps the call as the webhook left it
 *   (ended, FAILED: the operator's record);
 * - `flows.publish` (`POST /chat/flows/{id}/publish`): the operator refuses a second publish;
 *   `recover` finds the flow published there, and the settle publishes it here;
 * - `commerce.settings` (`PATCH /chat/commerce/settings`): the restarted server, which registers
 *   its sandbox number with the emulator again, reads the change there before the sweep runs
 *   (the registration used to reset the number's commerce settings), and the sweep settles it.
 * The emulator runs in the test process, so what it took outlives the server's restarts.
 * On SQLite and PostgreSQL.
 */
import { startEmulator } from "@switchboard/operator-emulator"
import { DIALECTS, eventually } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signUpFlow } from "./fixtures/flows.js"
import { type CreatedStore, type Harness, startServer } from "./harness.js"
import { graphGet, crashAt as killedAt } from "./steps.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`product update, call reject and flow publish killed after the call (${dialect.name})`, () => {
    let h: Harness
    let a: CreatedStore
    let emulator: Awaited<ReturnType<typeof startEmulator>>

    beforeAll(async () => {
      emulator = await startEmulator({ appSecret: "e2e-app-secret", itemsBatchProcessMs: 200 })
      h = await startServer({ SWITCHBOARD_EMULATOR_URL: emulator.url, SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: "2000" }, { dialect })
      emulator.setWebhookUrl(`${h.base}/chat/operator/webhook`)
      a = h.createStore("Shop A")
    }, 120_000)
    afterAll(async () => {
      await h?.stop()
      await emulator?.close()
    })

    const control = async (path: string) => (await (await fetch(`${emulator.url}/_emulator${path}`)).json()) as any
    const graph = (path: string) => graphGet(emulator.url, path)
    /** Starts `request`, waits until the server halts at `halt`, kills it and starts it again without the halt. */
    const crashAt = (halt: string, request: () => Promise<unknown>) => killedAt(h, halt, request)
    /** The statuses of the outbox rows of `kind` whose payload names `about`. */
    const outbox = (kind: string, about: string) =>
      h.query<{ status: string; attempt: number }>(`SELECT status, attempt FROM mirror_outbox WHERE kind = '${kind}' AND payload LIKE '%${about}%'`)

    it("PATCH /chat/products/{id} killed after the operator took the update: one item, renamed here and there, reviewed", async () => {
      const catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Update crash" })).json
      const created = await h.request("POST", `/chat/catalogs/${catalog.id}/products`, a.test_key, {
        retailer_id: "UPD-1",
        name: "Shirt",
        price: 1999,
        currency: "USD",
        image_url: "https://img.example.com/upd-1.jpg"
      })
      expect(created.status, created.text).toBe(201)
      const product = async () => (await h.request("GET", `/chat/products/${created.json.id}`, a.test_key)).json
      await eventually(async () => (await product()).review_status === "approved", "the create approved", 15_000)
      const items = async () => (await graph(`/${catalog.operator_catalog_id}/products`)).data as Array<any>
      const stats = () => control(`/items-batches?catalog_id=${catalog.operator_catalog_id}`)
      expect(await stats()).toMatchObject({ calls: 1, duplicates: 0 })

      await crashAt("products.update:called", () =>
        h.request("PATCH", `/chat/products/${created.json.id}`, a.test_key, { name: "Renamed shirt", price: 2499 })
      )
      // the operator took the update before the kill
      expect((await items()).map((i) => [i.retailer_id, i.name])).toEqual([["UPD-1", "Renamed shirt"]])
      await eventually(
        async () => (await outbox("products.update", created.json.id)).every((r) => r.status === "done"),
        "the sweep settled it",
        30_000
      )
      await eventually(async () => (await product()).review_status === "approved", "the update's verdict read", 15_000)
      expect(await product()).toMatchObject({ retailer_id: "UPD-1", name: "Renamed shirt", price: 2499 })
      // one item at the operator, as here; the sweep's resend of the same UPDATE changed nothing more
      const [remote, ...more] = await items()
      expect(more).toEqual([])
      expect(remote).toMatchObject({ retailer_id: "UPD-1", name: "Renamed shirt", review_status: "approved" })
      expect(await stats()).toMatchObject({ calls: 3, duplicates: 1 })
      expect((await outbox("products.update", created.json.id)).map((r) => [r.status, Number(r.attempt)])).toEqual([["done", 2]])
      const batches = (await h.request("GET", `/chat/catalogs/${catalog.id}/products/batch`, a.test_key)).json.data as Array<any>
      expect(batches.map((b) => [b.source, b.total])).toEqual([
        ["product", 1],
        ["product", 1]
      ])
    }, 180_000)

    it("POST /chat/calls/{id}/reject killed after the operator rejected the customer's call: ended here as there, once", async () => {
      const placed = await h.request("POST", "/chat/sandbox/calls", a.test_key, { phone: "+15551239401" })
      expect(placed.status, placed.text).toBe(202)
      const id = placed.json.call_id as string
      const call = async () => (await h.request("GET", `/chat/calls/${id}`, a.test_key)).json
      expect(await call()).toMatchObject({ direction: "user_initiated", status: "ringing" })
      const operatorCallId = (await call()).operator_call_id as string
      expect(operatorCallId).toEqual(expect.any(String))
      const atOperator = async () => ((await control("/calls")).data as Array<any>).filter((c) => c.id === operatorCallId)

      // killed once the operator's terminate webhook ended the call here (the halted server still takes
      // webhooks): with the 2 s sweep delay of the test, a webhook applied only after the restart could
      // race the sweep, whose second reject the operator refuses (in production the sweep waits a minute)
      await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "calls.reject:called" })
      const answered = h.request("POST", `/chat/calls/${id}/reject`, a.test_key).catch(() => "connection lost")
      await eventually(async () => h.stderr().includes("mirror halted at calls.reject:called"), "the server halts after the call", 20_000)
      await eventually(async () => (await call()).status === "ended", "the terminate webhook ended it here", 15_000)
      expect((await outbox("calls.reject", id)).map((r) => r.status)).toEqual(["pending"])
      await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "" })
      expect(await answered).toBe("connection lost")
      // the operator rejected it: the call is over there (a second reject is refused)
      expect((await atOperator()).map((c) => c.status)).toEqual(["ended"])
      await eventually(async () => (await outbox("calls.reject", id)).every((r) => r.status === "done"), "the sweep settled it", 30_000)
      expect(await call()).toMatchObject({ status: "ended", end_status: "FAILED" })
      expect((await atOperator()).map((c) => c.status)).toEqual(["ended"])
      expect((await outbox("calls.reject", id)).map((r) => [r.status, Number(r.attempt)])).toEqual([["done", 2]])
    }, 180_000)

    it("POST /chat/flows/{id}/publish killed after the operator published it: recover finds it published, PUBLISHED here once", async () => {
      const draft = (await h.request("POST", "/chat/flows", a.test_key, { name: "publish_crash", categories: ["SIGN_UP"] })).json
      expect((await h.request("PUT", `/chat/flows/${draft.id}/json`, a.test_key, { json: signUpFlow })).status).toBe(200)
      const flow = async () => (await h.request("GET", `/chat/flows/${draft.id}`, a.test_key)).json
      const operatorStatus = async () => (await graph(`/${draft.operator_flow_id}?fields=status`)).status

      await crashAt("flows.publish:called", () => h.request("POST", `/chat/flows/${draft.id}/publish`, a.test_key))
      expect(await operatorStatus()).toBe("PUBLISHED")
      await eventually(async () => (await outbox("flows.publish", draft.id)).every((r) => r.status === "done"), "the sweep settled it", 30_000)
      expect(await flow()).toMatchObject({ status: "PUBLISHED", version: 1 })
      expect(await operatorStatus()).toBe("PUBLISHED")
      expect((await outbox("flows.publish", draft.id)).map((r) => [r.status, Number(r.attempt)])).toEqual([["done", 2]])
      const [{ waba }] = await h.query<{ waba: string }>(`SELECT sandbox_waba_id AS waba FROM stores WHERE id = '${a.id}'`)
      const flows = ((await graph(`/${waba}/flows`)).data as Array<any>).filter((f) => f.name === "publish_crash")
      expect(flows.map((f) => [f.id, f.status])).toEqual([[draft.operator_flow_id, "PUBLISHED"]])
    }, 180_000)
    it("PATCH /chat/commerce/settings killed after the operator took it: the restarted server reads it changed, the sweep settles it once", async () => {
      const [{ phone }] = await h.query<{ phone: string }>(`SELECT sandbox_phone_number_id AS phone FROM stores WHERE id = '${a.id}'`)
      const operatorSettings = async () => (await graph(`/${phone}/whatsapp_commerce_settings`)).data[0]
      // read from the operator (registering the number there): the defaults
      expect((await h.request("GET", "/chat/commerce/settings", a.test_key)).json).toMatchObject({ is_catalog_visible: false })
      expect(await operatorSettings()).toMatchObject({ is_catalog_visible: false })
      // the sweep far off, so what the restarted server reads first is what the operator kept of the killed write
      await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "commerce.settings:called", SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: "600000" })
      const answered = h.request("PATCH", "/chat/commerce/settings", a.test_key, { is_catalog_visible: true }).catch(() => "connection lost")
      await eventually(async () => h.stderr().includes("mirror halted at commerce.settings:called"), "the server halts after the call", 20_000)
      await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "", SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: "2000" })
      expect(await answered).toBe("connection lost")
      // nothing saved here yet: read from the operator, after the new process registered its number there again
      // (that registration used to reset the number's commerce settings: the change showed only after the sweep's call)
      expect((await h.request("GET", "/chat/commerce/settings", a.test_key)).json).toMatchObject({ is_catalog_visible: true, updated_at: null })
      expect(await operatorSettings()).toMatchObject({ is_catalog_visible: true })
      await h.write("UPDATE jobs SET run_at = 0 WHERE kind = 'mirror.sweep' AND status = 'queued'")
      await eventually(async () => (await outbox("commerce.settings", "")).every((r) => r.status === "done"), "the sweep settled it", 30_000)
      const settled = (await h.request("GET", "/chat/commerce/settings", a.test_key)).json
      expect(settled.is_catalog_visible).toBe(true)
      expect(settled.updated_at).not.toBeNull()
      expect(await operatorSettings()).toMatchObject({ is_catalog_visible: true })
      expect((await outbox("commerce.settings", "")).map((r) => [r.status, Number(r.attempt)])).toEqual([["done", 2]])
    }, 180_000)
  })
