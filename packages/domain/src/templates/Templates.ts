/**
 * The template use cases. Templates belong to the store's operator account, so both keys
 * of a store see the same rows; when the store has live credentials, writes need a live key.
 */
import { Effect, Either, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, CurrentTenant } from "../shared/Tenant.js"
import * as Store from "../stores/Store.js"
import { TemplateOperator } from "../operator/TemplateOperator.js"
import * as Template from "./Template.js"
import { TemplateRepo } from "./TemplateRepo.js"
import * as Webhooks from "../webhooks/Webhooks.js"

/** The current tenant's store (it exists: authentication found it). */
export const currentStore = Effect.map(CurrentStore, (c) => c.store)

const writableAccount = Effect.gen(function* () {
  const tenant = yield* CurrentTenant
  const store = yield* currentStore
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
  readonly cursor?: string | undefined
}

/** The state known to the service (may be behind the operator; `sync` catches up). */
export const list = (query: ListQuery) =>
  Effect.gen(function* () {
    const tenant = yield* CurrentTenant
    const after = yield* Pagination.afterCursor(query.cursor)
    const slice = yield* (yield* TemplateRepo).list(tenant.storeId, { status: query.status, limit: query.limit, after })
    return Pagination.toPage(slice, (t) => t.id, Template.toResource)
  })

/**
 * Validates, submits to the operator, records the answer. If the process dies between the
 * operator's answer and the insert, `sync` recovers the template.
 */
export const create = (input: Template.TemplateData) =>
  Effect.gen(function* () {
    const data = yield* Either.match(Template.validate(input), { onLeft: Effect.fail, onRight: Effect.succeed })
    const account = yield* writableAccount
    const tenant = yield* CurrentTenant
    const repo = yield* TemplateRepo
    if (Option.isSome(yield* repo.find(tenant.storeId, data.name, data.language))) {
      return yield* new Errors.ResourceAlreadyExists({ resource: "template", id: `${data.name} (${data.language})` })
    }
    const created = yield* (yield* TemplateOperator).createTemplate(account, data)
    const now = new Date()
    const template: Template.Template = {
      id: Id.make("tpl"),
      storeId: tenant.storeId,
      name: data.name,
      language: data.language,
      category: created.category,
      status: created.status,
      components: data.components,
      rejectedReason: null,
      operatorId: created.operatorId,
      createdAt: now,
      updatedAt: now
    }
    yield* repo.insert(template)
    return Template.toResource(template)
  })

/** Pulls the operator's state of every template and makes ours equal to it. */
export const sync = Effect.gen(function* () {
  const tenant = yield* CurrentTenant
  const store = yield* currentStore
  const states = yield* (yield* TemplateOperator).listTemplates(Store.templateAccount(store))
  const repo = yield* TemplateRepo
  const changed = yield* repo.replaceAll(tenant.storeId, states, () => Id.make("tpl"))
  const first = yield* repo.list(tenant.storeId, { limit: 100 })
  return { synced: states.length, changed, ...Pagination.toPage(first, (t) => t.id, Template.toResource) }
})

/** Deletes every language of the template, at the operator and here. */
export const remove = (name: string) =>
  Effect.gen(function* () {
    const tenant = yield* CurrentTenant
    const repo = yield* TemplateRepo
    const existing = yield* repo.findByName(tenant.storeId, name)
    if (existing.length === 0) return yield* new Errors.ResourceNotFound({ resource: "template", id: name })
    const account = yield* writableAccount
    yield* (yield* TemplateOperator).deleteTemplate(account, name)
    yield* repo.deleteByName(tenant.storeId, name)
    return { name, deleted: true as const, languages: existing.map((t) => t.language) }
  })

/** What the operator's `message_template_status_update` webhook says. */
export interface StatusUpdate {
  readonly name: string
  readonly language: string
  readonly event: string
  readonly reason: string | null
  readonly category?: Template.Category | undefined
}

const KNOWN_STATUS = new Set<string>(Template.Status.literals)

/** Records an operator status change; unknown events (quality notices and the like) change nothing. */
export const applyStatusUpdate = (storeId: string, update: StatusUpdate) =>
  Effect.gen(function* () {
    const status = update.event === "REINSTATED" ? "APPROVED" : update.event
    if (!KNOWN_STATUS.has(status)) return false
    const rejectedReason = update.reason === null || update.reason === "NONE" ? null : update.reason
    const changed = yield* (yield* TemplateRepo).updateStatus(storeId, update.name, update.language, {
      status: status as Template.Status,
      rejectedReason,
      category: update.category
    })
    if (changed) {
      // templates belong to the store, so both modes' endpoints hear about them
      for (const mode of ["live", "test"] as const) {
        yield* Webhooks.emit({ storeId, mode }, "template.status", {
          name: update.name,
          language: update.language,
          status,
          rejected_reason: rejectedReason
        })
      }
    }
    return changed
  })
