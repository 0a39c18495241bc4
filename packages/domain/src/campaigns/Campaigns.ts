/**
 * The campaign use cases: the routes (create, read, edit, recipients, launch, pause, resume,
 * cancel, retry, recalculate), status reports for campaign sends, and what the pacing
 * worker asks of the domain (lanes, claims, outcomes, completion, the periodic sweep).
 * The worker decides when and how fast; this module decides what.
 *
 * Every campaign route looks the campaign up in the caller's scope first: another store's
 * id fails with the same `ResourceNotFound` as an id that does not exist.
 *
 * Caller events (`campaign.launched`, `.progress`, `.paused`, `.completed`, `.cancelled`)
 * are emitted in the transaction of the change they report.
 */
import { Effect, Either, Option } from "effect"
import { JobQueue, LeaseLost, type Lease } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import { CustomerRepo, OptOutRepo } from "../messaging/MessagingRepo.js"
import * as OperatorErrorCode from "../operator/ErrorCode.js"
import type { OutboundMessage } from "../operator/MessageOperator.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore, CurrentTenant, type StoreId, type Tenant as Scope } from "../shared/Tenant.js"
import * as Store from "../stores/Store.js"
import * as Template from "../templates/Template.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Campaign from "./Campaign.js"
import { CampaignRepo, type ClaimedRecipient, type NewRecipient, type SendOutcomes } from "./CampaignRepo.js"
import * as Recipient from "./Recipient.js"

/** The job kind of a sender number's lane; payload `{ phoneNumberId }`. */
export const LANE_JOB = "campaign.lane"

/** The dedupe key of a lane generation: one job per number and generation, ever. */
export const laneDedupeKey = (phoneNumberId: string, generation: number): string => `${LANE_JOB}:${phoneNumberId}:${generation}`

/** Default time after which a recipient left `sending` without any status report is sent again. */
export const DEFAULT_RECONCILE_AFTER_MS = 120_000

const scopeOf = Effect.map(CurrentTenant, (t): Scope => ({ storeId: t.storeId, mode: t.mode }))

const notFound = (id: string) => new Errors.ResourceNotFound({ resource: "campaign", id })

const orFail = <A, E>(either: Either.Either<A, E>): Effect.Effect<A, E> =>
  Either.match(either, { onLeft: Effect.fail, onRight: Effect.succeed })

/** The campaign in the caller's scope, or ResourceNotFound (the same for another store's id). */
const load = (id: string) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const found = yield* (yield* CampaignRepo).findById(scope, id)
    if (Option.isNone(found)) return yield* Effect.fail(notFound(id))
    return found.value
  })

/** After a compare-and-set lost to a concurrent change: the refusal naming the status now. */
const refusedNow = (id: string, operation: Campaign.Operation, context: Campaign.TransitionContext = {}) =>
  Effect.gen(function* () {
    const now = yield* (yield* CampaignRepo).get(id)
    if (Option.isNone(now)) return yield* Effect.fail(notFound(id))
    const result = Campaign.transition(now.value.status, operation, context)
    return yield* Effect.fail(
      Either.isLeft(result) ? result.left : new Errors.InvalidState({ resource: "campaign", status: now.value.status, operation })
    )
  })

const scopeOfCampaign = (c: Pick<Campaign.Campaign, "storeId" | "mode">): Scope => ({ storeId: c.storeId as StoreId, mode: c.mode })

const emit = (c: Campaign.Campaign, type: "campaign.launched" | "campaign.progress" | "campaign.paused" | "campaign.completed" | "campaign.cancelled", extra: Record<string, unknown> = {}) =>
  Webhooks.emit(scopeOfCampaign(c), type, { ...Campaign.toResource(c), ...extra })

const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(Transactor, (tx) => tx.withTransaction(effect))

const parseDate = (s: string | null | undefined): Date | null | undefined => (s === undefined ? undefined : s === null ? null : new Date(s))

const checkTemplateInput = (template: { readonly name: string; readonly language: string }) => {
  const issues: Array<Errors.FieldIssue> = []
  if (!/^[a-z0-9_]+$/.test(template.name)) issues.push({ path: "template.name", message: "must contain only lower-case letters, digits and underscores" })
  if (!/^[a-z]{2,3}(_[A-Z]{2})?$/.test(template.language)) issues.push({ path: "template.language", message: "must be a language code such as en or en_US" })
  return issues.length === 0 ? Effect.void : Effect.fail(Errors.ValidationFailed.all(issues))
}

// ---------------------------------------------------------------------------------------
// routes

/** `POST /chat/campaigns`: a draft. The template is checked at launch (it may still be in review now). */
export const create = (input: Campaign.CreateCampaign) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    yield* checkTemplateInput(input.template)
    const now = new Date()
    const campaign: Campaign.Campaign = {
      id: Id.make("cmp"),
      storeId: scope.storeId,
      mode: scope.mode,
      name: input.name,
      templateName: input.template.name,
      templateLanguage: input.template.language,
      parameters: input.template.parameters,
      templateCategory: null,
      templateComponents: null,
      messagesPerSecond: input.messages_per_second ?? null,
      status: "draft",
      scheduledAt: parseDate(input.scheduled_at) ?? null,
      phoneNumberId: null,
      pausedReason: null,
      counters: Campaign.zeroCounters,
      launchedAt: null,
      completedAt: null,
      cancelledAt: null,
      createdAt: now,
      updatedAt: now
    }
    yield* (yield* CampaignRepo).insert(campaign)
    return Campaign.toResource(campaign)
  })

export const list = (query: { readonly status?: Campaign.Status | undefined; readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const after = yield* Pagination.afterCursor(query.cursor)
    const slice = yield* (yield* CampaignRepo).list(scope, { status: query.status, limit: query.limit, after })
    return Pagination.toPage(slice, (c) => c.id, Campaign.toResource)
  })

export const get = (id: string) => Effect.map(load(id), Campaign.toResource)

/** `PATCH`: drafts only. */
export const update = (id: string, patch: Campaign.UpdateCampaign) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const current = yield* load(id)
    yield* orFail(Campaign.transition(current.status, "update"))
    if (patch.template !== undefined) yield* checkTemplateInput(patch.template)
    const updated = yield* (yield* CampaignRepo).updateDraft(
      scope,
      id,
      {
        name: patch.name,
        templateName: patch.template?.name,
        templateLanguage: patch.template?.language,
        parameters: patch.template?.parameters,
        scheduledAt: parseDate(patch.scheduled_at),
        messagesPerSecond: patch.messages_per_second
      },
      new Date()
    )
    if (Option.isNone(updated)) return yield* refusedNow(id, "update")
    return Campaign.toResource(updated.value)
  })

/** `DELETE`: drafts only, with their recipients. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const current = yield* load(id)
    yield* orFail(Campaign.transition(current.status, "delete"))
    if (!(yield* (yield* CampaignRepo).deleteDraft(scope, id))) return yield* refusedNow(id, "delete")
    return { id, deleted: true as const }
  })

const emptyReasons = (): Record<Recipient.SkipReason, number> => ({ opted_out: 0, duplicate: 0, invalid_number: 0, unknown_customer: 0 })

const CROCKFORD = Array.from("0123456789ABCDEFGHJKMNPQRSTVWXYZ", (c) => c.charCodeAt(0))

/**
 * Ids for a batch of recipients, shaped as `Id.make` shapes them (the time of now, then 16
 * characters: a random 80-bit start incremented by one per id), so they are unique, sort in
 * the order given (an index on them grows at its end) and cost a fraction of as many
 * `Id.make` calls.
 */
export const recipientIds = (n: number): Array<string> => {
  const head = Id.make("rcp").slice(0, 14)
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  const digits = Array.from(bytes, (b, i) => (i < 2 ? b & 15 : b & 31)) // headroom: never wraps
  const codes = new Array<number>(16)
  const ids = new Array<string>(n)
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 16; k++) codes[k] = CROCKFORD[digits[k]]
    ids[i] = head + String.fromCharCode(...codes)
    for (let k = 15; k >= 0; k--) {
      if (digits[k] < 31) {
        digits[k]++
        break
      }
      digits[k] = 0
    }
  }
  return ids
}

/**
 * `POST /chat/campaigns/{id}/recipients` (draft or scheduled). Every entry becomes a row:
 * pending, or skipped with its reason (invalid number, unknown customer, duplicate within
 * the request or of an existing recipient, opted out). One customer lookup and one opt-out
 * lookup per request, then multi-row inserts.
 */
export const addRecipients = (id: string, input: Recipient.AddRecipients) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const campaign = yield* load(id)
    yield* orFail(Campaign.transition(campaign.status, "add recipients to"))
    const count = input.phones.length + input.customerIds.length
    if (count === 0) return yield* Errors.ValidationFailed.of("phones", "give at least one entry in phones or customerIds")
    if (count > Recipient.MAX_PER_REQUEST) {
      return yield* Errors.ValidationFailed.of("phones", `at most ${Recipient.MAX_PER_REQUEST} entries (phones and customerIds together) per request, got ${count}`)
    }
    const own = input.parameters ?? {}
    const ownKeys = Object.keys(own)
    if (ownKeys.length > 0) {
      const entries = new Set([...input.phones, ...input.customerIds])
      const issues: Array<Errors.FieldIssue> = []
      for (const key of ownKeys) {
        if (!entries.has(key)) issues.push({ path: `parameters.${key}`, message: "matches no entry of phones or customerIds" })
        else if (own[key].length !== campaign.parameters.length) {
          issues.push({ path: `parameters.${key}`, message: `must hold ${campaign.parameters.length} value(s), as many as the campaign's template parameters` })
        }
        if (issues.length >= 20) break
      }
      if (issues.length > 0) return yield* Effect.fail(Errors.ValidationFailed.all(issues))
    }

    const customers = new Map<string, string>()
    if (input.customerIds.length > 0) {
      const found = yield* (yield* CustomerRepo).findManyByIds(scope, [...new Set(input.customerIds)])
      for (const c of found) customers.set(c.id, c.phone)
    }

    const rows: Array<NewRecipient> = []
    const seen = new Set<string>()
    const candidates: Array<string> = []
    const ids = recipientIds(count)
    const hasOwn = ownKeys.length > 0
    const entry = (phone: string | null, raw: string, customerId: string | null, invalid: Recipient.SkipReason): void => {
      const id = ids[rows.length]
      if (phone === null) {
        rows.push({ id, phone: null, input: raw, customerId, parameters: null, status: "skipped", skipReason: invalid })
      } else if (seen.has(phone)) {
        rows.push({ id, phone: null, input: raw, customerId, parameters: null, status: "skipped", skipReason: "duplicate" })
      } else {
        seen.add(phone)
        candidates.push(phone)
        const params = hasOwn && Object.prototype.hasOwnProperty.call(own, raw) ? own[raw] : null
        rows.push({ id, phone, input: raw, customerId, parameters: params, status: "pending", skipReason: null })
      }
    }
    for (const raw of input.phones) entry(Phone.normalize(raw) ?? null, raw, null, "invalid_number")
    for (const customerId of input.customerIds) entry(customers.get(customerId) ?? null, customerId, customerId, "unknown_customer")

    const optedOut = candidates.length > 0 ? yield* (yield* OptOutRepo).filterOptedOut(scope, candidates) : new Set<string>()
    const final = optedOut.size === 0
      ? rows
      : rows.map((r): NewRecipient => (r.status === "pending" && optedOut.has(r.phone!) ? { ...r, status: "skipped", skipReason: "opted_out", parameters: null } : r))

    const added = yield* (yield* CampaignRepo).addRecipients(id, Campaign.sources("add recipients to"), final, new Date())
    if (Option.isNone(added)) return yield* refusedNow(id, "add recipients to")
    const reasons = { ...emptyReasons(), ...added.value.skipped }
    return {
      added: added.value.added,
      skipped: reasons.opted_out + reasons.duplicate + reasons.invalid_number + reasons.unknown_customer,
      total: added.value.total,
      skipped_by_reason: reasons
    } satisfies Recipient.AddRecipientsResult
  })

/** Recipient cursors are the insertion sequence number of the last row. */
const encodeSeq = (seq: number): string => btoa(`seq:${seq}`).replace(/=+$/, "")
const decodeSeq = (cursor: string): number | undefined => {
  try {
    const m = /^seq:(\d{1,15})$/.exec(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")))
    return m ? Number(m[1]) : undefined
  } catch {
    return undefined
  }
}

/** `GET /chat/campaigns/{id}/recipients`: in insertion order, optionally one status (`?status=failed` with reasons). */
export const listRecipients = (id: string, query: { readonly status?: Recipient.Status | undefined; readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    yield* load(id)
    let afterSeq: number | undefined
    if (query.cursor !== undefined) {
      afterSeq = decodeSeq(query.cursor)
      if (afterSeq === undefined) return yield* Errors.ValidationFailed.of("cursor", "is not a cursor this API issued")
    }
    const slice = yield* (yield* CampaignRepo).listRecipients(id, { status: query.status, limit: query.limit, afterSeq })
    return {
      data: slice.items.map(Recipient.toResource),
      next_cursor: slice.hasMore && slice.items.length > 0 ? encodeSeq(slice.items[slice.items.length - 1].seq) : null
    }
  })

/**
 * Launch: checks the template (exists, APPROVED, as many parameters as the campaign
 * gives) and that some recipient is pending; freezes the template's category and
 * components and the sender number on the campaign; skips the recipients now on the
 * opt-out list (one statement driven by that list); becomes `active` (or `scheduled` when
 * `scheduled_at` lies ahead) and queues the sender number's lane. Never touches the other
 * recipient rows and never waits for sending.
 */
export const launch = (id: string) =>
  Effect.gen(function* () {
    const campaign = yield* load(id)
    const now = new Date()
    const scheduledInFuture = campaign.scheduledAt !== null && campaign.scheduledAt.getTime() > now.getTime()
    const to = yield* orFail(Campaign.transition(campaign.status, "launch", { scheduledInFuture }))
    const template = yield* (yield* TemplateRepo).find(scopeOfCampaign(campaign), campaign.templateName, campaign.templateLanguage)
    if (Option.isNone(template)) {
      return yield* Errors.ValidationFailed.of("template", `the store has no template '${campaign.templateName}' in ${campaign.templateLanguage}`)
    }
    if (template.value.status !== "APPROVED") {
      return yield* new Errors.InvalidState({ resource: "template", status: template.value.status, operation: "launch a campaign with" })
    }
    const expected = Template.bodyParameterCount(template.value.components)
    if (campaign.parameters.length !== expected) {
      return yield* Errors.ValidationFailed.of("template.parameters", `the template takes ${expected} parameter(s), the campaign gives ${campaign.parameters.length}`)
    }
    const repo = yield* CampaignRepo
    if (!(yield* repo.hasPending(id))) return yield* Errors.ValidationFailed.of("recipients", "the campaign has no recipient to send to")
    const account = Store.accountFor((yield* CurrentStore).store, campaign.mode)
    return yield* inTransaction(
      Effect.gen(function* () {
        const moved = yield* repo.transition(id, {
          from: ["draft"],
          to,
          now,
          set: {
            templateCategory: template.value.category,
            templateComponents: template.value.components,
            phoneNumberId: account.phoneNumberId,
            launchedAt: now,
            pausedReason: null
          }
        })
        if (Option.isNone(moved)) return yield* refusedNow(id, "launch", { scheduledInFuture })
        yield* repo.skipOptedOut(moved.value, now)
        if (to === "active") yield* ensureLane(account.phoneNumberId)
        const launched = Option.getOrElse(yield* repo.get(id), () => moved.value)
        yield* emit(launched, "campaign.launched")
        return Campaign.toResource(launched)
      })
    )
  })

/** Pause: stops new sends at once (the worker checks before each send); progress is kept. */
export const pause = (id: string) =>
  Effect.gen(function* () {
    const campaign = yield* load(id)
    yield* orFail(Campaign.transition(campaign.status, "pause"))
    return yield* inTransaction(
      Effect.gen(function* () {
        const paused = yield* (yield* CampaignRepo).transition(id, { from: ["active"], to: "paused", now: new Date(), set: { pausedReason: "paused by the caller" } })
        if (Option.isNone(paused)) return yield* refusedNow(id, "pause")
        yield* emit(paused.value, "campaign.paused", { reason: "paused by the caller" })
        return Campaign.toResource(paused.value)
      })
    )
  })

/** Resume: continues where the campaign stopped; recipients already processed are not sent to again. */
export const resume = (id: string) =>
  Effect.gen(function* () {
    const campaign = yield* load(id)
    yield* orFail(Campaign.transition(campaign.status, "resume"))
    return yield* inTransaction(
      Effect.gen(function* () {
        const resumed = yield* (yield* CampaignRepo).transition(id, { from: ["paused"], to: "active", now: new Date(), set: { pausedReason: null } })
        if (Option.isNone(resumed)) return yield* refusedNow(id, "resume")
        if (resumed.value.phoneNumberId !== null) yield* ensureLane(resumed.value.phoneNumberId)
        return Campaign.toResource(resumed.value)
      })
    )
  })

/** Rows the cancel route turns from pending to cancelled itself; the sweep does the rest in batches. */
const CANCEL_BATCH = 10_000

/** Cancel: sends nothing more. Pending recipients become cancelled (the first batch now, the rest in the background). */
export const cancel = (id: string) =>
  Effect.gen(function* () {
    const campaign = yield* load(id)
    yield* orFail(Campaign.transition(campaign.status, "cancel"))
    const repo = yield* CampaignRepo
    return yield* inTransaction(
      Effect.gen(function* () {
        const now = new Date()
        const cancelled = yield* repo.transition(id, { from: Campaign.sources("cancel"), to: "cancelled", now, set: { cancelledAt: now } })
        if (Option.isNone(cancelled)) return yield* refusedNow(id, "cancel")
        yield* repo.cancelPending(id, { limit: CANCEL_BATCH, staleSendingBefore: 0, now })
        const after = Option.getOrElse(yield* repo.get(id), () => cancelled.value)
        yield* emit(after, "campaign.cancelled")
        return Campaign.toResource(after)
      })
    )
  })

/** Retry: failed recipients whose failure can be retried go back to pending, and the campaign to active. */
export const retry = (id: string) =>
  Effect.gen(function* () {
    const campaign = yield* load(id)
    yield* orFail(Campaign.transition(campaign.status, "retry", { retryableFailures: true }))
    const repo = yield* CampaignRepo
    return yield* inTransaction(
      Effect.gen(function* () {
        const now = new Date()
        const requeued = yield* repo.retryFailed(id, now)
        if (requeued === 0) return yield* refusedNow(id, "retry", { retryableFailures: false })
        const active = yield* repo.transition(id, { from: ["completed", "paused"], to: "active", now, set: { pausedReason: null, completedAt: null } })
        if (Option.isNone(active)) return yield* refusedNow(id, "retry", { retryableFailures: true })
        if (active.value.phoneNumberId !== null) yield* ensureLane(active.value.phoneNumberId)
        return Campaign.toResource(active.value)
      })
    )
  })

/** Recounts the counters from the recipient rows (they must equal the incremental ones). */
export const recalculate = (id: string) =>
  Effect.gen(function* () {
    yield* load(id)
    const recounted = yield* (yield* CampaignRepo).recount(id)
    if (Option.isNone(recounted)) return yield* Effect.fail(notFound(id))
    return Campaign.toResource(recounted.value)
  })

// ---------------------------------------------------------------------------------------
// status reports

const optOut = (scope: Scope, phone: string) =>
  Effect.gen(function* () {
    if (yield* (yield* OptOutRepo).add(scope, phone, "operator_error")) {
      yield* Webhooks.emit(scope, "customer.opted_out", { phone, source: "operator_error" })
    }
  })

/**
 * A status report for a campaign send, matched by our callback data (the recipient id,
 * `rcp_…`) within the store that owns the sending number. Moves the recipient forward and
 * adds exactly what changed to the campaign's counters, in one transaction with a
 * compare-and-set: the same report delivered 1,000 times changes state once. A failure
 * with 131050 also puts the phone on the opt-out list. Answers whether it matched.
 */
export const onRecipientStatus = (store: Store.Store, event: WebhookEvent.MessageStatus) =>
  Effect.gen(function* () {
    const id = event.callbackData
    if (id === null || !id.startsWith("rcp_")) return false
    const repo = yield* CampaignRepo
    let found = yield* repo.findRecipient(store.id, id)
    if (Option.isNone(found)) return false
    const report: Recipient.Report = { status: event.status, at: event.timestamp.getTime(), error: event.error }
    for (let round = 0; round < 20 && Option.isSome(found); round++) {
      const ref = found.value
      const next = Recipient.advance(ref.progress, report)
      if (next === undefined) return true
      const changed = yield* repo.advanceRecipient(ref, next, event.messageId, Recipient.counterDelta(ref.progress, next), Date.now())
      if (changed) {
        if (next.status === "failed" && next.failure?.code === OperatorErrorCode.USER_STOPPED_MARKETING && ref.phone !== null) {
          yield* optOut({ storeId: ref.storeId as StoreId, mode: ref.mode }, ref.phone)
        }
        return true
      }
      found = yield* repo.findRecipient(store.id, id)
    }
    return true
  })

// ---------------------------------------------------------------------------------------
// the lane (what the pacing worker asks of the domain)

/**
 * Makes sure the sender number has a live lane job, queueing a new generation when its
 * last one finished. Runs under the lane's lock (joining the caller's transaction), so it
 * cannot interleave with a lane deciding to stop (`finishLaneIfIdle`).
 */
export const ensureLane = (phoneNumberId: string) =>
  inTransaction(
    Effect.gen(function* () {
      const repo = yield* CampaignRepo
      const now = Date.now()
      const lane = yield* repo.lockLane(phoneNumberId, now)
      if (lane.alive) return false
      const generation = lane.generation + 1
      const jobId = yield* (yield* JobQueue).enqueue({ kind: LANE_JOB, payload: { phoneNumberId }, dedupeKey: laneDedupeKey(phoneNumberId, generation) })
      yield* repo.setLane(phoneNumberId, generation, jobId, now)
      return true
    })
  )

/**
 * A lane with nothing to do ends its job, under the lane's lock: when no campaign of the
 * number is active it completes the job (fenced by the lease) and answers true; when one is
 * (a launch won the race) it answers false and the lane carries on.
 */
export const finishLaneIfIdle = (phoneNumberId: string, lease: Lease) =>
  inTransaction(
    Effect.gen(function* () {
      const repo = yield* CampaignRepo
      yield* repo.lockLane(phoneNumberId, Date.now())
      if ((yield* repo.activeOfLane(phoneNumberId)).length > 0) return false
      if (!(yield* (yield* JobQueue).complete(lease))) return yield* Effect.fail(new LeaseLost({ jobId: lease.id, attempt: lease.attempt }))
      return true
    })
  )

/** The active campaigns of a sender number. */
export const activeOfLane = (phoneNumberId: string) => Effect.flatMap(CampaignRepo, (repo) => repo.activeOfLane(phoneNumberId))

/**
 * Claims the next recipients of a campaign for the lane, after proving the lane still holds
 * its job's lease (a heartbeat in the same transaction): a stalled worker claims nothing.
 */
export const claim = (campaign: Campaign.Campaign, lease: Lease, leaseMs: number, laneAttempt: string, limit: number) =>
  inTransaction(
    Effect.gen(function* () {
      const claimed = yield* (yield* CampaignRepo).claim(campaign, { laneAttempt, limit, now: Date.now() })
      // last, so the job's row is locked only for the commit (the lane's own heartbeat never waits long)
      if (!(yield* (yield* JobQueue).heartbeat(lease, leaseMs))) return yield* Effect.fail(new LeaseLost({ jobId: lease.id, attempt: lease.attempt }))
      return claimed
    })
  )

/** The message a recipient receives: the campaign's frozen template with its own or the campaign's parameters; callback data = recipient id. */
export const outboundFor = (campaign: Campaign.Campaign, recipient: ClaimedRecipient): OutboundMessage => ({
  type: "template",
  to: recipient.phone,
  template: { name: campaign.templateName, language: campaign.templateLanguage, parameters: recipient.parameters ?? campaign.parameters },
  callbackData: recipient.id
})

/** What one send attempt came to. */
export type SendResult =
  | { readonly _tag: "Accepted"; readonly operatorMessageId: string }
  /**
   * Not taken (a rate limit): back to pending. `scope` says what the limit is on
   * (`OperatorErrorCode.rateLimitScope`): the sender number's throughput (a short wait; the
   * pacer keeps the rate), one user (the pair rate: only that recipient waits), or the app or
   * business account (or an unnamed 429: the whole lane waits as long as the operator says).
   */
  | { readonly _tag: "Throttled"; readonly scope: "number" | "user" | "account"; readonly retryAfterMs: number }
  /** Unknown whether the operator took it (5xx, network, timeout): left `sending` for reconciliation. */
  | { readonly _tag: "Unknown"; readonly reason: string }
  | { readonly _tag: "Refused"; readonly code: number; readonly reason: string; readonly refusal: Recipient.RefusalClass }

const throttled = (code: number | undefined, retryAfterMs: number): SendResult => ({
  _tag: "Throttled",
  scope: OperatorErrorCode.rateLimitScope(code),
  retryAfterMs
})

export const sendResultOf = (error: Errors.OperatorRejected | Errors.OperatorUnavailable): SendResult => {
  if (error._tag === "OperatorUnavailable") {
    if (error.kind !== "rate_limited") return { _tag: "Unknown", reason: error.reason }
    const retryAfterSeconds = error.retryAfterSeconds ?? OperatorErrorCode.defaultRetryAfterSeconds(error.code)
    return throttled(error.code, Math.max(100, retryAfterSeconds * 1000))
  }
  const refusal = Recipient.classifyRefusal(error.code)
  return refusal === "throttled" ? throttled(error.code, 1000) : { _tag: "Refused", code: error.code, reason: error.reason, refusal }
}

/**
 * Records a batch of outcomes (fenced by the lane attempt), adds the phones that answered
 * 131050 to the opt-out list, and, when `progress` is true, folds the counters and emits
 * `campaign.progress`; one transaction.
 */
export const recordOutcomes = (
  campaign: Campaign.Campaign,
  laneAttempt: string,
  outcomes: SendOutcomes,
  optedOutPhones: ReadonlyArray<string>,
  progress: boolean
) =>
  inTransaction(
    Effect.gen(function* () {
      const repo = yield* CampaignRepo
      const recorded = yield* repo.recordOutcomes(campaign.id, laneAttempt, outcomes, Date.now())
      for (const phone of optedOutPhones) yield* optOut(scopeOfCampaign(campaign), phone)
      if (progress) {
        yield* repo.compactCounters(campaign.id)
        const now = yield* repo.get(campaign.id)
        if (Option.isSome(now) && now.value.status === "active") yield* emit(now.value, "campaign.progress")
      }
      return recorded
    })
  )

/** The worker pauses a campaign by itself (template paused or disabled, too many failures), with the reason. */
export const autoPause = (campaignId: string, reason: string) =>
  inTransaction(
    Effect.gen(function* () {
      const paused = yield* (yield* CampaignRepo).transition(campaignId, { from: ["active"], to: "paused", now: new Date(), set: { pausedReason: reason } })
      if (Option.isSome(paused)) yield* emit(paused.value, "campaign.paused", { reason })
      return Option.isSome(paused)
    })
  )

/**
 * Rows left `sending` longer than `reconcileAfterMs` (no status report came) go back to
 * pending, to be sent again; postponed while operator webhooks received more than a second
 * ago still wait to be processed (a backlog must not look like silence).
 */
export const reconcile = (campaignId: string, reconcileAfterMs: number) =>
  Effect.flatMap(CampaignRepo, (repo) => {
    const now = Date.now()
    return repo.reconcile(campaignId, { sendingBefore: now - reconcileAfterMs, webhooksBefore: now - 1000, to: "pending", now })
  })

/** active -> completed once nothing is pending or sending, with `campaign.completed`. */
export const completeIfDone = (campaignId: string) =>
  inTransaction(
    Effect.gen(function* () {
      const repo = yield* CampaignRepo
      const completed = yield* repo.completeIfDone(campaignId, new Date())
      if (Option.isNone(completed)) return false
      yield* repo.compactCounters(campaignId)
      yield* emit(Option.getOrElse(yield* repo.get(campaignId), () => completed.value), "campaign.completed")
      return true
    })
  )

/** Whether the campaign still has rows in `sending` (awaiting an outcome or reconciliation). */
export const hasSending = (campaignId: string) => Effect.flatMap(CampaignRepo, (repo) => repo.hasSending(campaignId))

export interface SweepOptions {
  readonly reconcileAfterMs: number
  /** Cancelled recipients per sweep at most (bounded work). */
  readonly cancelBudget?: number
}

/**
 * The periodic safety net, safe to run from several workers at once (every step is a
 * compare-and-set or runs under a lane's lock): activates scheduled campaigns whose time
 * came, makes sure every sender number with an active campaign has a live lane, cancels
 * the remaining recipients of cancelled campaigns in bounded batches, and folds counters.
 */
export const sweep = (options: SweepOptions) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo
    const now = new Date()
    let activated = 0
    for (const due of yield* repo.dueScheduled(now, 100)) {
      const ok = yield* inTransaction(
        Effect.gen(function* () {
          const active = yield* repo.transition(due.id, { from: ["scheduled"], to: "active", now })
          if (Option.isNone(active)) return false
          if (active.value.phoneNumberId !== null) yield* ensureLane(active.value.phoneNumberId)
          return true
        })
      )
      if (ok) activated++
    }
    let lanes = 0
    for (const phoneNumberId of yield* repo.activeLanes()) if (yield* ensureLane(phoneNumberId)) lanes++
    let cancelled = 0
    const budget = options.cancelBudget ?? 100_000
    for (const campaignId of yield* repo.cancelledWithPending(20)) {
      while (cancelled < budget) {
        const n = yield* inTransaction(
          repo.cancelPending(campaignId, { limit: CANCEL_BATCH, staleSendingBefore: Date.now() - options.reconcileAfterMs, now: new Date() })
        )
        cancelled += n
        if (n < CANCEL_BATCH) break
      }
    }
    for (const campaignId of yield* repo.withUncompactedCounters(100)) yield* inTransaction(repo.compactCounters(campaignId))
    return { activated, lanes, cancelled }
  })
