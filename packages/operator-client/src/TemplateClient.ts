/**
 * The domain's `TemplateOperator` over the Graph API (GRAPH_API.md §4, Appendix B):
 * `POST|GET|DELETE /{waba_id}/message_templates` (`GET` also by `name`, for a sweep's recover). Endpoints, credentials and retries come
 * from the shared `GraphApi`: creations are `write` requests (only rate limits retried),
 * lists and deletes `idempotent` ones.
 */
import { OperatorErrorCode, type Store, Template, type TemplateRepo, TemplateOperator } from "@switchboard/domain"
import { Effect, Either, Layer, Schema } from "effect"
import type * as Transport from "./GraphTransport.js"
import { GraphApi } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

/** A safety stop for a paging loop that would never end. */
const MAX_PAGES = 1000

const TEMPLATE_FIELDS = "id,name,language,status,category,components,rejected_reason,quality_score"

// ---------------------------------------------------------------------------------------------
// Answers

const Id = Schema.Union(Schema.String, Schema.Number)

const CreatedTemplateBody = Schema.Struct({
  id: Id,
  status: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String)
})

const TemplateRow = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Id)),
  name: Schema.String,
  language: Schema.String,
  status: Schema.String,
  category: Schema.String,
  components: Schema.optional(Schema.NullOr(Schema.Array(Schema.Unknown))),
  rejected_reason: Schema.optional(Schema.NullOr(Schema.String)),
  quality_score: Schema.optional(Schema.Unknown)
})

const TemplatePage = Schema.Struct({
  data: Schema.Array(TemplateRow),
  paging: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        cursors: Schema.optional(Schema.NullOr(Schema.Struct({ after: Schema.optional(Schema.NullOr(Schema.String)) }))),
        next: Schema.optional(Schema.NullOr(Schema.String))
      })
    )
  )
})

const isCategory = Schema.is(Template.Category)

/**
 * The domain status of an operator status, mapped as the status webhook maps it
 * (`Template.statusFromOperator`); a status the domain does not know is logged and read as
 * PENDING (not sendable, not final).
 */
const statusOf = (raw: string): Effect.Effect<Template.Status> => {
  const status = Template.statusFromOperator(raw)
  if (status !== undefined) return Effect.succeed(status)
  return Effect.as(Effect.logWarning(`operator reported an unknown template status '${raw}'; recorded as PENDING`), "PENDING")
}

const isQualityScore = Schema.is(Template.QualityScore)

/** The list's `quality_score` (`{ score }`, or a bare score); undefined when absent or unknown. */
const qualityOf = (raw: unknown): Template.QualityScore | undefined => {
  const score = typeof raw === "object" && raw !== null ? (raw as { readonly score?: unknown }).score : raw
  const upper = typeof score === "string" ? score.toUpperCase() : undefined
  return isQualityScore(upper) ? upper : undefined
}

/** The domain category of an operator category; an unknown one is logged and read as MARKETING (the most restricted). */
const categoryOf = (raw: string): Effect.Effect<Template.Category> => {
  const upper = raw.toUpperCase()
  if (isCategory(upper)) return Effect.succeed(upper)
  return Effect.as(Effect.logWarning(`operator reported an unknown template category '${raw}'; recorded as MARKETING`), "MARKETING")
}

const rejectedReasonOf = (raw: string | null | undefined): string | null =>
  raw === null || raw === undefined || raw === "" || raw.toUpperCase() === "NONE" ? null : raw

const decode = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decodeEither = Schema.decodeUnknownEither(schema, { errors: "first" })
  return (body: unknown) =>
    Either.match(decodeEither(body), {
      onLeft: (error) => Effect.fail(Graph.unavailable({ kind: "unreachable", reason: `unreadable ${what} from the operator: ${error.message}` })),
      onRight: Effect.succeed
    })
}

/** Whether a refusal of a delete says that no template has this name (§4.1: deleting an unknown name is not an error for us). */
const isTemplateNotFound = (error: Graph.GraphError): boolean =>
  error.httpStatus === 404 ||
  (error.code === OperatorErrorCode.INVALID_PARAMETER && error.subcode === OperatorErrorCode.UNKNOWN_OBJECT_SUBCODE) ||
  [error.message, error.userTitle, error.userMsg, error.details].some(
    (text) => text !== undefined && /not\s+(be\s+)?found|does\s*n[o']t\s+exist|doesn't\s+exist|no\s+such\s+template/i.test(text)
  )

const listFailure = (reason: string) => Effect.fail(Graph.unavailable({ kind: "unreachable", reason }))

// ---------------------------------------------------------------------------------------------
// The capability

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<TemplateOperator.TemplateOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const createTemplate = (account: Store.OperatorAccount, data: Template.TemplateData) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      const creation = Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, account.wabaId, "message_templates"), {
        json: {
          name: data.name,
          language: data.language,
          category: data.category,
          ...(data.parameter_format === undefined ? {} : { parameter_format: data.parameter_format }),
          components: data.components
        }
      })
      const answer = yield* Effect.mapError(api.run(creation, "write"), Graph.toDomainError)
      const created = yield* decode(CreatedTemplateBody, "template creation answer")(answer.body)
      return {
        operatorId: String(created.id),
        status: created.status === undefined ? "PENDING" : yield* statusOf(created.status),
        category: created.category === undefined ? data.category : yield* categoryOf(created.category)
      } satisfies TemplateOperator.CreatedTemplate
    }).pipe(Effect.withSpan("TemplateClient.createTemplate", { attributes: { kind: account.kind, wabaId: account.wabaId, name: data.name } }))

  /** The account's templates, all pages followed; `filter` narrows the query (`name`). */
  const listWhere = (account: Store.OperatorAccount, filter: Record<string, string>) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      const listUrl = Graph.graphUrl(endpoint, account.wabaId, "message_templates")
      const query = { limit: "100", fields: TEMPLATE_FIELDS, ...filter }
      const decodePage = decode(TemplatePage, "template list page")
      const states: Array<TemplateRepo.TemplateState> = []
      const seenCursors = new Set<string>()
      let pageRequest: Transport.Request | undefined = Graph.request(endpoint, "GET", listUrl, { query })
      for (let page = 0; pageRequest !== undefined; page++) {
        if (page >= MAX_PAGES) return yield* listFailure(`template list did not end after ${MAX_PAGES} pages`)
        const answer: Graph.GraphSuccess = yield* Effect.mapError(api.run(pageRequest, "idempotent"), Graph.toUnavailable)
        const body: typeof TemplatePage.Type = yield* decodePage(answer.body)
        for (const row of body.data) {
          states.push({
            operatorId: row.id === undefined || row.id === null ? null : String(row.id),
            name: row.name,
            language: row.language,
            category: yield* categoryOf(row.category),
            status: yield* statusOf(row.status),
            // Already in the operator's component shape, which is the domain's.
            components: (row.components ?? []) as ReadonlyArray<Template.Component>,
            rejectedReason: rejectedReasonOf(row.rejected_reason),
            qualityScore: qualityOf(row.quality_score)
          })
        }
        const next: string | undefined = body.paging?.next ?? undefined
        const after: string | undefined = body.paging?.cursors?.after ?? undefined
        if (next === undefined || next === "" || body.data.length === 0) {
          pageRequest = undefined
        } else if (after !== undefined && after !== "") {
          if (seenCursors.has(after)) return yield* listFailure(`template list repeated the cursor '${after}'`)
          seenCursors.add(after)
          pageRequest = Graph.request(endpoint, "GET", listUrl, { query: { ...query, after } })
        } else {
          if (seenCursors.has(next)) return yield* listFailure("template list repeated its next page")
          seenCursors.add(next)
          pageRequest = Graph.request(endpoint, "GET", next)
        }
      }
      return states as ReadonlyArray<TemplateRepo.TemplateState>
    })

  const listTemplates = (account: Store.OperatorAccount) =>
    listWhere(account, {}).pipe(Effect.withSpan("TemplateClient.listTemplates", { attributes: { kind: account.kind, wabaId: account.wabaId } }))

  // the operator's `name` filter may match more than the exact name: only that name is kept
  const findTemplates = (account: Store.OperatorAccount, name: string) =>
    listWhere(account, { name }).pipe(
      Effect.map((states) => states.filter((s) => s.name === name)),
      Effect.withSpan("TemplateClient.findTemplates", { attributes: { kind: account.kind, wabaId: account.wabaId, name } })
    )

  const deleteTemplate = (account: Store.OperatorAccount, name: string) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      const deletion = Graph.request(endpoint, "DELETE", Graph.graphUrl(endpoint, account.wabaId, "message_templates"), { query: { name } })
      yield* api.run(deletion, "idempotent").pipe(
        Effect.catchTag("Refused", (failure) => (isTemplateNotFound(failure.error) ? Effect.void : Effect.fail(failure))),
        Effect.mapError(Graph.toDomainError)
      )
    }).pipe(Effect.withSpan("TemplateClient.deleteTemplate", { attributes: { kind: account.kind, wabaId: account.wabaId, name } }))

  return { createTemplate, listTemplates, findTemplates, deleteTemplate }
})

/** `TemplateOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<TemplateOperator.TemplateOperator, never, GraphApi> = Layer.effect(TemplateOperator.TemplateOperator, make)
