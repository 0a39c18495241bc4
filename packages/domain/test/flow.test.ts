/**
 * The flow state machine, table-driven over every status and operation, and property-based:
 * from DRAFT, any sequence of operations the machine allows never leaves a DEPRECATED flow,
 * never brings a flow back to DRAFT, and only a DRAFT is ever edited or deleted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, Flow, FlowErrors, FlowStats } from "@switchboard/domain"
import { Either } from "effect"
import * as fc from "fast-check"

const OPERATIONS: ReadonlyArray<Flow.Operation> = ["update", "delete", "publish", "deprecate", "throttle", "block", "restore"]

/** status -> operation -> the status after, or the error's tag. */
const TABLE: Record<Flow.Status, Record<Flow.Operation, Flow.Status | "FlowPublished" | "InvalidState">> = {
  DRAFT: {
    update: "DRAFT",
    delete: "DRAFT",
    publish: "PUBLISHED",
    deprecate: "InvalidState",
    throttle: "InvalidState",
    block: "InvalidState",
    restore: "InvalidState"
  },
  PUBLISHED: {
    update: "FlowPublished",
    delete: "InvalidState",
    publish: "InvalidState",
    deprecate: "DEPRECATED",
    throttle: "THROTTLED",
    block: "BLOCKED",
    restore: "InvalidState"
  },
  THROTTLED: {
    update: "FlowPublished",
    delete: "InvalidState",
    publish: "InvalidState",
    deprecate: "DEPRECATED",
    throttle: "InvalidState",
    block: "BLOCKED",
    restore: "PUBLISHED"
  },
  BLOCKED: {
    update: "FlowPublished",
    delete: "InvalidState",
    publish: "InvalidState",
    deprecate: "DEPRECATED",
    throttle: "InvalidState",
    block: "InvalidState",
    restore: "PUBLISHED"
  },
  DEPRECATED: {
    update: "FlowPublished",
    delete: "InvalidState",
    publish: "InvalidState",
    deprecate: "InvalidState",
    throttle: "InvalidState",
    block: "InvalidState",
    restore: "InvalidState"
  }
}

describe("Flow.transition", () => {
  for (const status of Flow.Status.literals) {
    for (const operation of OPERATIONS) {
      const expected = TABLE[status][operation]
      it(`${operation} on ${status}: ${expected}`, () => {
        const result = Flow.transition(status, operation)
        if (expected === "FlowPublished" || expected === "InvalidState") {
          expect(Either.isLeft(result)).toBe(true)
          const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
          expect(error._tag).toBe(expected)
          if (error instanceof Errors.InvalidState) expect(error.status).toBe(status)
          if (error instanceof FlowErrors.FlowPublished) expect(error.status).toBe(status)
        } else expect(result).toEqual(Either.right(expected))
      })
    }
  }

  it("sources lists exactly the statuses an operation is allowed from", () => {
    expect(Flow.sources("update")).toEqual(["DRAFT"])
    expect(Flow.sources("delete")).toEqual(["DRAFT"])
    expect(Flow.sources("publish")).toEqual(["DRAFT"])
    expect(Flow.sources("deprecate")).toEqual(["PUBLISHED", "THROTTLED", "BLOCKED"])
  })

  it("sendable: a draft only in draft mode, a published or throttled flow only in published mode", () => {
    expect(Flow.Status.literals.filter((s) => Flow.sendable(s, "draft"))).toEqual(["DRAFT"])
    expect(Flow.Status.literals.filter((s) => Flow.sendable(s, "published"))).toEqual(["PUBLISHED", "THROTTLED"])
  })

  it("any allowed run from DRAFT: DEPRECATED is final, nothing returns to DRAFT, only a DRAFT is edited", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...OPERATIONS), { maxLength: 30 }), (ops) => {
        let status: Flow.Status = "DRAFT"
        let left = false
        for (const op of ops) {
          const next = Flow.transition(status, op)
          if (Either.isLeft(next)) continue
          if (status === "DEPRECATED") return false
          if (status !== "DRAFT" && next.right === "DRAFT") return false
          if ((op === "update" || op === "delete") && status !== "DRAFT") return false
          if (status !== "DRAFT") left = true
          if (left && next.right === "DRAFT") return false
          status = next.right
        }
        return true
      }),
      { numRuns: 500 }
    )
  })
})

describe("FlowStats.compute", () => {
  const DAY = 24 * 3600 * 1000
  const t0 = Date.parse("2026-05-04T00:00:00Z")
  it("counts sends, responses and endpoint calls, by day, with rates and latency quantiles", () => {
    const calls = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((latencyMs, i) => ({
      at: t0 + (i < 5 ? 1000 : DAY + 1000),
      ok: i !== 3,
      httpStatus: i === 9 ? 500 : 200,
      latencyMs
    }))
    const stats = FlowStats.compute("flw_x", t0, t0 + 2 * DAY, [t0 + 1, t0 + 2, t0 + DAY], [t0 + 5], calls)
    expect(stats).toMatchObject({
      sent: 3,
      responses: 1,
      completion_rate: 0.3333,
      endpoint: { requests: 10, errors: 1, error_rate: 0.1, p50_latency_ms: 50, p90_latency_ms: 90, availability: 0.9 }
    })
    expect(stats.by_day).toEqual([
      { date: "2026-05-04", sent: 2, responses: 1, endpoint_requests: 5, endpoint_errors: 1 },
      { date: "2026-05-05", sent: 1, responses: 0, endpoint_requests: 5, endpoint_errors: 0 }
    ])
  })
  it("no records: zero counts and null rates", () => {
    expect(FlowStats.compute("flw_x", t0, t0 + DAY, [], [], [])).toMatchObject({
      sent: 0,
      completion_rate: null,
      endpoint: { requests: 0, error_rate: null, p50_latency_ms: null, availability: null },
      by_day: []
    })
  })
  it("completion rate never passes 1", () => {
    expect(FlowStats.compute("flw_x", t0, t0 + DAY, [t0], [t0, t0 + 1], []).completion_rate).toBe(1)
  })
})
