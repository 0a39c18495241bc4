/**
 * The flow state machine, table-driven over every status and operation, and property-based:
 * from DRAFT, any sequence of operations the machine allows never leaves a DEPRECATED flow,
 * never brings a flow back to DRAFT, and only a DRAFT is ever edited or deleted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, Flow, FlowErrors } from "@switchboard/domain"
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
