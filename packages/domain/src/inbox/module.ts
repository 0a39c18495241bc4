/**
 * The inbox: one job kind, `inbox.process`, which applies each event of a batch of stored
 * operator webhooks to the store it names. What each event does is the modules' business (their
 * `operatorEvents`), so the job is made from the dispatch `Modules.ts` builds.
 */
import { Schema } from "effect"
import * as Module from "../shared/Module.js"
import { InboxEntryId } from "./Inbox.js"
import * as OperatorWebhooks from "./OperatorWebhooks.js"

/**
 * What an `inbox.process` job names: the inbox entries to process (a batch stored in one
 * transaction), or, as jobs enqueued before batches were, one entry.
 */
export const ProcessPayload = Schema.Union(
  Schema.Struct({ inboxIds: Schema.Array(InboxEntryId.schema) }),
  Schema.Struct({ inboxId: InboxEntryId.schema })
)
export type ProcessPayload = typeof ProcessPayload.Type

const idsOf = (payload: ProcessPayload): ReadonlyArray<InboxEntryId> => ("inboxIds" in payload ? payload.inboxIds : [payload.inboxId])

/**
 * The `inbox.process` job kind over `dispatch`: transactional, so the events' writes commit
 * with the job's completion, exactly once; ordered, so the batches a process takes are
 * applied in the order they were stored (a template PAUSED then APPROVED ends APPROVED).
 * Several worker processes (PostgreSQL) may still apply two batches at once. Batches a
 * runner claimed together are applied as one (`runMany`), in the order stored.
 */
export const processJob = <R>(dispatch: OperatorWebhooks.Dispatch<R>) =>
  Module.jobKind({
    kind: OperatorWebhooks.PROCESS_JOB,
    payload: ProcessPayload,
    ordered: true,
    run: (payload, job) => OperatorWebhooks.process(idsOf(payload), job, dispatch),
    runMany: (payloads) => OperatorWebhooks.process(payloads.flatMap(idsOf), { attempt: 1 }, dispatch)
  })
