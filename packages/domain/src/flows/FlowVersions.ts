/**
 * Flow versioning, pure (spec §4.11): the rules `Flows.newVersion` and `Flows.publish`
 * follow, with no storage and no operator. A lineage is every version of one flow: they
 * share `lineage_id` (the first version's id) and are numbered 1, 2, ...
 *
 * - **A new version** (`draftFrom`) is a DRAFT copied from any version of the lineage,
 *   naming it as its predecessor, numbered one past the highest number the lineage holds
 *   (`nextNumber`). Two concurrent twins may compute the same number: the unique index on
 *   (store_id, mode, lineage_id, version) refuses the later insert, and `Flows.newVersion`
 *   reads the lineage again and takes the next number, so every version keeps its own.
 * - **Publishing** a version replaces the lineage's published ones (`replacedBy`): every
 *   other version that may be deprecated (PUBLISHED, THROTTLED or BLOCKED) is deprecated
 *   in the same step, its predecessor first, unless the caller keeps them
 *   (`deprecate_previous=false`). So a lineage whose publishing callers keep nothing has at
 *   most one published version (PUBLISHED, THROTTLED or BLOCKED), hence at most one
 *   PUBLISHED: the operator's health changes (throttle, block, restore) only move that one.
 */
import { Either } from "effect"
import type { Millis } from "../shared/Time.js"
import * as Flow from "./Flow.js"

/** The number a new version of `lineage` takes: one past the highest it holds (`source` counted even when it is gone meanwhile). */
export const nextNumber = (lineage: ReadonlyArray<Pick<Flow.Flow, "version">>, source: Pick<Flow.Flow, "version">): number =>
  Math.max(source.version, ...lineage.map((f) => f.version)) + 1

/** What a new version gets that it does not copy from its source. */
export interface NewVersionFields {
  readonly id: Flow.FlowId
  readonly operatorFlowId: string
  readonly validationErrors: Flow.Flow["validationErrors"]
  readonly now: Millis
}

/** A new DRAFT of `source`'s lineage, copied from it (name, categories, Flow JSON, endpoint), naming it as predecessor. */
export const draftFrom = (source: Flow.Flow, lineage: ReadonlyArray<Flow.Flow>, fields: NewVersionFields): Flow.Flow => ({
  ...source,
  id: fields.id,
  status: "DRAFT",
  version: nextNumber(lineage, source),
  previousVersionId: source.id,
  validationErrors: fields.validationErrors,
  operatorFlowId: fields.operatorFlowId,
  createdAt: fields.now,
  updatedAt: fields.now
})

/** Whether a version in `status` is published (the operator shows it): PUBLISHED, THROTTLED or BLOCKED. */
export const isPublished = (status: Flow.Status): boolean => Either.isRight(Flow.transition(status, "deprecate"))

/**
 * The versions of `lineage` that publishing `flow` deprecates: every other published one,
 * its predecessor first, then by number.
 */
export const replacedBy = (lineage: ReadonlyArray<Flow.Flow>, flow: Flow.Flow): ReadonlyArray<Flow.Flow> =>
  lineage
    .filter((f) => f.id !== flow.id && isPublished(f.status))
    .sort((a, b) => Number(b.id === flow.previousVersionId) - Number(a.id === flow.previousVersionId) || a.version - b.version)
