/**
 * The domain's `Operator` port over HTTP, in the Graph API's wire format (GRAPH_API.md §3.3,
 * §4, Appendix B). The same client serves live accounts (the real operator) and sandbox
 * accounts (the emulator): the account's `kind` picks the endpoint and its credentials.
 *
 * Requires a `GraphTransport`; never provides one.
 */
import { Errors, Operator, Phone, SandboxCustomer, Store, Template } from "@switchboard/domain"
import type { TemplateRepo } from "@switchboard/domain"
import { Context, Effect, Either, Layer, Redacted, Schema } from "effect"
import { GraphTransport } from "./GraphTransport.js"
import type * as Transport from "./GraphTransport.js"
import * as Graph from "./internal/graph.js"
import * as WebhookSignature from "./WebhookSignature.js"

/** One Graph API endpoint with its credentials. */
export interface OperatorEndpoint {
  /** Origin (and optional path prefix) of the API, e.g. `https://graph.facebook.com` or the emulator's URL. */
  readonly baseUrl: string
  /** Graph version segment of every path; default `v23.0`. */
  readonly apiVersion?: string | undefined
  /** Sent as `Authorization: Bearer …`; never logged. */
  readonly accessToken: Redacted.Redacted<string>
  /** Key of the webhook signatures (`X-Hub-Signature-256`) this endpoint sends. */
  readonly appSecret: Redacted.Redacted<string>
}

export interface OperatorClientConfig {
  /** The real operator; required only when a live account is used. */
  readonly live?: OperatorEndpoint | undefined
  /** The emulator serving sandbox accounts. */
  readonly sandbox: OperatorEndpoint
  /** Our verify token of the webhook subscription handshake. */
  readonly verifyToken: Redacted.Redacted<string>
  /** Retries of one request in all (rate limits and, for reads, network errors); default 3. */
  readonly maxRetries?: number | undefined
  /** Time (ms) from the first attempt within which a retry may still start; default 2000. */
  readonly retryBudgetMs?: number | undefined
  /** Timeout of one HTTP attempt (ms); default 10000. */
  readonly requestTimeoutMs?: number | undefined
}

/** The service `make` builds: the `Operator` port plus the sandbox registration the server runs at start. */
export interface OperatorClient extends Context.Tag.Service<Operator.Operator> {
  /**
   * Registers a sandbox account's phone number with the emulator (`POST /_emulator/accounts`),
   * once per process per phone number id; later calls answer at once. Live accounts: nothing to do.
   * Every other method registers a sandbox account itself before its first Graph call.
   */
  readonly registerSandboxAccount: (account: Store.OperatorAccount) => Effect.Effect<void, Errors.OperatorUnavailable>
  /** The sandbox customer writes (see the domain's `SandboxCustomer`). */
  readonly sendInbound: SandboxCustomer.SandboxCustomer["Type"]["sendInbound"]
}

export const DEFAULT_API_VERSION = "v23.0"
export const DEFAULT_MAX_RETRIES = 3
export const DEFAULT_RETRY_BUDGET_MS = 2000
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000
const BASE_DELAY_MS = 200
/** Retries of idempotent requests (reads, deletes, registration) after a network error or 5xx. */
const READ_TRANSPORT_RETRIES = 2
/** A safety stop for a paging loop that would never end. */
const MAX_PAGES = 1000

const TEMPLATE_FIELDS = "id,name,language,status,category,components,rejected_reason"

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
  rejected_reason: Schema.optional(Schema.NullOr(Schema.String))
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

/** The message id of a send's answer (`{ messages: [{ id }] }`), read by hand: this runs for every message of a campaign. */
const sentMessage = (body: unknown): Effect.Effect<{ readonly messageId: string }, Errors.OperatorUnavailable> => {
  const id = (body as { readonly messages?: ReadonlyArray<{ readonly id?: unknown }> } | null | undefined)?.messages?.[0]?.id
  return typeof id === "string" && id !== ""
    ? Effect.succeed({ messageId: id })
    : Effect.fail(unreadable("send answer (the message may have been accepted)", "no messages[0].id"))
}

const isStatus = Schema.is(Template.Status)
const isCategory = Schema.is(Template.Category)

/**
 * The domain status of an operator status. Statuses the domain does not model: REINSTATED,
 * UNARCHIVED and LOCKED are sendable (APPROVED); any other unknown one is logged and read as
 * PENDING (not sendable, not final).
 */
const statusOf = (raw: string): Effect.Effect<Template.Status> => {
  const upper = raw.toUpperCase()
  if (isStatus(upper)) return Effect.succeed(upper)
  if (upper === "REINSTATED" || upper === "UNARCHIVED" || upper === "LOCKED") return Effect.succeed("APPROVED")
  return Effect.as(Effect.logWarning(`operator reported an unknown template status '${raw}'; recorded as PENDING`), "PENDING")
}

/** The domain category of an operator category; an unknown one is logged and read as MARKETING (the most restricted). */
const categoryOf = (raw: string): Effect.Effect<Template.Category> => {
  const upper = raw.toUpperCase()
  if (isCategory(upper)) return Effect.succeed(upper)
  return Effect.as(Effect.logWarning(`operator reported an unknown template category '${raw}'; recorded as MARKETING`), "MARKETING")
}

const rejectedReasonOf = (raw: string | null | undefined): string | null =>
  raw === null || raw === undefined || raw === "" || raw.toUpperCase() === "NONE" ? null : raw

const unreadable = (what: string, error: unknown): Errors.OperatorUnavailable =>
  new Errors.OperatorUnavailable({ reason: `unreadable ${what} from the operator: ${String(error)}` })

const decode = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decodeEither = Schema.decodeUnknownEither(schema, { errors: "first" })
  return (body: unknown): Effect.Effect<A, Errors.OperatorUnavailable> =>
    Either.match(decodeEither(body), {
      onLeft: (error) => Effect.fail(unreadable(what, error.message)),
      onRight: Effect.succeed
    })
}

/** Whether a refusal of a delete says that no template has this name (§4.1: deleting an unknown name is not an error for us). */
const isTemplateNotFound = (error: Graph.GraphError): boolean =>
  error.httpStatus === 404 ||
  (error.code === 100 && error.subcode === 33) ||
  [error.message, error.userTitle, error.userMsg, error.details].some(
    (text) => text !== undefined && /not\s+(be\s+)?found|does\s*n[o']t\s+exist|doesn't\s+exist|no\s+such\s+template/i.test(text)
  )

// ---------------------------------------------------------------------------------------------
// Requests

/** The JSON body of a send (§3.3, B.2). */
export const sendBody = (message: Operator.OutboundMessage): Record<string, unknown> => {
  const body: Record<string, unknown> = {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: Phone.toWaId(message.to),
    type: message.type
  }
  switch (message.type) {
    case "text":
      body.text =
        message.text.preview_url === undefined ? { body: message.text.body } : { body: message.text.body, preview_url: message.text.preview_url }
      break
    case "template":
      body.template = {
        name: message.template.name,
        language: { code: message.template.language, policy: "deterministic" },
        components:
          message.template.parameters.length > 0
            ? [{ type: "body", parameters: message.template.parameters.map((text) => ({ type: "text", text })) }]
            : []
      }
      break
    case "interactive":
      body.interactive = message.interactive
      break
  }
  if (message.callbackData !== undefined) body.biz_opaque_callback_data = message.callbackData
  return body
}

const trimSlash = (url: string): string => url.replace(/\/+$/, "")

/** A request of the client: method, absolute URL, query, JSON body. */
const request = (
  endpoint: OperatorEndpoint,
  method: Transport.Request["method"],
  url: string,
  options: { readonly query?: Readonly<Record<string, string>>; readonly json?: unknown } = {}
): Transport.Request => ({
  method,
  url: options.query === undefined ? url : `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(options.query).toString()}`,
  headers: options.json === undefined ? headersOf(endpoint) : jsonHeadersOf(endpoint),
  body: options.json === undefined ? undefined : JSON.stringify(options.json)
})

const headerCache = new WeakMap<OperatorEndpoint, { readonly plain: Record<string, string>; readonly json: Record<string, string> }>()
const cachedHeaders = (endpoint: OperatorEndpoint) => {
  let headers = headerCache.get(endpoint)
  if (headers === undefined) {
    const plain = { authorization: `Bearer ${Redacted.value(endpoint.accessToken)}`, accept: "application/json" }
    headers = { plain, json: { ...plain, "content-type": "application/json" } }
    headerCache.set(endpoint, headers)
  }
  return headers
}
const headersOf = (endpoint: OperatorEndpoint) => cachedHeaders(endpoint).plain
const jsonHeadersOf = (endpoint: OperatorEndpoint) => cachedHeaders(endpoint).json

/**
 * Builds the client. Requires a `GraphTransport`. A live account used while `config.live` is
 * absent is a defect (the server must not hand out live accounts it has no credentials for).
 */
export const make = (config: OperatorClientConfig): Effect.Effect<OperatorClient, never, GraphTransport> =>
  Effect.gen(function* () {
    const client = yield* GraphTransport

    const maxRetries = Math.max(0, config.maxRetries ?? DEFAULT_MAX_RETRIES)
    const policyBase = {
      maxRetries,
      budgetMs: Math.max(0, config.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS),
      attemptTimeoutMs: Math.max(1, config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
      baseDelayMs: BASE_DELAY_MS
    }
    /** Sends and creates: a lost answer may hide an accepted request, so only rate limits are retried. */
    const writePolicy: Graph.RetryPolicy = { ...policyBase, transportRetries: 0 }
    /** Sends of a caller that paces and retries by itself (`retryRateLimits: false`): no retry at all. */
    const pacedPolicy: Graph.RetryPolicy = { ...writePolicy, maxRetries: 0 }
    /** Reads, deletes and registration are idempotent. */
    const idempotentPolicy: Graph.RetryPolicy = { ...policyBase, transportRetries: Math.min(READ_TRANSPORT_RETRIES, maxRetries) }

    const endpointFor = (account: Store.OperatorAccount): Effect.Effect<OperatorEndpoint> => {
      if (account.kind === "sandbox") return Effect.succeed(config.sandbox)
      if (config.live !== undefined) return Effect.succeed(config.live)
      return Effect.dieMessage(
        `OperatorClient: account ${account.wabaId} is a live account but no live operator endpoint is configured (OperatorClientConfig.live)`
      )
    }

    const graphUrl = (endpoint: OperatorEndpoint, ...segments: ReadonlyArray<string>): string =>
      [trimSlash(endpoint.baseUrl), endpoint.apiVersion ?? DEFAULT_API_VERSION, ...segments.map(encodeURIComponent)].join("/")

    // Sandbox registration, once per process per phone number id.
    const registered = new Set<string>()
    const registerSandboxAccount = (account: Store.OperatorAccount): Effect.Effect<void, Errors.OperatorUnavailable> =>
      Effect.suspend(() => {
        if (account.kind !== "sandbox" || registered.has(account.phoneNumberId)) return Effect.void
        const endpoint = config.sandbox
        const registration = request(endpoint, "POST", `${trimSlash(endpoint.baseUrl)}/_emulator/accounts`, {
          json: { waba_id: account.wabaId, phone_number_id: account.phoneNumberId, display_phone_number: account.displayPhoneNumber }
        })
        return Graph.run(client, registration, idempotentPolicy).pipe(
          Effect.mapError((failure) => {
            const error = Graph.toUnavailable(failure)
            return new Errors.OperatorUnavailable({
              reason: `sandbox account registration failed: ${error.reason}`,
              retryAfterSeconds: error.retryAfterSeconds
            })
          }),
          Effect.tap(() => Effect.sync(() => registered.add(account.phoneNumberId))),
          Effect.asVoid
        )
      })

    /** The endpoint of `account`, after registering it with the emulator when it is a sandbox account. */
    const prepare = (account: Store.OperatorAccount) =>
      Effect.zipLeft(endpointFor(account), registerSandboxAccount(account))

    const createTemplate = (account: Store.OperatorAccount, data: Template.TemplateData) =>
      Effect.gen(function* () {
        const endpoint = yield* prepare(account)
        const creation = request(endpoint, "POST", graphUrl(endpoint, account.wabaId, "message_templates"), {
          json: { name: data.name, language: data.language, category: data.category, components: data.components }
        })
        const answer = yield* Effect.mapError(Graph.run(client, creation, writePolicy), Graph.toDomainError)
        const created = yield* decode(CreatedTemplateBody, "template creation answer")(answer.body)
        return {
          operatorId: String(created.id),
          status: created.status === undefined ? "PENDING" : yield* statusOf(created.status),
          category: created.category === undefined ? data.category : yield* categoryOf(created.category)
        } satisfies Operator.CreatedTemplate
      }).pipe(Effect.withSpan("OperatorClient.createTemplate", { attributes: { kind: account.kind, wabaId: account.wabaId, name: data.name } }))

    const listTemplates = (account: Store.OperatorAccount) =>
      Effect.gen(function* () {
        const endpoint = yield* prepare(account)
        const listUrl = graphUrl(endpoint, account.wabaId, "message_templates")
        const query = { limit: "100", fields: TEMPLATE_FIELDS }
        const first = request(endpoint, "GET", listUrl, { query })
        const decodePage = decode(TemplatePage, "template list page")
        const states: Array<TemplateRepo.TemplateState> = []
        const seenCursors = new Set<string>()
        let pageRequest: Transport.Request | undefined = first
        for (let page = 0; pageRequest !== undefined; page++) {
          if (page >= MAX_PAGES) {
            return yield* Effect.fail(new Errors.OperatorUnavailable({ reason: `template list did not end after ${MAX_PAGES} pages` }))
          }
          const answer: Graph.GraphSuccess = yield* Effect.mapError(
            Graph.run(client, pageRequest, idempotentPolicy),
            Graph.toUnavailable
          )
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
              rejectedReason: rejectedReasonOf(row.rejected_reason)
            })
          }
          const next: string | undefined = body.paging?.next ?? undefined
          const after: string | undefined = body.paging?.cursors?.after ?? undefined
          if (next === undefined || next === "" || body.data.length === 0) {
            pageRequest = undefined
          } else if (after !== undefined && after !== "") {
            if (seenCursors.has(after)) {
              return yield* Effect.fail(new Errors.OperatorUnavailable({ reason: `template list repeated the cursor '${after}'` }))
            }
            seenCursors.add(after)
            pageRequest = request(endpoint, "GET", listUrl, { query: { ...query, after } })
          } else {
            if (seenCursors.has(next)) {
              return yield* Effect.fail(new Errors.OperatorUnavailable({ reason: "template list repeated its next page" }))
            }
            seenCursors.add(next)
            pageRequest = request(endpoint, "GET", next)
          }
        }
        return states as ReadonlyArray<TemplateRepo.TemplateState>
      }).pipe(Effect.withSpan("OperatorClient.listTemplates", { attributes: { kind: account.kind, wabaId: account.wabaId } }))

    const deleteTemplate = (account: Store.OperatorAccount, name: string) =>
      Effect.gen(function* () {
        const endpoint = yield* prepare(account)
        const deletion = request(endpoint, "DELETE", graphUrl(endpoint, account.wabaId, "message_templates"), { query: { name } })
        yield* Graph.run(client, deletion, idempotentPolicy).pipe(
          Effect.catchTag("Refused", (failure) => (isTemplateNotFound(failure.error) ? Effect.void : Effect.fail(failure))),
          Effect.mapError(Graph.toDomainError)
        )
      }).pipe(Effect.withSpan("OperatorClient.deleteTemplate", { attributes: { kind: account.kind, wabaId: account.wabaId, name } }))

    /**
     * The hot path of a campaign: no span and no generator here (a send costs what its HTTP
     * request costs).
     */
    const sendWith = (endpoint: OperatorEndpoint, account: Store.OperatorAccount, message: Operator.OutboundMessage, policy: Graph.RetryPolicy) =>
      Effect.matchEffect(
        Graph.run(client, request(endpoint, "POST", graphUrl(endpoint, account.phoneNumberId, "messages"), { json: sendBody(message) }), policy),
        {
          onFailure: (failure) => Effect.fail(Graph.toDomainError(failure)),
          onSuccess: (answer) => sentMessage(answer.body)
        }
      )
    const sendMessage = (account: Store.OperatorAccount, message: Operator.OutboundMessage, options?: Operator.SendOptions) =>
      Effect.flatMap(prepare(account), (endpoint) => sendWith(endpoint, account, message, options?.retryRateLimits === false ? pacedPolicy : writePolicy))

    const secrets: ReadonlyArray<readonly [Store.AccountKind, Redacted.Redacted<string>]> =
      config.live === undefined
        ? [["sandbox", config.sandbox.appSecret]]
        : [
            ["live", config.live.appSecret],
            ["sandbox", config.sandbox.appSecret]
          ]

    const verifyWebhookSignature = (rawBody: Uint8Array, signature: string | undefined) =>
      Effect.sync(() => WebhookSignature.matchSignature(rawBody, signature, secrets))

    const verifyHandshake = (mode: string | undefined, token: string | undefined) =>
      WebhookSignature.verifyHandshake(mode, token, config.verifyToken)

    /** The emulator plays the customer: it sends the signed webhook and answers once delivered. */
    const sendInbound: SandboxCustomer.SandboxCustomer["Type"]["sendInbound"] = (account, input) =>
      Effect.gen(function* () {
        yield* registerSandboxAccount(account)
        const endpoint = config.sandbox
        const inbound = request(endpoint, "POST", `${trimSlash(endpoint.baseUrl)}/_emulator/inbound`, {
          json: {
            phone_number_id: account.phoneNumberId,
            from: input.from,
            ...(input.text !== undefined ? { text: input.text } : {}),
            ...(input.profileName !== undefined ? { profile_name: input.profileName } : {}),
            ...(input.message !== undefined ? { message: input.message } : {})
          }
        })
        const answer = yield* Graph.run(client, inbound, writePolicy).pipe(
          Effect.mapError((failure) => {
            const error = Graph.toUnavailable(failure)
            return new Errors.OperatorUnavailable({ reason: `the sandbox could not deliver the inbound message: ${error.reason}` })
          })
        )
        const body = answer.body as { readonly message_id?: unknown } | null
        return { messageId: typeof body?.message_id === "string" ? body.message_id : "" }
      })

    return {
      createTemplate,
      listTemplates,
      deleteTemplate,
      sendMessage,
      verifyWebhookSignature,
      verifyHandshake,
      registerSandboxAccount,
      sendInbound
    } satisfies OperatorClient
  })

/** The `Operator` port over HTTP, and the sandbox's customer side (the emulator). */
export const layer = (
  config: OperatorClientConfig
): Layer.Layer<Operator.Operator | SandboxCustomer.SandboxCustomer, never, GraphTransport> =>
  Layer.effectContext(
    Effect.map(make(config), (client) =>
      Context.make(Operator.Operator, client).pipe(Context.add(SandboxCustomer.SandboxCustomer, { sendInbound: client.sendInbound }))
    )
  )

/**
 * Registers a sandbox account with the emulator through the `Operator` in context, when that
 * service is this package's client (any other implementation has nothing to register).
 */
export const registerSandboxAccount = (account: Store.OperatorAccount): Effect.Effect<void, Errors.OperatorUnavailable, Operator.Operator> =>
  Effect.flatMap(Operator.Operator, (operator) =>
    "registerSandboxAccount" in operator && typeof operator.registerSandboxAccount === "function"
      ? (operator as OperatorClient).registerSandboxAccount(account)
      : Effect.void
  )
