/**
 * The inbox: one job kind, `inbox.process`, which applies each event of one stored operator
 * webhook to the store it names. What each event does is the modules' business (their
 * `operatorEvents`), so the job is made from the dispatch `Modules.ts` builds.
 */
import { Schema } from "effect"
import * as Module from "../shared/Module.js"
import { InboxEntryId } from "./Inbox.js"
import * as OperatorWebhooks from "./OperatorWebhooks.js"

/** What an `inbox.process` job names: the inbox entry to process. */
export const ProcessPayload = Schema.Struct({ inboxId: InboxEntryId.schema })
export type ProcessPayload = typeof ProcessPayload.Type

/**
 * The `inbox.process` job kind over `dispatch`: transactional, so the events' writes commit
 * with the job's completion, exactly once.
 */
export const processJob = <R>(dispatch: OperatorWebhooks.Dispatch<R>) =>
  Module.jobKind({
    kind: OperatorWebhooks.PROCESS_JOB,
    payload: ProcessPayload,
    run: (payload) => OperatorWebhooks.process(payload.inboxId, dispatch)
  })
