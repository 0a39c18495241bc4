/**
 * The template use cases. Templates belong to the store's operator account, so both keys
 * of a store see the same rows; when the store has live credentials, writes need a live key.
 */
import { Effect, Either, Option, Schema } from "effect"
import type { TemplateCategoryUpdate, TemplateQualityUpdate } from "../operator/TemplateWebhookEvent.js"
import * as Errors from "../shared/Errors.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import * as Examples from "./Examples.js"
import * as Mirror from "../shared/Mirror.js"
import * as TemplateMirrors from "./TemplateMirrors.js"
import { TemplateOperator } from "./TemplateOperator.js"
import * as Template from "./Template.js"
import { TemplateRepo, TemplateStatusRepo } from "./TemplateRepo.js"
import * as Webhooks from "../webhooks/Webhooks.js"

/** The caller's store and tenant, refused when a test key would write to live credentials' templates. */
const writableAccount = Effect.gen(function* () {
  const { store, tenant } = yield* CurrentStore
  if (store.live !== null && tenant.mode === "test") {
    return yield* new Errors.Forbidden({
      message: "This store has live operator credentials: template writes need a live key"
    })
  }
  return Store.templateAccount(store)
})

export interface ListQuery {
  readonly status?: Template.Status | undefined
  readonly limit: number
  readonly cursor?: Template.TemplateId | undefined
}

const idOf = (t: Template.Template) => t.id

/** The state known to the service (may be behind the operator; `sync` catches up). Runs on every list request: no generator. */
export const list = (query: ListQuery) =>
  Effect.flatMap(CurrentStore, ({ tenant }) =>
    Effect.flatMap(TemplateRepo, (repo) =>
      Effect.map(repo.list(tenant, { status: query.status, limit: query.limit, after: query.cursor }), (slice) =>
        Pagination.pageOf(slice, Template.TemplateId.schema, idOf)
      )
    )
  )

/**
 * Validates, submits to the operator, records the answer: a mirrored write
 * (`TemplateMirrors.create`). If the process dies between the operator's answer and the
 * record, the sweep finds the template at the operator and records it.
 */
export const create = (input: Template.TemplateData) =>
  Effect.gen(function* () {
    const data = yield* Either.match(Template.validate(input), { onLeft: Effect.fail, onRight: Effect.succeed })
    const account = yield* writableAccount
    const { tenant } = yield* CurrentStore
    const repo = yield* TemplateRepo
    if (Option.isSome(yield* repo.find(tenant, data.name, data.language))) return yield* TemplateMirrors.taken(data)
    // media examples go to the operator first, for their handles
    const submitted = yield* Examples.forOperator(tenant.storeId, account, data)
    const id = yield* Template.TemplateId.generate
    return yield* Mirror.run(TemplateMirrors.create, {
      tenant,
      account,
      prepare: Effect.gen(function* () {
        if (Option.isSome(yield* repo.find(tenant, data.name, data.language))) return yield* TemplateMirrors.taken(data)
        return { id, data, submitted }
      })
    })
  })

/** Pulls the operator's state of every template and makes ours equal to it; answers the first page after. */
export const sync = Effect.gen(function* () {
  const { store, tenant } = yield* CurrentStore
  const states = yield* (yield* TemplateOperator).listTemplates(Store.templateAccount(store))
  const repo = yield* TemplateRepo
  const changed = yield* repo.replaceAll(tenant, states, Template.TemplateId.generate)
  const first = yield* repo.list(tenant, { limit: 100 })
  return { synced: states.length, changed, ...Pagination.pageOf(first, Template.TemplateId.schema, (t) => t.id) }
})

/** The position of a template in the list of its languages: its language (`en_US`). */
export const LanguagePosition = Schema.String

/** The query of `GET /chat/templates/{name}`: a page of its languages, in order of language. */
export interface ByNameQuery {
  readonly limit: number
  readonly cursor?: string | undefined
}

/** `GET /chat/templates/{name}`: the store's templates of that name, one per language; 404 when there is none. Runs on every read: no generator. */
export const byName = (name: string, query: ByNameQuery) =>
  Effect.flatMap(CurrentStore, ({ tenant }) =>
    Effect.flatMap(TemplateRepo, (repo) =>
      Effect.flatMap(repo.findByName(tenant, name), (found) => {
        if (found.length === 0) return Effect.fail(new Errors.ResourceNotFound({ resource: "template", id: name }))
        const byLanguage = [...found].sort((a, b) => (a.language < b.language ? -1 : a.language > b.language ? 1 : 0))
        return Effect.succeed(Pagination.pageOfAll(byLanguage, query, LanguagePosition, languageOf))
      })
    )
  )
const languageOf = (t: Template.Template) => t.language

/** Deletes every language of the template, at the operator and here (a mirrored write, `TemplateMirrors.remove`). */
export const remove = (name: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* TemplateRepo
    const existing = yield* repo.findByName(tenant, name)
    if (existing.length === 0) return yield* new Errors.ResourceNotFound({ resource: "template", id: name })
    const account = yield* writableAccount
    return yield* Mirror.run(TemplateMirrors.remove, {
      tenant,
      account,
      prepare: Effect.succeed({ name, languages: existing.map((t) => t.language) })
    })
  })

/** What the operator's `message_template_status_update` webhook says. */
export interface StatusUpdate {
  readonly name: string
  readonly language: string
  readonly event: string
  readonly reason: string | null
  readonly category?: Template.Category | undefined
}

/** Tells both modes' endpoints: templates belong to the store, so both keys hear about them. */
export const emitToBothModes = (storeId: StoreId, type: string, data: unknown) =>
  Effect.forEach(["live", "test"] as const, (mode) => Webhooks.emit({ storeId, mode }, type, data), { discard: true })

/** The status an operator event means (`Template.statusFromOperator`); an unknown one is logged and answers undefined. */
export const statusOf = (update: StatusUpdate) =>
  Effect.gen(function* () {
    const status = Template.statusFromOperator(update.event)
    if (status === undefined)
      yield* Effect.logWarning(`operator reported an unknown template status '${update.event}' for ${update.name} (${update.language}); ignored`)
    return status
  })

/** The reason a status report records: none for NONE. */
export const rejectedReasonOf = (update: StatusUpdate): string | null => (update.reason === null || update.reason === "NONE" ? null : update.reason)

/** What `template.status` carries. */
export const statusData = (update: StatusUpdate, status: Template.Status, rejectedReason: string | null) => ({
  name: update.name,
  language: update.language,
  status,
  rejected_reason: rejectedReason
})

/**
 * Records an operator status change and tells both modes' endpoints (`template.status`).
 * The event is mapped as sync maps the operator's list (`Template.statusFromOperator`:
 * REINSTATED, UNARCHIVED and LOCKED are APPROVED); unknown events and repeated reports
 * change nothing.
 */
export const applyStatusUpdate = (storeId: StoreId, update: StatusUpdate) =>
  Effect.gen(function* () {
    const status = yield* statusOf(update)
    if (status === undefined) return false
    const rejectedReason = rejectedReasonOf(update)
    const changed = yield* (yield* TemplateStatusRepo).updateStatus(storeId, update.name, update.language, {
      status,
      rejectedReason,
      category: update.category
    })
    if (changed) yield* emitToBothModes(storeId, "template.status", statusData(update, status, rejectedReason))
    return changed
  })

/** What `template_category_update` says (see `WebhookEvent.TemplateCategoryUpdate`), for the business's template. */
export type CategoryUpdate = Omit<TemplateCategoryUpdate, "_tag" | "wabaId">

/** What `template.category` carries. */
export const categoryData = (update: CategoryUpdate) => ({
  name: update.name,
  language: update.language,
  category: update.category,
  previous_category: update.previousCategory,
  upcoming_category: update.upcomingCategory,
  effective_at: update.effectiveAt === null ? null : Time.toIso(update.effectiveAt)
})

/**
 * The operator changed (or will change) a template's category. A completed change is
 * recorded; an impending one changes nothing yet. Both go on to both modes' endpoints as
 * `template.category` (an impending one with `upcoming_category` and `effective_at`),
 * unless a completed one repeats what is stored.
 */
export const applyCategoryUpdate = (storeId: StoreId, update: CategoryUpdate) =>
  Effect.gen(function* () {
    const impending = update.upcomingCategory !== null
    const changed = impending
      ? false
      : yield* (yield* TemplateStatusRepo).updateDetails(storeId, update.name, update.language, { category: update.category })
    if (impending || changed) yield* emitToBothModes(storeId, "template.category", categoryData(update))
    return changed
  })

/** What `message_template_quality_update` says (see `WebhookEvent.TemplateQualityUpdate`), for the business's template. */
export type QualityUpdate = Omit<TemplateQualityUpdate, "_tag" | "wabaId">

/** What `template.quality` carries. */
export const qualityData = (update: QualityUpdate) => ({
  name: update.name,
  language: update.language,
  quality_score: update.score,
  previous_quality_score: update.previousScore
})

/** The operator rated a template's quality: recorded, and sent on as `template.quality` when it changed. */
export const applyQualityUpdate = (storeId: StoreId, update: QualityUpdate) =>
  Effect.gen(function* () {
    const changed = yield* (yield* TemplateStatusRepo).updateDetails(storeId, update.name, update.language, { qualityScore: update.score })
    if (changed) yield* emitToBothModes(storeId, "template.quality", qualityData(update))
    return changed
  })
