/**
 * The inbox: one job kind, `inbox.process`, which applies each event of one stored operator
 * webhook to the store it names. What each event does is the modules' business (their
 * `operatorEvents`), so the job is made from the handlers `Modules.ts` collects.
 */
import { Schema } from "effect"
import * as Module from "../shared/Module.js"
import { InboxEntryId } from "./Inbox.js"
import * as OperatorWebhooks from "./OperatorWebhooks.js"

/** What an `inbox.process` job names: the inbox entry to process. */
export const ProcessPayload = Schema.Struct({ inboxId: InboxEntryId.schema })
export type ProcessPayload = typeof ProcessPayload.Type

/**
 * The `inbox.process` job kind over `handlers`: transactional, so the events' writes commit
 * with the job's completion, exactly once.
 */
export const processJob = <R1, R2, R3>(handlers: Parameters<typeof OperatorWebhooks.process<R1, R2, R3>>[1]) =>
  Module.jobKind({
    kind: OperatorWebhooks.PROCESS_JOB,
    payload: ProcessPayload,
    run: (payload) => OperatorWebhooks.process(payload.inboxId, handlers)
  })
