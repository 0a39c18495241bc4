/**
 * The template use cases. Templates belong to the store's operator account, so both keys
 * of a store see the same rows; when the store has live credentials, writes need a live key.
 */
import { Effect, Either, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import { TemplateOperator } from "../operator/TemplateOperator.js"
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

/** The state known to the service (may be behind the operator; `sync` catches up). */
export const list = (query: ListQuery) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* TemplateRepo).list(tenant, { status: query.status, limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Template.TemplateId.schema, (t) => t.id)
  })

/**
 * Validates, submits to the operator, records the answer. If the process dies between the
 * operator's answer and the insert, `sync` recovers the template.
 */
export const create = (input: Template.TemplateData) =>
  Effect.gen(function* () {
    const data = yield* Either.match(Template.validate(input), { onLeft: Effect.fail, onRight: Effect.succeed })
    const account = yield* writableAccount
    const { tenant } = yield* CurrentStore
    const repo = yield* TemplateRepo
    if (Option.isSome(yield* repo.find(tenant, data.name, data.language))) {
      return yield* new Errors.ResourceAlreadyExists({ resource: "template", id: `${data.name} (${data.language})` })
    }
    const created = yield* (yield* TemplateOperator).createTemplate(account, data)
    const now = yield* Time.now
    const template: Template.Template = {
      id: yield* Template.TemplateId.generate,
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
    yield* repo.insert(tenant, template)
    return template
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

/** Deletes every language of the template, at the operator and here. */
export const remove = (name: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* TemplateRepo
    const existing = yield* repo.findByName(tenant, name)
    if (existing.length === 0) return yield* new Errors.ResourceNotFound({ resource: "template", id: name })
    const account = yield* writableAccount
    yield* (yield* TemplateOperator).deleteTemplate(account, name)
    yield* repo.deleteByName(tenant, name)
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

/**
 * Records an operator status change and tells both modes' endpoints (`template.status`);
 * unknown events (quality notices and the like) and repeated reports change nothing.
 */
export const applyStatusUpdate = (storeId: StoreId, update: StatusUpdate) =>
  Effect.gen(function* () {
    const status = update.event === "REINSTATED" ? "APPROVED" : update.event
    if (!KNOWN_STATUS.has(status)) return false
    const rejectedReason = update.reason === null || update.reason === "NONE" ? null : update.reason
    const changed = yield* (yield* TemplateStatusRepo).updateStatus(storeId, update.name, update.language, {
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
