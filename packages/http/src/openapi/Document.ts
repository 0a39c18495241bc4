/**
 * The finishing pass over the OpenAPI document that `OpenApi.fromApi` generates from
 * `SwitchboardApi` (applied as its `OpenApi.Transform` annotation, so the served document,
 * `OpenApi.fromApi` and any tool see the same thing). Guarantees:
 * - every operation has a summary and examples of its request and its success answer;
 * - every POST and PATCH behind an API key declares the `Idempotency-Key` header and the
 *   409 `idempotency_key_in_use` and 422 `idempotency_key_reused` answers that go with it;
 * - each error status lists only the error bodies that status answers (each body's
 *   `error.code` is an `enum` of its one code), and a 400 is always `validation_failed`
 *   (the platform's own decode error never reaches a client);
 * - an operation that needs no API key declares no 401 unless it answers one itself (the
 *   signed operator webhook, for a bad signature);
 * - an `{id}` path parameter carries its kind's pattern (`^call_…$`), so no URL matches two
 *   path templates (`/chat/calls/permissions/media` is not a call's media);
 * - no schema carries a `$id` (Effect names `Unknown` `/schemas/unknown` at every use,
 *   and a validator such as ajv refuses a document with one `$id` twice).
 */
import type { OpenApi } from "@effect/platform"
import { Context, Option, SchemaAST as AST } from "effect"
import { ids as sharedIds, type OperationDoc, operations as sharedOperations, pathParameters } from "./examples.js"

/**
 * A module's documentation, annotated on its group (`.annotate(OpenApiDocument.Docs, {...})`)
 * so that a new module documents its operations in its own folder: the tag's description,
 * each operation's summary and examples (by operation id, `group.endpoint`), and an example
 * id for each collection its paths name (`/chat/<collection>/{id}`).
 */
export interface ModuleDocs {
  readonly tags?: Readonly<Record<string, string>>
  readonly operations: Readonly<Record<string, OperationDoc>>
  readonly ids?: Readonly<Record<string, string>>
}

export class Docs extends Context.Tag("@switchboard/http/OpenApiDocs")<Docs, ModuleDocs>() {}

type Json = Record<string, any>

/** Where the document says the API is served: the server that serves it (`switchboard serve` listens on port 3000 unless `PORT` says otherwise). */
export const servers = [{ url: "/", description: "The server that serves this document" }] as const

/** What each tag (group of operations) covers. */
const tags: Record<string, string> = {
  templates: "Message templates, reviewed by the operator",
  messages: "Sending and reading messages",
  customers: "Customers who wrote to the store, with their 24-hour window",
  optOuts: "The store's opt-out list",
  webhooks: "The caller's webhook endpoints and their deliveries",
  sandbox: "The customer's side, played through the emulator (test keys only)",
  campaigns: "Bulk template sends, paced per sender number",
  operatorWebhook: "Where the operator delivers its webhooks",
  health: "Liveness and readiness"
}

const ref = (name: string) => `#/components/schemas/${name}`

/** The header every idempotent write accepts. */
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes the write safe to retry: the first answer is stored and replayed for the same key and body (scoped by the key's store and mode). A concurrent request with the key answers 409 `idempotency_key_in_use`; the key with another body answers 422 `idempotency_key_reused`.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
  example: "order-A-1-shipped"
}

const stripIds = (node: unknown): void => {
  if (Array.isArray(node)) {
    for (const item of node) stripIds(item)
  } else if (node !== null && typeof node === "object") {
    const obj = node as Json
    if (typeof obj.$id === "string") delete obj.$id
    for (const value of Object.values(obj)) stripIds(value)
  }
}

/** The component names a response schema refers to (a `$ref` or an `anyOf` of them). */
const refsOf = (schema: Json | undefined): Array<string> =>
  schema === undefined ? [] : schema.$ref !== undefined ? [schema.$ref] : Array.isArray(schema.anyOf) ? schema.anyOf.flatMap(refsOf) : []

const schemaOf = (refs: ReadonlyArray<string>): Json => {
  const unique = [...new Set(refs)]
  return unique.length === 1 ? { $ref: unique[0] } : { anyOf: unique.map(($ref) => ({ $ref })) }
}

/** Adds the error body `code` to the response of `status`, or creates that response. */
const addError = (op: Json, status: string, code: string) => {
  const existing = op.responses[status]
  const media = existing?.content?.["application/json"]
  const refs = [...refsOf(media?.schema), ref(code)]
  const codes = [...new Set(refs.map((r) => r.split("/").pop()))]
  op.responses[status] = { description: `${status} ${codes.join(" or ")}`, content: { "application/json": { schema: schemaOf(refs) } } }
}

const decodeError = ref("HttpApiDecodeError")

const finishErrors = (op: Json) => {
  for (const [status, response] of Object.entries<Json>(op.responses)) {
    if (Number(status) < 400) continue
    const media = response.content?.["application/json"]
    const refs = refsOf(media?.schema).filter((r) => r !== decodeError)
    if (refs.length === 0) continue
    media.schema = schemaOf(refs)
    response.description = `${status} ${[...new Set(refs.map((r) => r.split("/").pop()))].join(" or ")}`
  }
}

/** The shape of every id (`Id.ts`): a prefix, `_`, 26 characters of Crockford base 32. */
const ID_BODY = "[0-9A-HJKMNP-TV-Z]{26}"
const ID_SHAPE = new RegExp(`^([a-z]+)_${ID_BODY}$`)

const addExamples = (path: string, op: Json, doc: OperationDoc, ids: Readonly<Record<string, string>>) => {
  if (op.summary === undefined) op.summary = doc.summary
  if (op.description === undefined && doc.description !== undefined) op.description = doc.description
  const body = op.requestBody?.content?.["application/json"]
  if (body !== undefined && doc.request !== undefined) body.example = doc.request
  for (const parameter of op.parameters as Array<Json>) {
    if (parameter.in !== "path") continue
    const collection = path.split("/")[2] ?? ""
    const example = parameter.name === "id" ? ids[collection] : pathParameters[parameter.name]
    if (example !== undefined) parameter.example = example
    // an id names its kind, so `/chat/calls/{id}/media` does not also match `/chat/calls/permissions/media`
    const kind = parameter.name === "id" && typeof example === "string" ? ID_SHAPE.exec(example) : null
    if (kind !== null) parameter.schema = { ...parameter.schema, pattern: `^${kind[1]}_${ID_BODY}$` }
  }
  const success = Object.keys(op.responses).find((status) => status.startsWith("2"))
  const content = success === undefined ? undefined : op.responses[success].content
  const media = content === undefined ? undefined : Object.values<Json>(content)[0]
  if (media !== undefined) media.example = doc.response
}

/** The operator's webhook body is read raw (its signature covers the bytes): document its shape. */
const operatorWebhookBody = (op: Json, example: unknown) => {
  op.requestBody = {
    required: true,
    description: "The operator's webhook notification (`object`: `whatsapp_business_account`).",
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["object", "entry"],
          properties: { object: { type: "string", enum: ["whatsapp_business_account"] }, entry: { type: "array", items: { type: "object" } } }
        },
        example
      }
    }
  }
}

const dropUnused = (spec: Json) => {
  const text = JSON.stringify({ ...spec, components: { ...spec.components, schemas: {} } })
  const schemas: Json = spec.components.schemas
  // iterate until no component is removed: a removed one may have been the only user of another
  for (let changed = true; changed; ) {
    changed = false
    const used = text + JSON.stringify(schemas)
    for (const name of Object.keys(schemas)) {
      const own = JSON.stringify(schemas[name])
      const uses = used.split(`"${ref(name)}"`).length - 1 - (own.split(`"${ref(name)}"`).length - 1)
      if (uses === 0) {
        delete schemas[name]
        changed = true
      }
    }
  }
}

interface GroupLike {
  readonly identifier: string
  readonly annotations: Context.Context<never>
  readonly endpoints: Readonly<Record<string, { readonly name: string; readonly errorSchema: { readonly ast: AST.AST } }>>
}

/** Whether `ast` (an endpoint's errors, a union) names the error component `identifier`. */
const names = (ast: AST.AST, identifier: string): boolean =>
  AST.isUnion(ast) ? ast.types.some((t) => names(t, identifier)) : Option.getOrUndefined(AST.getIdentifierAnnotation(ast)) === identifier

/** The `OpenApi.Transform` of an API whose groups are `groups`: the shared docs, and each group's `Docs`. */
export const finishFor = (groups: Readonly<Record<string, GroupLike>>) => {
  const docs = Object.values(groups).flatMap((g) => Option.toArray(Context.getOption(g.annotations, Docs)))
  const all: Required<ModuleDocs> = {
    tags: Object.assign({}, tags, ...docs.map((d) => d.tags ?? {})),
    operations: Object.assign({}, sharedOperations, ...docs.map((d) => d.operations)),
    ids: Object.assign({}, sharedIds, ...docs.map((d) => d.ids ?? {}))
  }
  // the operations that answer 401 themselves (a signed webhook's bad signature), not for want of an API key
  const unauthorized = new Set(
    Object.values(groups).flatMap((g) =>
      Object.values(g.endpoints)
        .filter((e) => names(e.errorSchema.ast, "unauthorized"))
        .map((e) => `${g.identifier}.${e.name}`)
    )
  )
  return (generated: Record<string, any>): OpenApi.OpenAPISpec => finish(generated, all, unauthorized)
}

const finish = (
  generated: Record<string, any>,
  { tags, operations, ids }: Required<ModuleDocs>,
  unauthorized: ReadonlySet<string>
): OpenApi.OpenAPISpec => {
  const spec = structuredClone(generated) as Json
  spec.servers = servers.map((s) => ({ ...s }))
  for (const [path, methods] of Object.entries<Json>(spec.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      finishErrors(op)
      const authenticated = Array.isArray(op.security) && op.security.length > 0
      // the API-wide 401 is the API key's: a route that needs none answers it only if it declares it
      if (!authenticated && !unauthorized.has(op.operationId)) delete op.responses["401"]
      if (authenticated && (method === "post" || method === "patch")) {
        op.parameters = [...op.parameters, idempotencyKey]
        addError(op, "409", "idempotency_key_in_use")
        addError(op, "422", "idempotency_key_reused")
      }
      const doc = operations[op.operationId]
      if (op.operationId === "operatorWebhook.receive" && op.requestBody === undefined) operatorWebhookBody(op, doc?.request)
      if (doc !== undefined) addExamples(path, op, doc, ids)
    }
  }
  for (const tag of spec.tags as Array<Json>) if (tag.description === undefined && tags[tag.name] !== undefined) tag.description = tags[tag.name]
  stripIds(spec)
  dropUnused(spec)
  return spec as OpenApi.OpenAPISpec
}
