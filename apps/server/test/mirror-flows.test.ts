/**
 * Flows' and templates' mirrored writes killed mid-way (`flows/FlowMirrors.ts`,
 * `templates/TemplateMirrors.ts`): the server is killed with SIGKILL at a step of a real
 * route, started again, and the sweep job finishes the write. Each ends with exactly one
 * operator effect and the local record equal to the operator's:
 * - a publish killed between the operator's publish and the predecessor's deprecation: the
 *   deprecation, committed with the publish, is finished (v1 DEPRECATED, v2 PUBLISHED, both sides);
 * - a delete killed after the operator's delete: the sweep calls again (a flow the operator no
 *   longer has counts as deleted) and removes it here;
 * - a flow create and a template create killed after the operator took them: `recover` finds
 *   them in the operator's list by name, so no second one is made.
 * - the Flow JSON, a deprecation, the endpoint setting and a template delete, each killed at a
 *   step: the sweep finishes them (a deprecation the operator already took is recovered, not
 *   refused).
 * SQLite only: the runner's contract suite covers both stores.
 */
import { eventually, SQLITE } from "@switchboard/testing"
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signUpFlow as signUp } from "./fixtures/flows.js"
import { type CreatedStore, type Harness, startServer } from "./harness.js"
import { crashAt as killedAt } from "./steps.js"

describe.skipIf(!SQLITE.available)("flows and templates: mirrored writes killed mid-way (SQLite)", () => {
  let h: Harness
  let a: CreatedStore

  beforeAll(async () => {
    h = await startServer({ SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: "2000", SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect: SQLITE })
    a = h.createStore("Shop A")
  }, 120_000)
  afterAll(() => h?.stop())

  const state = () => (existsSync(h.env.SWITCHBOARD_EMULATOR_STATE) ? JSON.parse(readFileSync(h.env.SWITCHBOARD_EMULATOR_STATE, "utf8")) : {})
  const operatorFlows = (): Array<{ id: string; name: string; status: string }> => state().flows?.flows ?? []
  const operatorTemplates = (): Array<{ name: string; language: string; id: string }> => state().templates?.templates ?? []
  /** The statuses of the outbox rows of `kind` (whose payload names `about`, when given). */
  const outbox = (kind: string, about = "") =>
    h.query<{ status: string }>(`SELECT status FROM mirror_outbox WHERE kind = '${kind}' AND payload LIKE '%${about}%' ORDER BY created_at`)

  /**
   * Starts `request` on a server that halts at `halt`, waits for the halt (and for `taken`: the
   * operator's state file shows the call), kills the server and starts it again without the halt.
   */
  const crashAt = (halt: string, request: () => Promise<unknown>, taken: () => boolean = () => true) =>
    killedAt(h, halt, request, { haltTimeoutMs: 40_000, taken })

  const flow = async (id: string) => (await h.request("GET", `/chat/flows/${id}`, a.test_key)).json

  it("publish killed between the operator's publish and the predecessor's deprecation: the sweep deprecates v1 on both sides", async () => {
    const v1 = (await h.request("POST", "/chat/flows", a.test_key, { name: "lineage_crash", categories: ["SIGN_UP"] })).json
    expect((await h.request("PUT", `/chat/flows/${v1.id}/json`, a.test_key, { json: signUp })).status).toBe(200)
    expect((await h.request("POST", `/chat/flows/${v1.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
    const v2 = (await h.request("POST", `/chat/flows/${v1.id}/versions`, a.test_key)).json
    expect(v2).toMatchObject({ status: "DRAFT", version: 2, previous_version_id: v1.id })
    // the emulator writes its state file ~100 ms after a change: the kill must not lose v2
    await eventually(async () => operatorFlows().some((f) => f.id === v2.operator_flow_id && f.status === "DRAFT"), "the operator has v2", 5_000)

    await crashAt(
      "flows.deprecate:prepared",
      () => h.request("POST", `/chat/flows/${v2.id}/publish`, a.test_key),
      () => operatorFlows().find((f) => f.id === v2.operator_flow_id)?.status === "PUBLISHED"
    )
    // the publish settled before the crash; the deprecation is left to the sweep
    expect((await flow(v2.id)).status).toBe("PUBLISHED")
    await eventually(async () => (await flow(v1.id)).status === "DEPRECATED", "the sweep deprecated v1 here", 30_000)
    await eventually(async () => operatorFlows().find((f) => f.id === v1.operator_flow_id)?.status === "DEPRECATED", "and at the operator", 5_000)
    expect(operatorFlows().find((f) => f.id === v2.operator_flow_id)?.status).toBe("PUBLISHED")
    expect((await outbox("flows.deprecate", v1.id)).map((r) => r.status)).toEqual(["done"])
    expect((await outbox("flows.publish", v2.id)).map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("delete killed after the operator deleted the draft: the sweep removes it here too", async () => {
    const draft = (await h.request("POST", "/chat/flows", a.test_key, { name: "delete_crash", categories: ["OTHER"] })).json
    await eventually(async () => operatorFlows().some((f) => f.id === draft.operator_flow_id), "the operator has the draft", 5_000)
    await crashAt(
      "flows.delete:called",
      () => h.request("DELETE", `/chat/flows/${draft.id}`, a.test_key),
      () => !operatorFlows().some((f) => f.id === draft.operator_flow_id)
    )
    await eventually(async () => (await h.request("GET", `/chat/flows/${draft.id}`, a.test_key)).status === 404, "the sweep deleted it here", 30_000)
    expect(operatorFlows().some((f) => f.id === draft.operator_flow_id)).toBe(false)
    expect((await outbox("flows.delete", draft.id)).map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("flow create killed after the operator created it: recover finds it by name, no second flow", async () => {
    await crashAt(
      "flows.create:called",
      () => h.request("POST", "/chat/flows", a.test_key, { name: "created_then_killed", categories: ["OTHER"] }),
      () => operatorFlows().some((f) => f.name === "created_then_killed")
    )
    const listed = async () =>
      ((await h.request("GET", "/chat/flows", a.test_key)).json.data as Array<any>).filter((f) => f.name === "created_then_killed")
    await eventually(async () => (await listed()).length > 0, "the sweep recorded the flow", 30_000)
    const atOperator = operatorFlows().filter((f) => f.name === "created_then_killed")
    expect(atOperator.map((f) => f.id)).toEqual((await listed()).map((f) => f.operator_flow_id))
    expect(atOperator.length).toBe(1)
  }, 180_000)

  it("a new version killed after the operator cloned the flow: recover finds the clone, one version 2 with the Flow JSON", async () => {
    const v1 = (await h.request("POST", "/chat/flows", a.test_key, { name: "versioned_then_killed", categories: ["OTHER"] })).json
    expect((await h.request("PUT", `/chat/flows/${v1.id}/json`, a.test_key, { json: signUp })).status).toBe(200)
    await eventually(async () => operatorFlows().some((f) => f.id === v1.operator_flow_id), "the operator has v1", 5_000)
    await crashAt(
      "flows.new_version:called",
      () => h.request("POST", `/chat/flows/${v1.id}/versions`, a.test_key),
      () => operatorFlows().filter((f) => f.name === "versioned_then_killed").length === 2
    )
    const versions = async () => (await h.request("GET", `/chat/flows/${v1.id}/versions`, a.test_key)).json.data as Array<any>
    await eventually(async () => (await versions()).length === 2, "the sweep recorded version 2", 30_000)
    const [, v2] = await versions()
    expect(v2).toMatchObject({ version: 2, status: "DRAFT", previous_version_id: v1.id })
    const atOperator = operatorFlows().filter((f) => f.name === "versioned_then_killed")
    expect(atOperator.map((f) => f.id).sort()).toEqual([v1.operator_flow_id, v2.operator_flow_id].sort())
    expect((await h.request("GET", `/chat/flows/${v2.id}/json`, a.test_key)).json.json).toEqual(
      (await h.request("GET", `/chat/flows/${v1.id}/json`, a.test_key)).json.json
    )
    expect((await outbox("flows.new_version", v1.id)).map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("the endpoint's key registration killed after prepare: the key stored here is the one the sweep registers", async () => {
    const draft = (await h.request("POST", "/chat/flows", a.test_key, { name: "key_crash", categories: ["OTHER"] })).json
    await eventually(async () => operatorFlows().some((f) => f.id === draft.operator_flow_id), "the operator has the draft", 5_000)
    await crashAt("flows.encryption_key:prepared", () =>
      h.request("PUT", `/chat/flows/${draft.id}/endpoint`, a.test_key, { url: "http://127.0.0.1:9/flow" })
    )
    const [stored] = await h.query<{ public_key: string; phone_number_id: string }>(
      "SELECT public_key, phone_number_id FROM flow_keys WHERE mode = 'test'"
    )
    expect(stored?.public_key).toContain("BEGIN PUBLIC KEY")
    await eventually(async () => state().flows?.keys?.[stored!.phone_number_id] === stored!.public_key, "the sweep registered the stored key", 30_000)
    expect((await outbox("flows.encryption_key")).map((r) => r.status)).toEqual(["done"])
    // the endpoint itself was never set (the request died before it): a second PUT sets it and registers the same key again
    const again = await h.request("PUT", `/chat/flows/${draft.id}/endpoint`, a.test_key, { url: "http://127.0.0.1:9/flow" })
    expect(again.status, again.text).toBe(200)
    expect(state().flows?.keys?.[stored!.phone_number_id]).toBe(stored!.public_key)
  }, 180_000)

  it("a flow's rename killed after the operator took it: the sweep renames it here too", async () => {
    const draft = (await h.request("POST", "/chat/flows", a.test_key, { name: "before_rename", categories: ["OTHER"] })).json
    await eventually(async () => operatorFlows().some((f) => f.id === draft.operator_flow_id), "the operator has the draft", 5_000)
    await crashAt(
      "flows.update:called",
      () => h.request("PATCH", `/chat/flows/${draft.id}`, a.test_key, { name: "after_rename" }),
      () => operatorFlows().find((f) => f.id === draft.operator_flow_id)?.name === "after_rename"
    )
    await eventually(async () => (await flow(draft.id)).name === "after_rename", "renamed here by the sweep", 30_000)
    expect((await outbox("flows.update", draft.id)).map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("template create killed after the operator took it: recover finds it by name and language, no second template", async () => {
    const body = {
      templateData: {
        name: "killed_after_submit",
        category: "UTILITY",
        language: "en_US",
        components: [{ type: "BODY", text: "Hi {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } }]
      }
    }
    await crashAt(
      "templates.create:called",
      () => h.request("POST", "/chat/templates", a.test_key, body),
      () => operatorTemplates().some((t) => t.name === "killed_after_submit")
    )
    const byName = async () => h.request("GET", "/chat/templates/killed_after_submit", a.test_key)
    await eventually(async () => (await byName()).status === 200, "the sweep recorded the template", 30_000)
    expect(((await byName()).json.data as Array<any>).map((t) => t.language)).toEqual(["en_US"])
    const atOperator = operatorTemplates().filter((t) => t.name === "killed_after_submit")
    expect(atOperator.length).toBe(1)
    const rows = await h.query<{ operator_id: string }>("SELECT operator_id FROM templates WHERE name = 'killed_after_submit'")
    expect(rows.map((r) => String(r.operator_id))).toEqual([String(atOperator[0]!.id)])
    expect((await outbox("templates.create", "killed_after_submit")).map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("Flow JSON killed after prepare, then a deprecation killed after the operator took it: the sweep finishes both", async () => {
    const draft = (await h.request("POST", "/chat/flows", a.test_key, { name: "json_crash", categories: ["OTHER"] })).json
    await eventually(async () => operatorFlows().some((f) => f.id === draft.operator_flow_id), "the operator has the draft", 5_000)
    await crashAt("flows.json:prepared", () => h.request("PUT", `/chat/flows/${draft.id}/json`, a.test_key, { json: signUp }))
    await eventually(
      async () => (await h.request("GET", `/chat/flows/${draft.id}/json`, a.test_key)).json.json !== null,
      "the sweep stored the JSON",
      30_000
    )
    expect((await h.request("GET", `/chat/flows/${draft.id}/json`, a.test_key)).json.json).toEqual(signUp)
    await eventually(
      async () => typeof (operatorFlows().find((f) => f.id === draft.operator_flow_id) as any)?.json === "string",
      "the operator has it",
      5_000
    )
    expect((await outbox("flows.json", draft.id)).map((r) => r.status)).toEqual(["done"])

    expect((await h.request("POST", `/chat/flows/${draft.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
    await eventually(
      async () => operatorFlows().find((f) => f.id === draft.operator_flow_id)?.status === "PUBLISHED",
      "published at the operator",
      5_000
    )
    await crashAt(
      "flows.deprecate:called",
      () => h.request("POST", `/chat/flows/${draft.id}/deprecate`, a.test_key),
      () => operatorFlows().find((f) => f.id === draft.operator_flow_id)?.status === "DEPRECATED"
    )
    await eventually(async () => (await flow(draft.id)).status === "DEPRECATED", "the sweep deprecated it here", 30_000)
    const rows = await h.query<{ status: string }>(`SELECT status FROM mirror_outbox WHERE kind = 'flows.deprecate' AND payload LIKE '%${draft.id}%'`)
    expect(rows.map((r) => r.status)).toEqual(["done"])
  }, 180_000)

  it("the endpoint removal killed after prepare: the sweep gives the operator no endpoint and stores none", async () => {
    const draft = (await h.request("POST", "/chat/flows", a.test_key, { name: "endpoint_crash", categories: ["OTHER"] })).json
    await eventually(async () => operatorFlows().some((f) => f.id === draft.operator_flow_id), "the operator has the draft", 5_000)
    await crashAt("flows.endpoint:prepared", () => h.request("PUT", `/chat/flows/${draft.id}/endpoint`, a.test_key, { url: null }))
    await eventually(async () => (await outbox("flows.endpoint", draft.id)).some((r) => r.status === "done"), "the sweep settled it", 30_000)
    expect((await outbox("flows.endpoint", draft.id)).map((r) => r.status)).toEqual(["done"])
    expect((await flow(draft.id)).endpoint_url ?? null).toBeNull()
  }, 180_000)

  it("template delete killed after the operator deleted it: the sweep deletes it here too", async () => {
    const body = {
      templateData: {
        name: "deleted_then_killed",
        category: "UTILITY",
        language: "en_US",
        components: [{ type: "BODY", text: "Hi {{1}}.", example: { body_text: [["Ana"]] } }]
      }
    }
    expect((await h.request("POST", "/chat/templates", a.test_key, body)).status).toBe(201)
    await eventually(async () => operatorTemplates().some((t) => t.name === "deleted_then_killed"), "the operator has it", 5_000)
    await crashAt(
      "templates.delete:called",
      () => h.request("DELETE", "/chat/templates/deleted_then_killed", a.test_key),
      () => !operatorTemplates().some((t) => t.name === "deleted_then_killed")
    )
    await eventually(
      async () => (await h.request("GET", "/chat/templates/deleted_then_killed", a.test_key)).status === 404,
      "the sweep deleted it here",
      30_000
    )
    expect((await outbox("templates.delete", "deleted_then_killed")).map((r) => r.status)).toEqual(["done"])
  }, 180_000)
})
