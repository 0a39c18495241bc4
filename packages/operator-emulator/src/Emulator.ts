/**
 * The emulator's HTTP server: Graph routes under any `/vNN.N/` prefix (or none), in the
 * operator's wire format, and the sandbox/control routes under `/_emulator/` (no Graph auth).
 *
 * Graph routes:
 * - `POST /{phone_number_id}/messages`                      send (or mark as read)
 * - `POST|GET|DELETE /{waba_id}/message_templates`          create, list, delete by name
 * - `GET /{waba_id}/phone_numbers`, `GET /{id}`             read a WABA, phone number or template
 *
 * Control routes: `POST accounts | inbound | templates/status | webhook | config | reset`,
 * `GET accounts | messages | stats | config | health`.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Accounts } from "./Accounts.js"
import { ConfigError, applyConfigPatch, configFromOptions } from "./Config.js"
import type { EmulatorConfig, EmulatorOptions } from "./Config.js"
import { GraphError, GraphErrors } from "./GraphError.js"
import { newRequestId, newTraceId, newWamid, normalizePhone } from "./Ids.js"
import { CustomerWindows, Messaging, inboundValue } from "./Messaging.js"
import { RateLimiter } from "./RateLimits.js"
import { StateFile, loadState } from "./State.js"
import type { PersistedState } from "./State.js"
import { TemplateStore, statusUpdateValue, templateEvents, templateView } from "./Templates.js"
import type { TemplateStatus } from "./Templates.js"
import { StatusBatcher, WebhookClient, webhookEnvelope } from "./Webhooks.js"
import type { SignatureMode } from "./Webhooks.js"

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

const MAX_BODY_BYTES = 4 * 1024 * 1024
const VERSION = /^v\d+(?:\.\d+)?$/

const JSON_HEADERS = { "content-type": "application/json; charset=UTF-8" }
const APP_USAGE = JSON.stringify({ call_count: 1, total_cputime: 1, total_time: 1 })

/** Raised for malformed control requests: answered `{error:{message}}` with the status. */
class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(GraphErrors.invalidParameter(`The request body exceeds ${MAX_BODY_BYTES} bytes.`))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** Parses a Graph request body: JSON, or form-encoded with JSON-looking values decoded. */
const parseGraphBody = (req: http.IncomingMessage, raw: Buffer): unknown => {
  if (raw.length === 0) return {}
  const text = raw.toString("utf8")
  const type = req.headers["content-type"] ?? ""
  if (type.includes("application/x-www-form-urlencoded") && !text.trimStart().startsWith("{")) {
    const body: Record<string, unknown> = {}
    for (const [key, value] of new URLSearchParams(text)) {
      const trimmed = value.trim()
      if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
        try {
          body[key] = JSON.parse(trimmed)
          continue
        } catch {
          // keep the string
        }
      }
      body[key] = value
    }
    return body
  }
  try {
    return JSON.parse(text)
  } catch {
    throw GraphErrors.invalidParameter("The request body is not valid JSON.")
  }
}

const parseControlBody = (raw: Buffer): Record<string, unknown> => {
  if (raw.length === 0) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw.toString("utf8"))
  } catch {
    throw new ControlError(400, "the request body is not valid JSON")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ControlError(400, "the request body must be a JSON object")
  }
  return parsed as Record<string, unknown>
}

const requiredString = (body: Record<string, unknown>, key: string): string => {
  const value = body[key]
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  if (typeof value !== "string" || value.length === 0) throw new ControlError(400, `${key} is required (a string)`)
  return value
}

const optionalString = (body: Record<string, unknown>, key: string): string | undefined => {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  if (typeof value !== "string") throw new ControlError(400, `${key} must be a string`)
  return value
}

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

class EmulatorServer implements Emulator {
  url = ""
  port = 0
  private config: EmulatorConfig
  private readonly now = monotonicClock()
  private readonly log: (line: string) => void
  private readonly server: http.Server
  private readonly accounts = new Accounts()
  private readonly windows = new CustomerWindows()
  private readonly limiter = new RateLimiter()
  private readonly webhooks: WebhookClient
  private readonly batcher: StatusBatcher
  private readonly templates: TemplateStore
  private readonly messaging: Messaging
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
      }
    })
    this.messaging = new Messaging({
      accounts: this.accounts,
      templates: this.templates,
      windows: this.windows,
      limiter: this.limiter,
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

  setWebhookUrl(url: string): void {
    this.webhooks.setUrl(url)
  }

  configure(patch: Partial<EmulatorConfig>): void {
    this.config = applyConfigPatch(this.config, patch)
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
      const match = /^Bearer\s+(.+)$/i.exec(header.trim())
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
      if (id === undefined || segments.length > 2) throw GraphErrors.unknownPath(path)
      const method = req.method ?? "GET"
      let status = 200
      let body: unknown
      if (edge === "messages" && method === "POST") {
        const answer = this.messaging.send(id, parseGraphBody(req, raw))
        status = answer.httpStatus
        body = answer.body
      } else if (edge === "message_templates") {
        body = this.messageTemplates(method, id, version, query, () => parseGraphBody(req, raw))
      } else if (edge === "phone_numbers" && method === "GET") {
        if (this.accounts.phoneNumber(id) !== undefined) throw this.nonexistingField("phone_numbers", id)
        this.accounts.ensureWaba(id)
        body = { data: this.accounts.phoneNumbersOf(id).map((phone) => this.phoneView(phone.id)) }
      } else if (edge === undefined && method === "GET") {
        body = this.node(id)
      } else if (edge === undefined) {
        throw GraphErrors.unknownObjectGet(id, method)
      } else {
        throw GraphErrors.unknownPath(`/${edge}`)
      }
      this.respond(res, status, body, this.graphHeaders(traceId, version, id, usageType))
    } catch (error) {
      const graphError =
        error instanceof GraphError
          ? error
          : new GraphError(500, 1, "An unknown error occurred", {
              isTransient: true,
              details: error instanceof Error ? error.message : String(error)
            })
      if (!(error instanceof GraphError)) this.log(`graph request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      this.respond(res, graphError.httpStatus, graphError.toBody(traceId), this.graphHeaders(traceId, version, id, usageType))
    }
  }

  private nonexistingField(field: string, id: string): GraphError {
    return GraphErrors.invalidParameter(`Tried accessing nonexisting field (${field}) on node type (WhatsAppBusinessPhoneNumber) with id ${id}.`)
  }

  private messageTemplates(method: string, wabaId: string, version: string, query: URLSearchParams, body: () => unknown): unknown {
    if (this.accounts.phoneNumber(wabaId) !== undefined) throw this.nonexistingField("message_templates", wabaId)
    this.accounts.ensureWaba(wabaId)
    switch (method) {
      case "POST": {
        const template = this.templates.create(wabaId, body(), this.config.templateReviewDelayMs)
        return { id: template.id, status: template.status, category: template.category }
      }
      case "GET":
        return this.templates.list(
          wabaId,
          {
            limit: query.get("limit"),
            after: query.get("after"),
            before: query.get("before"),
            status: query.get("status"),
            name: query.get("name"),
            category: query.get("category"),
            language: query.get("language")
          },
          (cursor) => {
            const next = new URLSearchParams(query)
            next.delete("after")
            next.delete("before")
            if (cursor.after !== undefined) next.set("after", cursor.after)
            if (cursor.before !== undefined) next.set("before", cursor.before)
            if (!next.has("limit")) next.set("limit", "25")
            return `${this.url}/${version}/${wabaId}/message_templates?${next.toString()}`
          }
        )
      case "DELETE": {
        const name = query.get("name")
        if (name === null || name.length === 0) throw GraphErrors.invalidParameter("The parameter name is required.")
        const hsmId = query.get("hsm_id") ?? undefined
        if (this.templates.deleteByName(wabaId, name, hsmId) === 0) {
          throw new GraphError(400, 100, `Message template "${name}" not found`, {
            userTitle: "Message Template Not Found",
            userMsg: `Message template "${name}" could not be found.`,
            details: `Message template "${name}" not found`
          })
        }
        return { success: true }
      }
      default:
        throw GraphErrors.unknownPath("/message_templates")
    }
  }

  private phoneView(id: string): Record<string, unknown> {
    const phone = this.accounts.phoneNumber(id)!
    return {
      id: phone.id,
      display_phone_number: phone.displayPhoneNumber,
      verified_name: phone.verifiedName,
      quality_rating: "GREEN",
      code_verification_status: "VERIFIED",
      platform_type: "CLOUD_API",
      throughput: { level: this.config.messagesPerSecond >= 1000 ? "HIGH" : "STANDARD" }
    }
  }

  /** `GET /{id}`: a template, phone number or WABA. */
  private node(id: string): unknown {
    const template = this.templates.get(id)
    if (template !== undefined) return templateView(template)
    if (this.accounts.phoneNumber(id) !== undefined) return this.phoneView(id)
    if (this.accounts.hasWaba(id)) {
      return { id, name: `Sandbox WABA ${id}`, currency: "USD", timezone_id: "1", message_template_namespace: `ns_${id}` }
    }
    throw GraphErrors.unknownObjectGet(id, "GET")
  }

  // ------------------------------------------------------------------------------ control API

  private async control(req: http.IncomingMessage, res: http.ServerResponse, route: string, query: URLSearchParams): Promise<void> {
    try {
      const raw = await readBody(req)
      const method = req.method ?? "GET"
      const key = `${method} ${route.replace(/\/+$/, "")}`
      switch (key) {
        case "GET /health":
          return this.respond(res, 200, { ok: true })
        case "POST /accounts":
          return this.respond(res, 200, this.upsertAccount(parseControlBody(raw)))
        case "GET /accounts":
          return this.respond(res, 200, { data: this.accounts.snapshot().phoneNumbers })
        case "POST /inbound": {
          const answer = await this.inbound(parseControlBody(raw))
          return this.respond(res, answer.status, answer.body)
        }
        case "POST /templates/status":
          return this.respond(res, 200, this.templateStatus(parseControlBody(raw)))
        case "POST /webhook": {
          const answer = await this.forward(parseControlBody(raw))
          return this.respond(res, answer.status, answer.body)
        }
        case "GET /messages":
          return this.respond(res, 200, {
            data: this.messaging.messages(query.get("phone_number_id") ?? undefined, query.get("to") ?? undefined)
          })
        case "GET /stats":
          return this.respond(res, 200, this.messaging.stats(query.get("phone_number_id") ?? undefined))
        case "GET /config":
          return this.respond(res, 200, { config: this.config, webhookUrl: this.webhooks.url ?? null })
        case "POST /config": {
          const { webhookUrl, ...patch } = parseControlBody(raw)
          if (webhookUrl !== undefined) {
            if (typeof webhookUrl !== "string") throw new ControlError(400, "webhookUrl must be a string")
            this.setWebhookUrl(webhookUrl)
          }
          this.config = applyConfigPatch(this.config, patch)
          return this.respond(res, 200, { ok: true, config: this.config })
        }
        case "POST /reset":
          this.messaging.reset()
          this.limiter.clear()
          this.batcher.clear()
          return this.respond(res, 200, { ok: true })
        default:
          throw new ControlError(404, `no emulator route ${method} /_emulator${route}`)
      }
    } catch (error) {
      if (error instanceof ControlError) return this.respond(res, error.status, { error: { message: error.message } })
      if (error instanceof ConfigError) return this.respond(res, 400, { error: { message: error.message } })
      if (error instanceof TypeError && /URL/i.test(error.message)) return this.respond(res, 400, { error: { message: error.message } })
      throw error
    }
  }

  private upsertAccount(body: Record<string, unknown>): unknown {
    const wabaId = requiredString(body, "waba_id")
    const phoneNumberId = requiredString(body, "phone_number_id")
    const display = optionalString(body, "display_phone_number") ?? "15550000000"
    this.accounts.upsertPhoneNumber({
      id: phoneNumberId,
      wabaId,
      displayPhoneNumber: display.replace(/^\+/, ""),
      verifiedName: optionalString(body, "verified_name") ?? "Switchboard Sandbox"
    })
    this.stateFile?.schedule()
    return { ok: true }
  }

  /** A simulated user writes to a business number: opens the window, then a synchronous signed webhook. */
  private async inbound(body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    const phoneNumberId = requiredString(body, "phone_number_id")
    const phone = this.accounts.phoneNumber(phoneNumberId)
    if (phone === undefined) throw new ControlError(404, `phone number ${phoneNumberId} is not registered (POST /_emulator/accounts)`)
    const from = normalizePhone(requiredString(body, "from"))
    if (from === undefined) throw new ControlError(400, "from must be a phone number (digits, optional leading +)")
    const text = optionalString(body, "text")
    const message = body.message
    if (message !== undefined && (typeof message !== "object" || message === null || Array.isArray(message))) {
      throw new ControlError(400, "message must be an object")
    }
    if (message !== undefined && typeof (message as Record<string, unknown>).type !== "string") {
      throw new ControlError(400, "message.type is required")
    }
    if (message === undefined && text === undefined) throw new ControlError(400, "text or message is required")
    const now = this.now()
    const messageId = newWamid()
    this.windows.open(phoneNumberId, from, now)
    this.stateFile?.schedule()
    const value = inboundValue(
      phone,
      from,
      optionalString(body, "profile_name") ?? "Sandbox User",
      message === undefined ? { text } : { message: message as Record<string, unknown> },
      messageId,
      now
    )
    const envelope = webhookEnvelope(phone.wabaId, "messages", value, now)
    try {
      const result = await this.webhooks.post(JSON.stringify(envelope))
      if (result.status >= 200 && result.status < 300) {
        return { status: 200, body: { message_id: messageId, delivered: true, status: result.status } }
      }
      return {
        status: 502,
        body: { message_id: messageId, delivered: false, status: result.status, error: result.body || `HTTP ${result.status}` }
      }
    } catch (error) {
      return {
        status: 502,
        body: { message_id: messageId, delivered: false, status: null, error: error instanceof Error ? error.message : String(error) }
      }
    }
  }

  private templateStatus(body: Record<string, unknown>): unknown {
    const wabaId = requiredString(body, "waba_id")
    const name = requiredString(body, "name")
    const language = optionalString(body, "language")
    const event = requiredString(body, "event").toUpperCase() as TemplateStatus
    if (!templateEvents.includes(event)) throw new ControlError(400, `event must be one of ${templateEvents.join(", ")}`)
    const changed = this.templates.setStatus(wabaId, name, language, event, optionalString(body, "reason"))
    if (changed.length === 0) {
      throw new ControlError(404, `no template ${name}${language === undefined ? "" : ` in ${language}`} in WABA ${wabaId}`)
    }
    return { ok: true, templates: changed.map((t) => ({ id: t.id, name: t.name, language: t.language, status: t.status })) }
  }

  /** Posts an arbitrary payload (signed as asked) and reports the receiver's answer. */
  private async forward(body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    const payload = body.payload
    if (typeof payload !== "object" || payload === null) throw new ControlError(400, "payload must be an object")
    const mode = (body.signature ?? "valid") as SignatureMode
    if (mode !== "valid" && mode !== "invalid" && mode !== "none") throw new ControlError(400, "signature must be valid, invalid or none")
    try {
      const result = await this.webhooks.post(JSON.stringify(payload), mode)
      return {
        status: 200,
        body: { delivered: result.status >= 200 && result.status < 300, status: result.status, body: result.body }
      }
    } catch (error) {
      return { status: 502, body: { delivered: false, status: null, error: error instanceof Error ? error.message : String(error) } }
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
