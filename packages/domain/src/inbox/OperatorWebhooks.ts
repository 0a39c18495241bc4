/**
 * Operator webhooks in: `receive` verifies the signature and hands the raw body to the
 * intake, which stores it in the inbox together with the job that processes it (by group
 * commit, see `Intake.ts`), and returns so the route can acknowledge fast. `process` (run by
 * the worker) parses each stored body of a batch and applies each event to the store that
 * owns the phone number or business account named in it; a payload for a number no store
 * owns, or signed with the other kind's secret, is refused and logged, never guessed.
 */
import { Effect, type Exit, Option } from "effect"
import type { Job } from "../jobs/JobQueue.js"
import { JobQueue } from "../jobs/JobQueue.js"
import { OperatorWebhookVerifier } from "../operator/OperatorWebhookVerifier.js"
import * as WebhookEvent from "../operator/WebhookEvent.js"
import type { AccountKind, Store } from "../stores/Store.js"
import { StoreRepo } from "../stores/StoreRepo.js"
import { Unauthorized } from "../shared/Errors.js"
import type { Routed } from "../shared/Module.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { Inbox, type InboxEntry, type InboxEntryId } from "./Inbox.js"
import { Intake, PROCESS_JOB, processJobOf } from "./Intake.js"

export { PROCESS_JOB }

const refused = Effect.zipRight(
  Effect.logWarning("operator webhook refused: bad or missing X-Hub-Signature-256"),
  Effect.fail(new Unauthorized({ message: "Invalid or missing X-Hub-Signature-256" }))
)

/**
 * Verifies the signature on the raw body, then stores it with its processing job (the
 * intake's `offer`: no fiber, deferred or generator of its own per POST); answers the entry's
 * id once both are committed.
 */
export const receive = (
  rawBody: Uint8Array,
  signature: string | undefined
): Effect.Effect<InboxEntryId, Unauthorized, OperatorWebhookVerifier | Intake> =>
  Effect.flatMap(OperatorWebhookVerifier, (verifier) =>
    Effect.flatMap(verifier.verifySignature(rawBody, signature), (kind) =>
      kind === undefined ? refused : Effect.flatMap(Intake, (intake) => Effect.async<InboxEntryId>((resume) => intake.offer(kind, rawBody, resume)))
    )
  )

/**
 * `receive` without an effect, for a path that runs no fiber per POST: false when the
 * signature does not verify (nothing done: `receive` then refuses it, and logs); otherwise
 * the body is offered to the intake and `done` called once, as `receive` would end.
 */
export const receiveNow =
  (verifier: OperatorWebhookVerifier["Type"], intake: Intake["Type"]) =>
  (rawBody: Uint8Array, signature: string | undefined, done: (exit: Exit.Exit<InboxEntryId>) => void): boolean => {
    const kind = verifier.matchSignature(rawBody, signature)
    if (kind === undefined) return false
    intake.offer(kind, rawBody, done)
    return true
  }

/** Applies a batch's events, each to the store (and account kind) it was routed to; built from the modules (`Modules.dispatchAll`). */
export type Dispatch<R> = (items: ReadonlyArray<Routed>) => Effect.Effect<unknown, never, R>

/**
 * Processes a batch of inbox entries, in the one transaction of its job. Handlers must be
 * idempotent on the event's natural key (a replayed webhook is a new inbox entry).
 *
 * The batch's events are applied in the order of their subject (the message, customer,
 * call, payment or template they change), events of one subject in the order received:
 * batches processed at once by several workers then take their row locks in one order and
 * do not deadlock each other (PostgreSQL). The caller webhook events the batch emits are
 * written together at its end (`Webhooks.batched`), in the same transaction. A batch that failed once is split: its retry
 * enqueues one job per entry and completes, so one bad entry never holds back the others.
 */
export const process = <R>(inboxIds: ReadonlyArray<InboxEntryId>, job: Pick<Job, "attempt">, dispatch: Dispatch<R>) =>
  Effect.gen(function* () {
    if (inboxIds.length > 1 && job.attempt > 1) {
      const queue = yield* JobQueue
      yield* Effect.logWarning("operator webhook batch failed; retrying its entries one by one", { entries: inboxIds.length })
      return yield* Effect.forEach(inboxIds, (id) => queue.enqueue(retryJobOf(id)), { discard: true })
    }
    const inbox = yield* Inbox
    const entries = yield* inbox.find(inboxIds)
    if (entries.length < inboxIds.length) yield* Effect.logWarning(`${inboxIds.length - entries.length} inbox entries not found`)
    const route = router(yield* StoreRepo)
    const work: Array<Routed & { readonly subject: string }> = []
    const outcomes = new Map<string, Array<InboxEntryId>>()
    for (const entry of entries) {
      const outcome = yield* routeEntry(entry, route, (store, kind, event) => work.push({ subject: subjectOf(event), store, kind, event }))
      const same = outcomes.get(outcome)
      if (same === undefined) outcomes.set(outcome, [entry.id])
      else same.push(entry.id)
    }
    work.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0))
    yield* Webhooks.batched(dispatch(work))
    for (const [outcome, ids] of outcomes) yield* inbox.markProcessed(ids, outcome)
  })

/** One entry of a split batch, processed alone (its own dedupe key: the batch's is the first entry's). */
const retryJobOf = (id: InboxEntryId) => ({ ...processJobOf([id]), dedupeKey: `${PROCESS_JOB}:alone:${id}` })

/** What an event changes, as a sort key: the lock order of a batch. */
const subjectOf = (event: WebhookEvent.WebhookEvent): string => {
  switch (event._tag) {
    case "MessageStatus":
      return `message:${event.callbackData ?? event.messageId}`
    case "InboundMessage":
    case "OperatorNotice":
      return `customer:${event.phoneNumberId}:${event.from ?? ""}`
    case "MarketingPreference":
      return `customer:${event.phoneNumberId}:${event.waId}`
    case "CallEvent":
      return `call:${event.callId}`
    case "PaymentStatus":
      return `payment:${event.referenceId}`
    case "FlowEvent":
      return `flow:${event.wabaId}:${event.flowId}`
    case "NumberQualityUpdate":
    case "CapabilityUpdate":
      return `account:${event.wabaId}`
    default:
      return `template:${event.wabaId}:${event.name}:${event.language}`
  }
}

type Route = Option.Option<{ readonly store: Store; readonly kind: AccountKind }>

/**
 * Finds the store that owns an event's account, each account looked up once per batch:
 * `known` answers an account already looked up without an effect, `lookup` looks one up.
 */
const router = (stores: StoreRepo["Type"]) => {
  const seen = new Map<string, Route>()
  const keyOf = (event: WebhookEvent.WebhookEvent) => (WebhookEvent.isAccountEvent(event) ? `waba:${event.wabaId}` : `phone:${event.phoneNumberId}`)
  return {
    known: (event: WebhookEvent.WebhookEvent): Route | undefined => seen.get(keyOf(event)),
    lookup: (event: WebhookEvent.WebhookEvent): Effect.Effect<Route> => {
      const found = WebhookEvent.isAccountEvent(event) ? stores.findByWabaId(event.wabaId) : stores.findByPhoneNumberId(event.phoneNumberId)
      return Effect.tap(found, (routed) => Effect.sync(() => seen.set(keyOf(event), routed)))
    }
  }
}

/** Parses one entry and routes its events (`accept` takes each one to apply); answers the outcome to record. */
const routeEntry = (
  entry: InboxEntry,
  route: ReturnType<typeof router>,
  accept: (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent) => void
) =>
  Effect.gen(function* () {
    let body: unknown
    try {
      body = JSON.parse(entry.body)
    } catch {
      return "malformed JSON"
    }
    const events = WebhookEvent.parse(body, entry.receivedAt)
    if (events === undefined) return "not an operator envelope"
    let applied = 0
    let refused = 0
    for (const event of events) {
      const routed = route.known(event) ?? (yield* route.lookup(event))
      if (Option.isNone(routed) || routed.value.kind !== entry.kind) {
        refused++
        yield* Effect.logWarning("operator webhook event refused: no store owns its account", {
          event: event._tag,
          account: WebhookEvent.isAccountEvent(event) ? event.wabaId : event.phoneNumberId,
          signedAs: entry.kind
        })
        continue
      }
      accept(routed.value.store, routed.value.kind, event)
      applied++
    }
    return `applied ${applied}, refused ${refused}`
  })
