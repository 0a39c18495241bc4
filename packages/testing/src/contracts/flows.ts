/**
 * The flows module's storage contract (run on SQLite and PostgreSQL): flows are scoped by
 * tenant, status changes are compare-and-set on the status they start from, a lineage lists
 * its versions in order and takes each number once, and only the statuses named may delete.
 */
import { Flow, FlowEndpointRepo, FlowRepo, FlowResponse, FlowResponseRepo, Time } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { createStore, tenantOf } from "./foundation-fixtures.js"
import { flowBatchTests } from "./flows-batches.js"
import { flow } from "./flows-fixtures.js"
import type { ContractIt, ModuleContract } from "./ModuleContract.js"

const tests = (it: ContractIt): void => {
  describe("FlowRepo", () => {
    it.effect("a flow reads back as stored; other tenants see nothing of it", () =>
      Effect.gen(function* () {
        const repo = yield* FlowRepo.FlowRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const f = yield* flow(live, {
          json: '{"version":"7.3"}',
          jsonVersion: "7.3",
          endpointUrl: "https://example.com/flow",
          validationErrors: [{ error: "INVALID_PROPERTY", error_type: "JSON_SCHEMA_ERROR", message: "x", line_start: 1 }]
        })
        yield* repo.insert(live, f)
        expect(yield* repo.find(live, f.id)).toEqual(Option.some(f))
        expect(yield* repo.findByOperatorId(live, f.operatorFlowId)).toEqual(Option.some(f))
        expect(Option.isNone(yield* repo.findByOperatorId(live, "999"))).toBe(true)
        for (const stranger of [tenantOf(store.id, "test"), tenantOf(other.id, "live")]) {
          expect(Option.isNone(yield* repo.find(stranger, f.id))).toBe(true)
          expect(Option.isNone(yield* repo.findByOperatorId(stranger, f.operatorFlowId))).toBe(true)
          expect((yield* repo.list(stranger, { limit: 10 })).items).toEqual([])
          expect(Option.isNone(yield* repo.update(stranger, f.id, { name: "X" }, ["DRAFT"], f.createdAt + 1))).toBe(true)
          expect(yield* repo.remove(stranger, f.id, ["DRAFT"])).toBe(false)
          expect(yield* repo.lineage(stranger, f.id)).toEqual([])
        }
      })
    )

    it.effect("update is compare-and-set on the status: from a status not named, nothing changes", () =>
      Effect.gen(function* () {
        const repo = yield* FlowRepo.FlowRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const f = yield* flow(live)
        yield* repo.insert(live, f)
        expect(Option.isNone(yield* repo.update(live, f.id, { status: "DEPRECATED" }, ["PUBLISHED"], f.createdAt + 1))).toBe(true)
        const published = yield* repo.update(live, f.id, { status: "PUBLISHED" }, ["DRAFT"], f.createdAt + 2)
        expect(Option.map(published, (p) => [p.status, p.updatedAt, p.name])).toEqual(Option.some(["PUBLISHED", f.createdAt + 2, f.name]))
        // a second publish from DRAFT loses
        expect(Option.isNone(yield* repo.update(live, f.id, { status: "PUBLISHED" }, ["DRAFT"], f.createdAt + 3))).toBe(true)
        expect(yield* repo.remove(live, f.id, ["DRAFT"])).toBe(false)
        const patched = yield* repo.update(live, f.id, { json: "{}", jsonVersion: null, categories: ["SURVEY"] }, ["PUBLISHED"], f.createdAt + 4)
        expect(Option.map(patched, (p) => [p.json, p.categories, p.status])).toEqual(Option.some(["{}", ["SURVEY"], "PUBLISHED"]))
        expect(Option.isNone(yield* repo.update(live, f.id, { name: "Y" }, [], f.createdAt + 5))).toBe(true)
      })
    )

    it.effect("a lineage lists its versions in order; list filters by status, newest first, paged", () =>
      Effect.gen(function* () {
        const repo = yield* FlowRepo.FlowRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const v1 = yield* flow(live, { status: "DEPRECATED" })
        const v2 = yield* flow(live, { lineageId: v1.id, previousVersionId: v1.id, version: 2, status: "PUBLISHED" })
        const v3 = yield* flow(live, { lineageId: v1.id, previousVersionId: v2.id, version: 3 })
        const alone = yield* flow(live)
        for (const f of [v3, alone, v1, v2]) yield* repo.insert(live, f)
        expect((yield* repo.lineage(live, v1.id)).map((f) => f.version)).toEqual([1, 2, 3])
        const drafts = yield* repo.list(live, { limit: 10, status: "DRAFT" })
        expect(drafts.items.map((f) => f.id)).toEqual([alone.id, v3.id])
        const first = yield* repo.list(live, { limit: 2 })
        expect(first.hasMore).toBe(true)
        const second = yield* repo.list(live, { limit: 2, after: first.items[1].id })
        expect([...first.items, ...second.items].map((f) => f.id)).toEqual([alone.id, v3.id, v2.id, v1.id])
        expect(yield* repo.remove(live, v3.id, ["DRAFT"])).toBe(true)
        expect((yield* repo.lineage(live, v1.id)).map((f) => f.version)).toEqual([1, 2])
      })
    )

    it.effect("a lineage's numbers are unique: inserting a version whose number is taken answers false and stores nothing", () =>
      Effect.gen(function* () {
        const repo = yield* FlowRepo.FlowRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const v1 = yield* flow(live)
        const twin = yield* flow(live, { lineageId: v1.id, previousVersionId: v1.id, version: 2 })
        const late = yield* flow(live, { lineageId: v1.id, previousVersionId: v1.id, version: 2 })
        expect(yield* repo.insert(live, v1)).toBe(true)
        expect(yield* repo.insert(live, twin)).toBe(true)
        expect(yield* repo.insert(live, late)).toBe(false)
        expect(Option.isNone(yield* repo.find(live, late.id))).toBe(true)
        expect(yield* repo.insert(live, { ...late, version: 3 })).toBe(true)
        expect((yield* repo.lineage(live, v1.id)).map((f) => [f.version, f.id])).toEqual([
          [1, v1.id],
          [2, twin.id],
          [3, late.id]
        ])
      })
    )
  })
}

const responseTests = (it: ContractIt): void => {
  describe("FlowResponseRepo", () => {
    it.effect("a response is stored once per operator message id; tokens tie it to the latest send; unmatched ones are listed apart", () =>
      Effect.gen(function* () {
        const repo = yield* FlowResponseRepo.FlowResponseRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const f = yield* flow(live)
        yield* (yield* FlowRepo.FlowRepo).insert(live, f)
        const now = yield* Time.now
        const send = {
          id: yield* FlowResponse.FlowSendId.generate,
          flowId: f.id,
          flowToken: "tok-1",
          messageId: "msg_x",
          to: "+15551230001",
          createdAt: now
        }
        yield* repo.recordSend(live, send)
        expect(yield* repo.sendByToken(live, "tok-1")).toEqual(Option.some(send))
        expect(Option.isNone(yield* repo.sendByToken(tenantOf(store.id, "test"), "tok-1"))).toBe(true)
        const response = (fields: Partial<FlowResponse.FlowResponse>) =>
          Effect.gen(function* () {
            return {
              id: yield* FlowResponse.FlowResponseId.generate,
              storeId: store.id,
              mode: "live" as const,
              flowId: f.id,
              sendId: send.id,
              flowToken: "tok-1",
              operatorMessageId: "wamid.1",
              from: "+15551230001",
              response: { email: "a@example.com", flow_token: "tok-1" },
              receivedAt: now + 10,
              ...fields
            } satisfies FlowResponse.FlowResponse
          })
        const first = yield* response({})
        expect(yield* repo.insertResponse(live, first)).toBe(true)
        expect(yield* repo.insertResponse(live, yield* response({}))).toBe(false)
        const unmatched = yield* response({ flowId: null, sendId: null, flowToken: "nobody", operatorMessageId: "wamid.2", receivedAt: now + 20 })
        expect(yield* repo.insertResponse(live, unmatched)).toBe(true)
        expect((yield* repo.list(live, { limit: 10, flowId: f.id })).items).toEqual([first])
        expect((yield* repo.list(live, { limit: 10, unmatched: true })).items.map((r) => r.id)).toEqual([unmatched.id])
        expect((yield* repo.list(live, { limit: 10 })).items.map((r) => r.id)).toEqual([unmatched.id, first.id])
        expect((yield* repo.list(live, { limit: 10, flowToken: "tok-1" })).items.map((r) => r.id)).toEqual([first.id])
        expect((yield* repo.list(live, { limit: 10, since: now + 15 })).items.map((r) => r.id)).toEqual([unmatched.id])
        expect((yield* repo.list(live, { limit: 10, until: now + 15 })).items.map((r) => r.id)).toEqual([first.id])
        expect((yield* repo.list(tenantOf(store.id, "test"), { limit: 10 })).items).toEqual([])
        expect(yield* repo.times(live, f.id, now, now + 100)).toEqual({ sends: [now], responses: [now + 10] })
        expect(yield* repo.times(live, f.id, now + 11, now + 100)).toEqual({ sends: [], responses: [] })
      })
    )
  })
}

const endpointTests = (it: ContractIt): void => {
  describe("FlowEndpointRepo", () => {
    it.effect("calls read back by flow and time; one key per tenant, the first saved wins", () =>
      Effect.gen(function* () {
        const repo = yield* FlowEndpointRepo.FlowEndpointRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const test = tenantOf(store.id, "test")
        const f = yield* flow(live)
        const now = yield* Time.now
        const call = { id: "fec_1", flowId: f.id, action: "ping", httpStatus: 200, ok: true, latencyMs: 12, error: null, at: now }
        yield* repo.recordCall(live, call)
        yield* repo.recordCall(live, {
          ...call,
          id: "fec_2",
          action: "data_exchange",
          httpStatus: 421,
          ok: false,
          error: "cannot decrypt",
          at: now + 5
        })
        expect((yield* repo.calls(live, f.id, now, now + 10)).map((c) => [c.action, c.ok, c.httpStatus, c.error])).toEqual([
          ["ping", true, 200, null],
          ["data_exchange", false, 421, "cannot decrypt"]
        ])
        expect(yield* repo.calls(live, f.id, now + 1, now + 10)).toHaveLength(1)
        expect(yield* repo.calls(test, f.id, now, now + 10)).toEqual([])
        expect(Option.isNone(yield* repo.findKey(live))).toBe(true)
        const key = { phoneNumberId: "1055", publicKey: "PUB-1", privateKey: "SEALED-1", createdAt: now }
        expect(yield* repo.saveKey(live, key)).toEqual(key)
        expect(yield* repo.saveKey(live, { ...key, publicKey: "PUB-2" })).toEqual(key)
        expect(yield* repo.findKey(live)).toEqual(Option.some(key))
        expect(Option.isNone(yield* repo.findKey(test))).toBe(true)
      })
    )

    it.effect("calls recorded together are read back at once; a row that cannot be written leaves the others written", () =>
      Effect.gen(function* () {
        const repo = yield* FlowEndpointRepo.FlowEndpointRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const f = yield* flow(live)
        const now = yield* Time.now
        const call = { flowId: f.id, action: "data_exchange", httpStatus: 200, ok: true, latencyMs: 7.4, error: null, at: now }
        yield* repo.recordCall(live, { ...call, id: "fec_a" })
        // a store that does not exist (deleted meanwhile): its row is refused, the others stay
        yield* repo.recordCall(tenantOf("str_gone" as never, "live"), { ...call, id: "fec_gone" })
        yield* repo.recordCall(live, { ...call, id: "fec_b", at: now + 1, httpStatus: 427, ok: false, error: "unknown flow token" })
        expect(yield* repo.calls(live, f.id, now, now + 10)).toEqual([
          { ...call, id: "fec_a", latencyMs: 7 },
          { ...call, id: "fec_b", at: now + 1, httpStatus: 427, ok: false, error: "unknown flow token", latencyMs: 7 }
        ])
      })
    )

    it.effect("the hosted endpoint's target is the flow and its tenant's key in one read, as findById and findKey read them", () =>
      Effect.gen(function* () {
        const repo = yield* FlowEndpointRepo.FlowEndpointRepo
        const flows = yield* FlowRepo.FlowRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const test = tenantOf(store.id, "test")
        const withEndpoint = yield* flow(live, { json: '{"version":"7.3","screens":[]}', endpointUrl: "https://example.com/flow" })
        const bare = yield* flow(test)
        expect(yield* flows.insert(live, withEndpoint)).toBe(true)
        expect(yield* flows.insert(test, bare)).toBe(true)
        /** What the endpoint read before: the flow by id, then its tenant's key. */
        const twoReads = (id: Flow.FlowId) =>
          Effect.gen(function* () {
            const found = Option.getOrThrow(yield* flows.findById(id))
            const tenant = { storeId: found.storeId, mode: found.mode }
            const key = yield* repo.findKey(tenant)
            return Option.some({
              flowId: found.id,
              tenant,
              endpointUrl: found.endpointUrl,
              json: found.json,
              privateKey: Option.isSome(key) ? key.value.privateKey : null
            })
          })
        expect(yield* repo.target(withEndpoint.id)).toEqual(yield* twoReads(withEndpoint.id))
        expect(Option.getOrThrow(yield* repo.target(withEndpoint.id)).privateKey).toBeNull()
        const now = yield* Time.now
        yield* repo.saveKey(live, { phoneNumberId: "1055", publicKey: "PUB-L", privateKey: "SEALED-L", createdAt: now })
        expect(yield* repo.target(withEndpoint.id)).toEqual(yield* twoReads(withEndpoint.id))
        expect(Option.getOrThrow(yield* repo.target(withEndpoint.id))).toMatchObject({
          tenant: live,
          endpointUrl: "https://example.com/flow",
          privateKey: "SEALED-L"
        })
        // the live key is not the test mode's
        expect(yield* repo.target(bare.id)).toEqual(yield* twoReads(bare.id))
        expect(Option.getOrThrow(yield* repo.target(bare.id))).toMatchObject({ tenant: test, json: null, endpointUrl: null, privateKey: null })
        expect(Option.isNone(yield* repo.target(yield* Flow.FlowId.generate))).toBe(true)
      })
    )
  })
}

export const flowsContract: ModuleContract = {
  name: "flows",
  tests: (it) => {
    tests(it)
    responseTests(it)
    endpointTests(it)
    flowBatchTests(it)
  }
}
