/**
 * Operator webhooks in: `receive` stores the verified raw body in the inbox together with
 * the job that processes it, in one transaction, and returns so the route can acknowledge
 * fast. `process` (run by the worker) parses the body and applies each event to the store
 * that owns the phone number or business account named in it; a payload for a number no
 * store owns, or signed with the other kind's secret, is refused and logged, never guessed.
 */
import { Effect, Option } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import { OperatorWebhookVerifier } from "../operator/OperatorWebhookVerifier.js"
import * as WebhookEvent from "../operator/WebhookEvent.js"
import type { AccountKind, Store } from "../stores/Store.js"
import { StoreRepo } from "../stores/StoreRepo.js"
import { Unauthorized } from "../shared/Errors.js"
import * as Time from "../shared/Time.js"
import { Inbox, InboxEntryId } from "./Inbox.js"

/** The job kind that processes one inbox entry (declared with its payload in `module.ts`). */
export const PROCESS_JOB = "inbox.process"

/** Verifies the signature on the raw body, then stores it with its processing job. */
export const receive = (rawBody: Uint8Array, signature: string | undefined) =>
  Effect.gen(function* () {
    const kind = yield* (yield* OperatorWebhookVerifier).verifySignature(rawBody, signature)
    if (kind === undefined) {
      yield* Effect.logWarning("operator webhook refused: bad or missing X-Hub-Signature-256")
      return yield* new Unauthorized({ message: "Invalid or missing X-Hub-Signature-256" })
    }
    const id = yield* InboxEntryId.generate
    const receivedAt = yield* Time.now
    const body = new TextDecoder().decode(rawBody)
    const inbox = yield* Inbox
    const queue = yield* JobQueue
    yield* (yield* Transactor).withTransaction(
      Effect.zipRight(
        inbox.insert({ id, kind, body, receivedAt }),
        queue.enqueue({ kind: PROCESS_JOB, payload: { inboxId: id }, dedupeKey: `${PROCESS_JOB}:${id}` })
      )
    )
    return id
  })

/** Applies one event to the store (and account kind) it was routed to; built from the modules (`Modules.dispatch`). */
export type Dispatch<R> = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent) => Effect.Effect<unknown, never, R>

/**
 * Processes one inbox entry. Handlers must be idempotent on the event's natural key (the
 * worker runs this in one transaction with the job's completion, but a replayed webhook is
 * a new inbox entry).
 */
export const process = <R>(inboxId: InboxEntryId, dispatch: Dispatch<R>) =>
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const entry = yield* inbox.find(inboxId)
    if (Option.isNone(entry)) return yield* Effect.logWarning(`inbox entry ${inboxId} not found`)
    let body: unknown
    try {
      body = JSON.parse(entry.value.body)
    } catch {
      return yield* inbox.markProcessed(inboxId, "malformed JSON")
    }
    const events = WebhookEvent.parse(body, entry.value.receivedAt)
    if (events === undefined) return yield* inbox.markProcessed(inboxId, "not an operator envelope")
    const stores = yield* StoreRepo
    let applied = 0
    let refused = 0
    for (const event of events) {
      const byAccount = WebhookEvent.isAccountEvent(event)
      const routed = byAccount ? yield* stores.findByWabaId(event.wabaId) : yield* stores.findByPhoneNumberId(event.phoneNumberId)
      if (Option.isNone(routed) || routed.value.kind !== entry.value.kind) {
        refused++
        yield* Effect.logWarning("operator webhook event refused: no store owns its account", {
          event: event._tag,
          account: byAccount ? event.wabaId : event.phoneNumberId,
          signedAs: entry.value.kind
        })
        continue
      }
      yield* dispatch(routed.value.store, routed.value.kind, event)
      applied++
    }
    yield* inbox.markProcessed(inboxId, `applied ${applied}, refused ${refused}`)
  })
