/**
 * The campaign routes: create, read, edit and delete drafts, and the controls launch, pause,
 * resume, cancel, retry, recalculate (the recipients routes are in `Recipients.ts`). They
 * reach storage through `CampaignRepo` only, in the caller's tenant (`CurrentStore`): a path
 * id that is malformed, unknown or another tenant's fails with the same `ResourceNotFound`
 * (a malformed one without a query). Each answers the campaign entity; the HTTP layer
 * encodes it as `CampaignResource`.
 *
 * Caller events (`campaign.launched`, `.paused`, `.cancelled`) are emitted in the
 * transaction of the change they report.
 */
import { Effect, Either, Option } from "effect"
import type { JobQueue } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import * as Control from "../shared/Control.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type StoreId, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import * as RichSend from "../templates/RichSend.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as Campaign from "./Campaign.js"
import { CampaignId } from "./Campaign.js"
import { CampaignRepo, type TransitionSet } from "./CampaignRepo.js"
import * as Events from "./Events.js"
import { CANCEL_BATCH, ensureLane } from "./Lanes.js"
import { refreshTier } from "./Limits.js"

const orFail = <A, E>(either: Either.Either<A, E>): Effect.Effect<A, E> => Either.match(either, { onLeft: Effect.fail, onRight: Effect.succeed })

const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(Transactor, (tx) => tx.withTransaction(effect))

/** The tenant's campaign a path id names, or ResourceNotFound (the same for a malformed, unknown or another tenant's id). */
export const find = (tenant: Tenant, raw: string) =>
  Effect.flatMap(CampaignRepo, (repo) => Id.lookup(CampaignId, "campaign", raw, (id) => repo.findById(tenant, id)))

/** After a compare-and-set lost to a concurrent change: the refusal naming the status now. */
export const refusedNow = (tenant: Tenant, id: CampaignId, operation: Campaign.Operation, context: Campaign.TransitionContext = {}) =>
  Effect.gen(function* () {
    const now = yield* find(tenant, id)
    const result = Campaign.transition(now.status, operation, context)
    return yield* Effect.fail(Either.isLeft(result) ? result.left : new Errors.InvalidState({ resource: "campaign", status: now.status, operation }))
  })

const checkTemplateInput = (template: { readonly name: string; readonly language: string }) => {
  const issues: Array<Errors.FieldIssue> = []
  if (!/^[a-z0-9_]+$/.test(template.name))
    issues.push({ path: "template.name", message: "must contain only lower-case letters, digits and underscores" })
  if (!/^[a-z]{2,3}(_[A-Z]{2})?$/.test(template.language))
    issues.push({ path: "template.language", message: "must be a language code such as en or en_US" })
  return issues.length === 0 ? Effect.void : Effect.fail(Errors.ValidationFailed.all(issues))
}

/** The campaign's header with the operator's media id of our media (`template.header.media_id`). */
const frozenHeader = (storeId: StoreId, account: Store.OperatorAccount, header: RichSend.StoredHeader | null) =>
  Effect.gen(function* () {
    if (header === null || header.type === "location" || header.media_id === undefined) return header
    const { header: resolved } = yield* RichSend.resolve(storeId, account, { header: RichSend.callerHeader(header) }, "template")
    return resolved?.type === header.type && resolved.id !== undefined
      ? { ...header, operator_media_id: resolved.id, ...(resolved.filename === undefined ? {} : { filename: resolved.filename }) }
      : header
  })

/** Whether a launch issue at `path` is a part a recipient's rich parameters may give (the campaign giving none). */
const recipientsMayGive = (campaign: Campaign.Campaign, path: string): boolean =>
  (path.startsWith("template.header") && !path.startsWith("template.header_parameters") && campaign.templateHeader === null) ||
  path.startsWith("template.cards") ||
  path === "template.limited_time_offer" ||
  path === "template.buttons"

/** The first pending recipient without rich parameters of its own (a scan, made only for a campaign that leaves rich parts to its recipients). */
const firstPendingWithoutOwn = (tenant: Tenant, id: CampaignId) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo
    let afterSeq: number | undefined
    for (;;) {
      const slice = yield* repo.listRecipients(tenant, id, { status: "pending", limit: 1000, afterSeq })
      const plain = slice.items.find((r) => r.parameters === null || TemplateSend.richOf(r.parameters) === undefined)
      if (plain !== undefined) return plain.id
      if (!slice.hasMore || slice.items.length === 0) return undefined
      afterSeq = slice.items[slice.items.length - 1].seq
    }
  })

/** `POST /chat/campaigns`: a draft. The template is checked at launch (it may still be in review now). */
export const create = (input: Campaign.CreateCampaign) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    yield* checkTemplateInput(input.template)
    const now = yield* Time.now
    const campaign: Campaign.Campaign = {
      id: yield* CampaignId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      name: input.name,
      templateName: input.template.name,
      templateLanguage: input.template.language,
      parameters: input.template.parameters,
      templateHeader: input.template.header ?? null,
      headerParameters: input.template.header_parameters,
      buttonParameters: input.template.buttons,
      templateCategory: null,
      templateComponents: null,
      messagesPerSecond: input.messages_per_second ?? null,
      status: "draft",
      scheduledAt: input.scheduled_at ?? null,
      phoneNumberId: null,
      pausedReason: null,
      limitedUntil: null,
      sendWindow: input.send_window ?? null,
      ...Campaign.zeroCounters,
      launchedAt: null,
      completedAt: null,
      cancelledAt: null,
      createdAt: now,
      updatedAt: now
    }
    yield* (yield* CampaignRepo).insert(tenant, campaign)
    return campaign
  })

/** `GET /chat/campaigns`: newest first, optionally one status. */
export const list = (query: { readonly status?: Campaign.Status | undefined; readonly limit: number; readonly cursor?: CampaignId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* CampaignRepo).list(tenant, { status: query.status, limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, CampaignId.schema, (c) => c.id)
  })

export const get = (raw: string) => Effect.flatMap(CurrentStore, ({ tenant }) => find(tenant, raw))

/** `PATCH`: drafts only. */
export const update = (raw: string, patch: Campaign.UpdateCampaign) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const current = yield* find(tenant, raw)
    yield* orFail(Campaign.transition(current.status, "update"))
    if (patch.template !== undefined) yield* checkTemplateInput(patch.template)
    const updated = yield* (yield* CampaignRepo).updateDraft(
      tenant,
      current.id,
      {
        name: patch.name,
        templateName: patch.template?.name,
        templateLanguage: patch.template?.language,
        parameters: patch.template?.parameters,
        templateHeader: patch.template === undefined ? undefined : (patch.template.header ?? null),
        headerParameters: patch.template?.header_parameters,
        buttonParameters: patch.template?.buttons,
        scheduledAt: patch.scheduled_at,
        messagesPerSecond: patch.messages_per_second,
        sendWindow: patch.send_window
      },
      yield* Time.now
    )
    if (Option.isNone(updated)) return yield* refusedNow(tenant, current.id, "update")
    return updated.value
  })

/** `DELETE`: drafts only, with their recipients. */
export const remove = (raw: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const current = yield* find(tenant, raw)
    yield* orFail(Campaign.transition(current.status, "delete"))
    if (!(yield* (yield* CampaignRepo).deleteDraft(tenant, current.id))) return yield* refusedNow(tenant, current.id, "delete")
    return { id: current.id, deleted: true as const }
  })

/**
 * Launch: checks the template (exists, APPROVED, as many parameters as the campaign
 * gives) and that some recipient is pending; freezes the template's category and
 * components and the sender number on the campaign; skips the recipients now on the
 * opt-out list (one statement driven by that list); becomes `active` (or `scheduled` when
 * `scheduled_at` lies ahead) and queues the sender number's lane. Never touches the other
 * recipient rows and never waits for sending.
 */
export const launch = (raw: string) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    const id = campaign.id
    const now = yield* Time.now
    const scheduledInFuture = Campaign.scheduledInFuture(campaign, now)
    const to = yield* orFail(Campaign.transition(campaign.status, "launch", { scheduledInFuture }))
    const template = yield* (yield* TemplateRepo).find(tenant, campaign.templateName, campaign.templateLanguage)
    if (Option.isNone(template)) {
      return yield* Errors.ValidationFailed.of("template", `the store has no template '${campaign.templateName}' in ${campaign.templateLanguage}`)
    }
    if (template.value.status !== "APPROVED") {
      return yield* new Errors.InvalidState({ resource: "template", status: template.value.status, operation: "launch a campaign with" })
    }
    const issues = TemplateSend.check(template.value.components, {
      parameters: campaign.parameters,
      header_parameters: campaign.headerParameters,
      header: campaign.templateHeader === null ? undefined : RichSend.callerHeader(campaign.templateHeader),
      buttons: campaign.buttonParameters
    })
    const repo = yield* CampaignRepo
    // a header, cards, an offer or a required button the campaign leaves to its recipients: every pending one must give its own
    const deferred = issues.filter((i) => recipientsMayGive(campaign, i.path))
    if (deferred.length < issues.length) return yield* Errors.ValidationFailed.all(issues.filter((i) => !deferred.includes(i)))
    if (deferred.length > 0) {
      const plain = yield* firstPendingWithoutOwn(tenant, id)
      if (plain !== undefined) {
        return yield* Errors.ValidationFailed.all(
          deferred.map((i) => ({ path: i.path, message: `${i.message} (recipient ${plain} gives no rich parameters of its own)` }))
        )
      }
    }
    if (!(yield* repo.hasPending(tenant, id))) return yield* Errors.ValidationFailed.of("recipients", "the campaign has no recipient to send to")
    const account = Store.accountFor(store, campaign.mode)
    yield* refreshTier(tenant, account)
    // a header of our media is frozen with the operator's media id on the sender number (uploaded now when needed)
    const templateHeader = yield* frozenHeader(tenant.storeId, account, campaign.templateHeader)
    return yield* inTransaction(
      Effect.gen(function* () {
        const moved = yield* repo.transition(tenant, id, {
          from: Campaign.sources("launch"),
          to,
          now,
          set: {
            templateCategory: template.value.category,
            templateComponents: template.value.components,
            templateHeader,
            phoneNumberId: account.phoneNumberId,
            launchedAt: now,
            pausedReason: null
          }
        })
        if (Option.isNone(moved)) return yield* refusedNow(tenant, id, "launch", { scheduledInFuture })
        yield* repo.skipOptedOut(tenant, id, now)
        if (to === "active") yield* ensureLane(tenant, account.phoneNumberId)
        const launched = Option.getOrElse(yield* repo.findById(tenant, id), () => moved.value)
        yield* Events.emit(launched, "campaign.launched")
        return launched
      })
    )
  })

/**
 * A control route in the shape `Control.run` gives: load in the tenant, ask the state
 * machine, compare-and-set the status (from any status the operation is allowed in), run
 * `after` and emit `event` in the change's transaction.
 */
const control = (
  raw: string,
  operation: "pause" | "resume" | "cancel",
  step: {
    readonly set: (now: Time.Millis) => TransitionSet
    readonly after?: (
      changed: Campaign.Campaign,
      tenant: Tenant,
      now: Time.Millis
    ) => Effect.Effect<Campaign.Campaign, never, CampaignRepo | Transactor | JobQueue>
    readonly event?: { readonly type: Events.CallerEvent; readonly extra?: Record<string, unknown> }
  }
) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* CampaignRepo
    return yield* Control.run({
      load: find(tenant, raw),
      status: (c: Campaign.Campaign) => c.status,
      transition: Campaign.transition,
      operation,
      compareAndSet: (c, _from, to) =>
        Effect.gen(function* () {
          const now = yield* Time.now
          const changed = yield* repo.transition(tenant, c.id, { from: Campaign.sources(operation), to, now, set: step.set(now) })
          return Option.isSome(changed) && step.after !== undefined ? Option.some(yield* step.after(changed.value, tenant, now)) : changed
        }),
      emit: step.event === undefined ? undefined : (after) => Events.emit(after, step.event!.type, step.event!.extra)
    })
  })

const PAUSED_BY_CALLER = "paused by the caller"

/** Pause: stops new sends at once (the lane re-reads statuses before sending); progress is kept. `paused_reason` stays null (the caller knows why). */
export const pause = (raw: string) =>
  control(raw, "pause", { set: () => ({ pausedReason: null }), event: { type: "campaign.paused", extra: { reason: PAUSED_BY_CALLER } } })

/** Resume: continues where the campaign stopped; recipients already processed are not sent to again. */
export const resume = (raw: string) => control(raw, "resume", { set: () => ({ pausedReason: null }), after: wakeLane })

/** Cancel: sends nothing more. Pending recipients become cancelled (the first batch now, the rest by the sweep). */
export const cancel = (raw: string) =>
  control(raw, "cancel", { set: (now) => ({ cancelledAt: now }), after: cancelFirstBatch, event: { type: "campaign.cancelled" } })

const wakeLane = (c: Campaign.Campaign, tenant: Tenant) =>
  c.phoneNumberId === null ? Effect.succeed(c) : Effect.as(ensureLane(tenant, c.phoneNumberId), c)

const cancelFirstBatch = (c: Campaign.Campaign, tenant: Tenant, now: Time.Millis) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo
    yield* repo.cancelPending(tenant, c.id, { limit: CANCEL_BATCH, staleSendingBefore: 0, now })
    return Option.getOrElse(yield* repo.findById(tenant, c.id), () => c)
  })

/** Retry: failed recipients whose failure can be retried go back to pending, and the campaign to active. */
export const retry = (raw: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    const id = campaign.id
    yield* orFail(Campaign.transition(campaign.status, "retry", { retryableFailures: true }))
    const repo = yield* CampaignRepo
    return yield* inTransaction(
      Effect.gen(function* () {
        const now = yield* Time.now
        const requeued = yield* repo.retryFailed(tenant, id, now)
        if (requeued === 0) return yield* refusedNow(tenant, id, "retry", { retryableFailures: false })
        const active = yield* repo.transition(tenant, id, {
          from: Campaign.sources("retry"),
          to: "active",
          now,
          set: { pausedReason: null, completedAt: null }
        })
        if (Option.isNone(active)) return yield* refusedNow(tenant, id, "retry", { retryableFailures: true })
        return yield* wakeLane(active.value, tenant)
      })
    )
  })

/** Recounts the counters from the recipient rows (they must equal the incremental ones). */
export const recalculate = (raw: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    const recounted = yield* (yield* CampaignRepo).recount(tenant, campaign.id)
    if (Option.isNone(recounted)) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "campaign", id: raw }))
    return recounted.value
  })
