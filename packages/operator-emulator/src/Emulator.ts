/**
 * The emulator's HTTP server: Graph routes under any `/vNN.N/` prefix (or none), in the
 * operator's wire format, and the sandbox/control routes under `/_emulator/` (no Graph auth).
 * Both are routed by tables of edges (method + path pattern -> handler, see `Router.ts`),
 * one file per module in `routes/`:
 *
 * - `MessageRoutes`:  `POST /{phone_number_id}/messages`; control `POST inbound`, `GET messages | stats`
 * - `TemplateRoutes`: `POST|GET|DELETE /{waba_id}/message_templates`; control `POST templates/status | quality | category`
 * - `FlowRoutes`:     `POST|GET /{waba_id}/flows`, `POST /{flow_id}/publish | deprecate`; control `POST flows`, `POST flows/status`, `POST flows/alert`
 * - `FlowExchange`:   control `POST flows/data-exchange` (the operator calls a flow's endpoint, encrypted and signed)
 * - `CatalogRoutes`: `POST|GET /{business_id}/owned_product_catalogs`, `GET|POST|DELETE /{catalog_id}`, `POST|GET|DELETE /{waba_id}/product_catalogs`; control `POST catalogs/share`
 * - `CommerceRoutes`: `GET|POST /{phone_number_id}/whatsapp_commerce_settings`
 * - `OrderRoutes`:   `POST /{order_id}/acknowledge_order | refunds | cancellations | shipments | update_shipment` (unknown ids)
 * - `Payments`:      payments after `order_details` sends by the number rules; control `POST payments`
 * - `AccountRoutes`:  `GET /{waba_id}/phone_numbers`, `GET /{id}` (with `health_status`); control `POST|GET accounts`, `POST node-health`
 * - `WebhookRoutes`:  control `POST webhook`
 * - `CallRoutes`:     `GET /{phone_number_id}/call_permissions`, `POST /{phone_number_id}/calls`, the call-permission-request check on `POST /{phone_number_id}/messages`; control `POST call-permission-replies | calls | calls/config`
 * - `AdminRoutes`:    control `GET health`, `GET|POST config`, `POST reset`
 *
 * A module of the operator that the emulator learns (commerce, calls, flows) adds its file
 * there and its edges to the tables below.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Accounts } from "./Accounts.js"
import { ConfigError, applyConfigPatch, configFromOptions } from "./Config.js"
import type { EmulatorConfig, EmulatorOptions } from "./Config.js"
import { GraphError, GraphErrors } from "./GraphError.js"
import { newRequestId, newTraceId } from "./Ids.js"
import { CustomerWindows } from "./Customers.js"
import { CatalogStore } from "./Catalogs.js"
import { ItemsBatches } from "./ItemsBatch.js"
import { FlowStore, statusChangeValue } from "./Flows.js"
import { Messaging } from "./Messaging.js"
import { MediaStore } from "./MediaStore.js"
import { RateLimiter } from "./RateLimits.js"
import { ControlError, parseControlBody, parseGraphBody, readBody } from "./Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, router } from "./Router.js"
import { MessagingLimits } from "./MessagingLimits.js"
import * as LimitRoutes from "./routes/LimitRoutes.js"
import * as AccountRoutes from "./routes/AccountRoutes.js"
import * as AdminRoutes from "./routes/AdminRoutes.js"
import * as CallRoutes from "./routes/CallRoutes.js"
import * as MediaRoutes from "./routes/MediaRoutes.js"
import * as CatalogRoutes from "./routes/CatalogRoutes.js"
import * as CommerceRoutes from "./routes/CommerceRoutes.js"
import * as FlowRoutes from "./routes/FlowRoutes.js"
import * as FlowExchange from "./FlowExchange.js"
import * as MessageRoutes from "./routes/MessageRoutes.js"
import * as OrderRoutes from "./routes/OrderRoutes.js"
import * as Payments from "./Payments.js"
import * as TemplateRoutes from "./routes/TemplateRoutes.js"
import * as WebhookRoutes from "./routes/WebhookRoutes.js"
import { StateFile, loadState } from "./State.js"
import type { PersistedState } from "./State.js"
import { TemplateStore, statusUpdateValue } from "./Templates.js"
import { StatusBatcher, WebhookClient, webhookEnvelope } from "./Webhooks.js"

/** The Graph API's edges, matched after the version segment; the first match answers. Exported for the tests that walk every edge. */
export const GRAPH_EDGES: ReadonlyArray<GraphEdge> = [
  ...MediaRoutes.graphEdges,
  ...CallRoutes.graphEdges,
  ...MessageRoutes.graphEdges,
  ...Payments.graphEdges,
  ...TemplateRoutes.graphEdges,
  ...FlowRoutes.graphEdges,
  ...CommerceRoutes.graphEdges,
  ...OrderRoutes.graphEdges,
  ...CatalogRoutes.graphEdges,
  ...AccountRoutes.graphEdges
]

/** The control API's edges, matched after `/_emulator`. */
const CONTROL_EDGES: ReadonlyArray<ControlEdge> = [
  ...AdminRoutes.controlEdges,
  ...AccountRoutes.controlEdges,
  ...LimitRoutes.controlEdges,
  ...MessageRoutes.controlEdges,
  ...TemplateRoutes.controlEdges,
  ...FlowRoutes.controlEdges,
  ...FlowExchange.controlEdges,
  ...WebhookRoutes.controlEdges,
  ...Payments.controlEdges,
  ...CatalogRoutes.controlEdges,
  ...CallRoutes.controlEdges,
  ...MediaRoutes.controlEdges
]

const graphRouter = router(GRAPH_EDGES)
const controlRouter = router(CONTROL_EDGES)

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:4010`; Graph paths are under `${url}/v23.0/...`. */
  readonly url: string
  readonly port: number
  /** Changes where webhooks are POSTed. */
  setWebhookUrl(url: string): void
  /** Applies a configuration patch (validated; throws `ConfigError`). */
  configure(patch: Partial<EmulatorConfig>): void
  /** Stops timers and retries, closes the server (idle keep-alive sockets at once) and flushes the state file. */
  close(): Promise<void>
}

const VERSION = /^v\d+(?:\.\d+)?$/

const JSON_HEADERS = { "content-type": "application/json; charset=UTF-8" }
const APP_USAGE = JSON.stringify({ call_count: 1, total_cputime: 1, total_time: 1 })

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A clock that never goes back, so accepted-send times are ordered. */
const monotonicClock = (): (() => number) => {
  let last = 0
  return () => {
    const now = Date.now()
    if (now > last) last = now
    return last
  }
}

class EmulatorServer implements Emulator, EmulatorContext {
  url = ""
  port = 0
  config: EmulatorConfig
  readonly now = monotonicClock()
  private readonly log: (line: string) => void
  private readonly server: http.Server
  readonly accounts = new Accounts()
  readonly windows = new CustomerWindows()
  readonly limiter = new RateLimiter()
  readonly limits = new MessagingLimits()
  readonly webhooks: WebhookClient
  readonly batcher: StatusBatcher
  readonly templates: TemplateStore
  readonly flows: FlowStore
  readonly catalogs: CatalogStore
  readonly items: ItemsBatches
  readonly messaging: Messaging
  readonly media: MediaStore = new MediaStore(() => this.now())
  private readonly stateFile: StateFile | undefined
  private closing: Promise<void> | undefined

  constructor(private readonly options: EmulatorOptions) {
    if (typeof options.appSecret !== "string" || options.appSecret.length === 0) {
      throw new Error("startEmulator: appSecret is required")
    }
    this.config = configFromOptions(options)
    this.log = options.log ?? (() => {})
    this.webhooks = new WebhookClient(options.appSecret, options.webhookUrl, this.log)
    this.batcher = new StatusBatcher(this.webhooks, () => this.config, this.now)
    this.templates = new TemplateStore({
      now: this.now,
      onChange: () => this.stateFile?.schedule(),
      onStatus: (template) => {
        const now = this.now()
        this.webhooks.deliver(
          webhookEnvelope(template.wabaId, "message_template_status_update", statusUpdateValue(template, now), now),
          `template ${template.name}/${template.language} ${template.status}`
        )
      },
      onNotice: (template, field, value) => {
        this.webhooks.deliver(webhookEnvelope(template.wabaId, field, value, this.now()), `template ${template.name}/${template.language} ${field}`)
      }
    })
    this.flows = new FlowStore(
      this.now,
      () => this.stateFile?.schedule(),
      (flow, old) => {
        const now = this.now()
        this.webhooks.deliver(webhookEnvelope(flow.wabaId, "flows", statusChangeValue(flow, old), now), `flow ${flow.id} ${flow.status}`)
      }
    )
    this.catalogs = new CatalogStore(this.now, () => this.stateFile?.schedule())
    this.items = new ItemsBatches(this.now)
    this.messaging = new Messaging({
      media: this.media,
      accounts: this.accounts,
      templates: this.templates,
      flows: this.flows,
      catalogs: this.catalogs,
      items: this.items,
      windows: this.windows,
      limiter: this.limiter,
      limits: this.limits,
      batcher: this.batcher,
      config: () => this.config,
      now: this.now,
      random: Math.random
    })
    if (options.stateFile !== undefined) {
      this.stateFile = new StateFile(options.stateFile, () => this.snapshot(), this.log)
      const state = loadState(options.stateFile)
      if (state !== undefined) {
        this.accounts.restore(state.accounts)
        this.windows.restore(state.customerWindows)
        this.templates.restore(state.templates)
        if (state.flows !== undefined) this.flows.restore(state.flows)
        if (state.catalogs !== undefined) this.catalogs.restore(state.catalogs)
      }
    }
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.log(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
        if (!res.headersSent) res.writeHead(500, JSON_HEADERS)
        res.end()
      })
    })
    this.server.keepAliveTimeout = 30_000
    this.server.headersTimeout = 35_000
  }

  private snapshot(): PersistedState {
    return {
      version: 1,
      accounts: this.accounts.snapshot(),
      templates: this.templates.snapshot(),
      flows: this.flows.snapshot(),
      catalogs: this.catalogs.snapshot(),
      customerWindows: this.windows.snapshot(this.now())
    }
  }

  async listen(): Promise<void> {
    const host = this.options.host ?? "127.0.0.1"
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject)
      this.server.listen(this.options.port ?? 0, host, () => {
        this.server.off("error", reject)
        resolve()
      })
    })
    this.port = (this.server.address() as AddressInfo).port
    this.url = `http://${host.includes(":") ? `[${host}]` : host}:${this.port}`
  }

  get appSecret(): string {
    return this.options.appSecret
  }

  setWebhookUrl(url: string): void {
    this.webhooks.setUrl(url)
  }

  configure(patch: Partial<EmulatorConfig> | Record<string, unknown>): void {
    this.config = applyConfigPatch(this.config, patch)
  }

  persist(): void {
    this.stateFile?.schedule()
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.templates.close()
      this.messaging.close()
      this.batcher.clear()
      this.webhooks.close()
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve())
        this.server.closeIdleConnections()
        setTimeout(() => this.server.closeAllConnections(), 1000).unref()
      })
      this.stateFile?.flush()
    })()
    return this.closing
  }

  // -------------------------------------------------------------------------------------------

  private respond(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = JSON_HEADERS): void {
    if (res.headersSent) return
    const text = JSON.stringify(body)
    res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(text) })
    res.end(text)
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = req.url ?? "/"
    const mark = raw.indexOf("?")
    const path = mark === -1 ? raw : raw.slice(0, mark)
    const query = new URLSearchParams(mark === -1 ? "" : raw.slice(mark + 1))
    if (path === "/_emulator" || path.startsWith("/_emulator/")) return this.control(req, res, path.slice("/_emulator".length), query)
    return this.graph(req, res, path, query)
  }

  // ------------------------------------------------------------------------------ Graph API

  private graphHeaders(traceId: string, version: string, objectId: string | undefined, usageType: string): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {
      ...JSON_HEADERS,
      "x-fb-trace-id": traceId,
      "x-fb-request-id": newRequestId(),
      "x-fb-rev": "1000000",
      "facebook-api-version": version,
      "x-app-usage": APP_USAGE
    }
    if (objectId !== undefined) {
      const used = this.limiter.usage(objectId, this.now())
      const callCount = Math.min(100, Math.round((used / this.config.messagesPerSecond) * 100))
      headers["x-business-use-case-usage"] = JSON.stringify({
        [objectId]: [{ type: usageType, call_count: callCount, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: 0 }]
      })
    }
    return headers
  }

  private authorize(req: http.IncomingMessage, query: URLSearchParams): void {
    const header = req.headers.authorization
    let token: string | undefined
    if (header !== undefined) {
      const match = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(header.trim())
      token = match?.[1]?.trim()
    }
    token ??= query.get("access_token") ?? undefined
    if (token === undefined || token.length === 0) throw GraphErrors.invalidToken("An access token is required to request this resource.")
    const expected = this.options.accessToken
    if (expected !== undefined && token !== expected) throw GraphErrors.invalidToken("The access token could not be decrypted.")
  }

  private async graph(req: http.IncomingMessage, res: http.ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const traceId = newTraceId()
    const segments = path.split("/").filter((segment) => segment.length > 0)
    const version = segments.length > 0 && VERSION.test(segments[0]) ? segments.shift()! : "v23.0"
    const [id, edge] = segments
    const usageType = edge === "messages" ? "whatsapp" : "whatsapp_business_management"
    try {
      const raw = await readBody(req)
      if (this.config.latencyMs > 0) await sleep(this.config.latencyMs)
      this.authorize(req, query)
      const method = req.method ?? "GET"
      const found = graphRouter.find(method, segments)
      if (found === undefined) {
        // no edge: the operator's answers for an unknown path, method or object
        if (segments.length === 1) throw GraphErrors.unknownObjectGet(id, method)
        throw segments.length === 2 ? GraphErrors.unknownPath(`/${edge}`) : GraphErrors.unknownPath(path)
      }
      const answered = found.edge.handle(this, {
        method,
        params: found.params,
        query,
        version,
        body: () => parseGraphBody(req, raw),
        raw,
        headers: req.headers
      })
      const answer = answered instanceof Promise ? await answered : answered
      this.respond(res, answer.status ?? 200, answer.body, this.graphHeaders(traceId, version, id, usageType))
    } catch (error) {
      // a missing or malformed parameter read with the shared request helpers is the Graph's error 100
      const graphError =
        error instanceof GraphError
          ? error
          : error instanceof ControlError
            ? GraphErrors.invalidParameter(`(#100) ${error.message}`)
            : GraphErrors.unknown(error instanceof Error ? error.message : String(error))
      if (!(error instanceof GraphError) && !(error instanceof ControlError))
        this.log(`graph request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      this.respond(res, graphError.httpStatus, graphError.toBody(traceId), {
        ...this.graphHeaders(traceId, version, id, usageType),
        ...graphError.extra.headers
      })
    }
  }

  // ------------------------------------------------------------------------------ control API

  private async control(req: http.IncomingMessage, res: http.ServerResponse, route: string, query: URLSearchParams): Promise<void> {
    try {
      const raw = await readBody(req)
      const method = req.method ?? "GET"
      const found = controlRouter.find(method, route.replace(/\/+$/, "").split("/").slice(1))
      if (found === undefined) throw new ControlError(404, `no emulator route ${method} /_emulator${route}`)
      const answer = await found.edge.handle(this, { method, params: found.params, query, body: () => parseControlBody(raw) })
      return this.respond(res, answer.status ?? 200, answer.body)
    } catch (error) {
      if (error instanceof ControlError) return this.respond(res, error.status, { error: { message: error.message } })
      if (error instanceof ConfigError) return this.respond(res, 400, { error: { message: error.message } })
      if (error instanceof TypeError && /URL/i.test(error.message)) return this.respond(res, 400, { error: { message: error.message } })
      throw error
    }
  }
}

/**
 * Starts an emulator listening on `options.port` (a free port by default), after loading the
 * state file if one is given. Resolves once it accepts connections.
 */
export const startEmulator = async (options: EmulatorOptions): Promise<Emulator> => {
  const emulator = new EmulatorServer(options)
  await emulator.listen()
  return emulator
}
