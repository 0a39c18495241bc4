/**
 * Flow versioning (`FlowVersions`), property-based: a lineage driven by any sequence of new
 * versions (from any version), publishes, deprecations, deletes and the operator's health
 * changes, applied as `Flows` applies them, keeps its numbers distinct and, as long as no
 * publish keeps the others (`deprecate_previous=false`), never holds more than one published
 * version, so at most one PUBLISHED.
 */
import { describe, expect, it } from "@effect/vitest"
import { Flow, FlowVersions } from "@switchboard/domain"
import { Either } from "effect"
import * as fc from "fast-check"

const idOf = (n: number) => `flw_${String(n).padStart(26, "0")}` as Flow.FlowId

const first = (): Flow.Flow => ({
  id: idOf(0),
  storeId: "str_00000000000000000000000000" as Flow.Flow["storeId"],
  mode: "live",
  name: "Sign up",
  categories: ["OTHER"],
  status: "DRAFT",
  version: 1,
  previousVersionId: null,
  lineageId: idOf(0),
  json: "{}",
  jsonVersion: "7.3",
  validationErrors: [],
  endpointUrl: null,
  operatorFlowId: "op-0",
  createdAt: 0,
  updatedAt: 0
})

type Step =
  | { readonly op: "newVersion"; readonly at: number }
  | { readonly op: "publish"; readonly at: number; readonly keep: boolean }
  | { readonly op: "deprecate" | "throttle" | "block" | "restore" | "delete"; readonly at: number }

const step = (keep: fc.Arbitrary<boolean>): fc.Arbitrary<Step> =>
  fc.oneof(
    fc.record({ op: fc.constant("newVersion" as const), at: fc.nat() }),
    fc.record({ op: fc.constant("publish" as const), at: fc.nat(), keep }),
    fc.record({
      op: fc.constantFrom("deprecate" as const, "throttle" as const, "block" as const, "restore" as const, "delete" as const),
      at: fc.nat()
    })
  )

/** Applies `step` to the lineage as the use cases do (the state machine asked first; publishing deprecates what it replaces). */
const apply = (lineage: ReadonlyArray<Flow.Flow>, s: Step, n: number): ReadonlyArray<Flow.Flow> => {
  if (lineage.length === 0) return lineage
  const flow = lineage[s.at % lineage.length]
  if (s.op === "newVersion") {
    const draft = FlowVersions.draftFrom(flow, lineage, { id: idOf(n), operatorFlowId: `op-${n}`, validationErrors: [], now: n })
    return [...lineage, draft]
  }
  const next = Flow.transition(flow.status, s.op)
  if (Either.isLeft(next)) return lineage
  if (s.op === "delete") return lineage.filter((f) => f.id !== flow.id)
  const changed = lineage.map((f) => (f.id === flow.id ? { ...f, status: next.right } : f))
  if (s.op !== "publish" || s.keep) return changed
  const replaced = FlowVersions.replacedBy(changed, { ...flow, status: next.right }).map((f) => f.id)
  return changed.map((f) => (replaced.includes(f.id) ? { ...f, status: "DEPRECATED" as const } : f))
}

const run = (steps: ReadonlyArray<Step>, check: (lineage: ReadonlyArray<Flow.Flow>, s: Step, before: ReadonlyArray<Flow.Flow>) => void) => {
  let lineage: ReadonlyArray<Flow.Flow> = [first()]
  steps.forEach((s, i) => {
    const before = lineage
    lineage = apply(lineage, s, i + 1)
    check(lineage, s, before)
  })
}

const published = (lineage: ReadonlyArray<Flow.Flow>) => lineage.filter((f) => FlowVersions.isPublished(f.status))

describe("FlowVersions", () => {
  it("at most one PUBLISHED per lineage (indeed at most one published version) while every publish deprecates the others", () =>
    fc.assert(
      fc.property(fc.array(step(fc.constant(false)), { maxLength: 60 }), (steps) =>
        run(steps, (lineage, s, before) => {
          expect(published(lineage).length).toBeLessThanOrEqual(1)
          expect(lineage.filter((f) => f.status === "PUBLISHED").length).toBeLessThanOrEqual(1)
          // a publish that happened leaves the published version the only one
          if (s.op === "publish" && before.length > 0) {
            const flow = before[s.at % before.length]
            if (flow.status === "DRAFT") expect(published(lineage).map((f) => f.id)).toEqual([flow.id])
          }
        })
      ),
      { numRuns: 500 }
    ))

  it("version numbers are distinct along any history, a new version numbered past every one its lineage holds", () =>
    fc.assert(
      fc.property(fc.array(step(fc.boolean()), { maxLength: 60 }), (steps) =>
        run(steps, (lineage, s, before) => {
          expect(new Set(lineage.map((f) => f.version)).size).toBe(lineage.length)
          if (s.op === "newVersion" && before.length > 0) {
            const draft = lineage[lineage.length - 1]
            const source = before[s.at % before.length]
            expect(draft).toMatchObject({ status: "DRAFT", previousVersionId: source.id, lineageId: source.lineageId, json: source.json })
            for (const f of before) expect(draft.version).toBeGreaterThan(f.version)
          }
        })
      ),
      { numRuns: 500 }
    ))

  it("a publish that keeps the others (deprecate_previous=false) deprecates nothing", () =>
    fc.assert(
      fc.property(fc.array(step(fc.boolean()), { maxLength: 60 }), (steps) =>
        run(steps, (lineage, s, before) => {
          if (s.op === "publish" && s.keep)
            expect(lineage.filter((f) => f.status === "DEPRECATED").length).toBe(before.filter((f) => f.status === "DEPRECATED").length)
        })
      ),
      { numRuns: 200 }
    ))

  it("publishing a version that skipped a draft still deprecates the published one; the predecessor comes first", () => {
    const v1 = { ...first(), status: "PUBLISHED" as const }
    const v2 = FlowVersions.draftFrom(v1, [v1], { id: idOf(2), operatorFlowId: "op-2", validationErrors: [], now: 2 })
    const v3 = FlowVersions.draftFrom(v2, [v1, v2], { id: idOf(3), operatorFlowId: "op-3", validationErrors: [], now: 3 })
    expect([v2.version, v3.version]).toEqual([2, 3])
    expect(FlowVersions.replacedBy([v1, v2, v3], v3).map((f) => f.id)).toEqual([v1.id])
    const throttled = { ...v2, status: "THROTTLED" as const }
    expect(FlowVersions.replacedBy([v1, throttled, v3], v3).map((f) => f.id)).toEqual([throttled.id, v1.id])
  })

  it("the next number counts the source even when the lineage read no longer holds it", () => {
    expect(FlowVersions.nextNumber([], { version: 4 })).toBe(5)
    expect(FlowVersions.nextNumber([{ version: 2 }, { version: 7 }], { version: 4 })).toBe(8)
  })
})
