/**
 * The template routes' changes at the operator, as mirrored writes (`shared/Mirror.ts`):
 * prepared (an outbox row, in a transaction), made at the operator outside any transaction,
 * and recorded in the settle's transaction. The pending record of each is the outbox row.
 *
 * The operator takes no idempotency key for a template: a sweep finishing a create first
 * looks for the template by name and language (`recover`), so a crash after the operator
 * took it and before the settle records that one instead of submitting a second.
 */
import { Effect, Option, Schema } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import * as Time from "../shared/Time.js"
import * as Template from "./Template.js"
import { type CreatedTemplate, TemplateOperator } from "./TemplateOperator.js"
import { TemplateRepo } from "./TemplateRepo.js"

const Created = Schema.Struct({
  id: Template.TemplateId.schema,
  /** What is stored here (the caller's components, our media ids). */
  data: Template.TemplateData,
  /** What the operator is given (media examples replaced by the operator's handles). */
  submitted: Template.TemplateData
})

/** `POST /chat/templates`: submitted for review at the operator, then recorded with its answer. */
export const create = Mirror.kind({
  kind: "templates.create",
  payload: Created,
  call: (p: typeof Created.Type, { account }) => Effect.flatMap(TemplateOperator, (op) => op.createTemplate(account, p.submitted)),
  recover: (p, { account }) =>
    Effect.gen(function* () {
      const found = (yield* (yield* TemplateOperator).findTemplates(account, p.data.name)).find(
        (t) => t.language === p.data.language && t.operatorId !== null
      )
      return found === undefined
        ? Option.none<CreatedTemplate>()
        : Option.some<CreatedTemplate>({ operatorId: found.operatorId!, status: found.status, category: found.category })
    }),
  settle: (p, created, { tenant }) =>
    Effect.gen(function* () {
      const now = yield* Time.now
      const template: Template.Template = {
        id: p.id,
        storeId: tenant.storeId,
        name: p.data.name,
        language: p.data.language,
        category: created.category,
        status: created.status,
        components: p.data.components,
        rejectedReason: null,
        qualityScore: null,
        operatorId: created.operatorId,
        createdAt: now,
        updatedAt: now
      }
      yield* (yield* TemplateRepo).insert(tenant, template)
      return template
    })
})

const Deleted = Schema.Struct({ name: Schema.String, languages: Schema.Array(Schema.String) })

/** `DELETE /chat/templates/{name}`: every language deleted at the operator (a name it does not know counts as deleted), then here. */
export const remove = Mirror.kind({
  kind: "templates.delete",
  payload: Deleted,
  call: (p: typeof Deleted.Type, { account }) => Effect.flatMap(TemplateOperator, (op) => op.deleteTemplate(account, p.name)),
  settle: (p, _answer, { tenant }) =>
    Effect.gen(function* () {
      const repo = yield* TemplateRepo
      const existing = yield* repo.findByName(tenant, p.name)
      yield* repo.deleteByName(tenant, p.name)
      const languages = existing.length > 0 ? existing.map((t) => t.language) : p.languages
      return { name: p.name, deleted: true as const, languages }
    })
})

/** The refusal of a create whose (name, language) the store already has. */
export const taken = (data: Pick<Template.TemplateData, "name" | "language">) =>
  new Errors.ResourceAlreadyExists({ resource: "template", id: `${data.name} (${data.language})` })

/** Every template mirror kind (the templates module registers them). */
export const kinds = [create, remove] as const
