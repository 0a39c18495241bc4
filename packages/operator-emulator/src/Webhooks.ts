/**
 * Webhook delivery to the business (GRAPH_API.md §2): the envelope, the `X-Hub-Signature-256`
 * signature over the exact body bytes, keep-alive POSTs with exponential back-off retries, and
 * per-number batching of message statuses.
 */
import { createHmac } from "node:crypto"
import * as http from "node:http"
import * as https from "node:https"
import type { EmulatorConfig } from "./Config.js"
import type { PhoneNumber } from "./Accounts.js"

/** Delivery attempts of one webhook before it is dropped. */
export const MAX_ATTEMPTS = 8
/** Back-off before the second attempt; doubles each time. */
export const FIRST_RETRY_MS = 100
/** Background webhooks held while no URL is configured; older ones beyond this are dropped. */
export const MAX_HELD_WITHOUT_URL = 10_000
/** A receiver that has not answered after this long counts as failed. */
export const REQUEST_TIMEOUT_MS = 10_000

/** `sha256=<hex HMAC-SHA256 of body keyed with appSecret>`: the `X-Hub-Signature-256` header value. */
export const signWebhook = (appSecret: string, body: string | Buffer): string =>
  `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`

/** How `WebhookClient.post` signs: correctly, with a wrong key, or not at all. */
export type SignatureMode = "valid" | "invalid" | "none"

/** The `{object:"whatsapp_business_account", entry:[{id, time, changes:[{field, value}]}]}` envelope (§2.4). */
export const webhookEnvelope = (wabaId: string, field: string, value: unknown, now: number): Record<string, unknown> => ({
  object: "whatsapp_business_account",
  entry: [{ id: wabaId, time: Math.floor(now / 1000), changes: [{ field, value }] }]
})

/** `value.metadata` of message webhooks. */
export const phoneMetadata = (phone: PhoneNumber) => ({
  display_phone_number: phone.displayPhoneNumber,
  phone_number_id: phone.id
})

/** The receiver's answer to one POST. */
export interface DeliveryResult {
  readonly status: number
  readonly body: string
}

/** POSTs signed webhooks to the configured URL over keep-alive connections. */
export class WebhookClient {
  private target: URL | undefined
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 })
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 })
  private readonly retryTimers = new Set<NodeJS.Timeout>()
  private held: Array<{ readonly body: string; readonly label: string }> = []
  private closed = false

  constructor(
    private readonly appSecret: string,
    url: string | undefined,
    private readonly log: (line: string) => void
  ) {
    if (url !== undefined) this.setUrl(url)
  }

  /** Changes where webhooks go (validated as an http(s) URL); background webhooks held until now are sent. */
  setUrl(url: string): void {
    const target = new URL(url)
    if (target.protocol !== "http:" && target.protocol !== "https:") throw new TypeError(`webhook URL must be http(s): ${url}`)
    this.target = target
    const held = this.held
    this.held = []
    for (const { body, label } of held) this.attempt(body, label, 1)
  }

  get url(): string | undefined {
    return this.target?.href
  }

  /**
   * One POST of `body`, signed as `mode` says. Resolves with the receiver's status (any status);
   * rejects on a network error, a timeout, or when no URL is configured.
   */
  post(body: string, mode: SignatureMode = "valid"): Promise<DeliveryResult> {
    const target = this.target
    if (target === undefined) return Promise.reject(new Error("no webhook URL configured"))
    if (this.closed) return Promise.reject(new Error("emulator closed"))
    const bytes = Buffer.from(body, "utf8")
    const headers: http.OutgoingHttpHeaders = {
      "content-type": "application/json",
      "content-length": bytes.length,
      "user-agent": "facebookexternalua"
    }
    if (mode === "valid") headers["x-hub-signature-256"] = signWebhook(this.appSecret, bytes)
    if (mode === "invalid") headers["x-hub-signature-256"] = signWebhook(`not-${this.appSecret}`, bytes)
    const secure = target.protocol === "https:"
    const request = secure ? https.request : http.request
    return new Promise<DeliveryResult>((resolve, reject) => {
      const req = request(
        target,
        { method: "POST", headers, agent: secure ? this.httpsAgent : this.httpAgent, timeout: REQUEST_TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8").slice(0, 4096) }))
          res.on("error", reject)
        }
      )
      req.on("timeout", () => req.destroy(new Error(`webhook receiver did not answer within ${REQUEST_TIMEOUT_MS} ms`)))
      req.on("error", reject)
      req.end(bytes)
    })
  }

  /**
   * Delivers an envelope in the background: retried on a network error or a non-2xx answer
   * after 100 ms, 200 ms, 400 ms, ... up to `MAX_ATTEMPTS` attempts, then dropped and logged.
   * While no URL is configured, envelopes are held (at most `MAX_HELD_WITHOUT_URL`) until one is.
   */
  deliver(envelope: unknown, label: string): void {
    this.attempt(JSON.stringify(envelope), label, 1)
  }

  private attempt(body: string, label: string, attempt: number): void {
    if (this.closed) return
    if (this.target === undefined) {
      this.held.push({ body, label })
      if (this.held.length > MAX_HELD_WITHOUT_URL) {
        const dropped = this.held.shift()!
        this.log(`webhook dropped, no webhook URL configured and ${MAX_HELD_WITHOUT_URL} already held: ${dropped.label}`)
      }
      return
    }
    const retry = (why: string) => {
      if (this.closed) return
      if (attempt >= MAX_ATTEMPTS) {
        this.log(`webhook dropped after ${attempt} attempts (${why}): ${label}`)
        return
      }
      const delay = FIRST_RETRY_MS * 2 ** (attempt - 1)
      this.log(`webhook attempt ${attempt} failed (${why}), retrying in ${delay} ms: ${label}`)
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer)
        this.attempt(body, label, attempt + 1)
      }, delay)
      this.retryTimers.add(timer)
    }
    this.post(body).then(
      (result) => {
        if (result.status < 200 || result.status > 299) retry(`HTTP ${result.status}`)
      },
      (error: unknown) => retry(error instanceof Error ? error.message : String(error))
    )
  }

  /** Stops retries and closes the connections. */
  close(): void {
    this.closed = true
    this.held = []
    for (const timer of this.retryTimers) clearTimeout(timer)
    this.retryTimers.clear()
    this.httpAgent.destroy()
    this.httpsAgent.destroy()
  }
}

interface Batch {
  readonly phone: PhoneNumber
  readonly statuses: unknown[]
  timer: NodeJS.Timeout | undefined
}

/**
 * Collects message statuses per phone number for `webhookBatchMs` (or until `webhookBatchMax`)
 * and delivers them as one `messages` webhook with several `value.statuses[]`.
 */
export class StatusBatcher {
  private readonly batches = new Map<string, Batch>()

  constructor(
    private readonly client: WebhookClient,
    private readonly config: () => EmulatorConfig,
    private readonly now: () => number
  ) {}

  /** Queues one status object of a message sent from `phone`. */
  add(phone: PhoneNumber, status: unknown): void {
    const { webhookBatchMs, webhookBatchMax } = this.config()
    if (webhookBatchMs <= 0) {
      this.send(phone, [status])
      return
    }
    let batch = this.batches.get(phone.id)
    if (batch === undefined) {
      batch = { phone, statuses: [], timer: undefined }
      const created = batch
      batch.timer = setTimeout(() => this.flush(created), webhookBatchMs)
      this.batches.set(phone.id, batch)
    }
    batch.statuses.push(status)
    if (batch.statuses.length >= webhookBatchMax) this.flush(batch)
  }

  private flush(batch: Batch): void {
    if (batch.timer !== undefined) clearTimeout(batch.timer)
    batch.timer = undefined
    if (this.batches.get(batch.phone.id) === batch) this.batches.delete(batch.phone.id)
    if (batch.statuses.length > 0) this.send(batch.phone, batch.statuses)
  }

  private send(phone: PhoneNumber, statuses: unknown[]): void {
    const value = { messaging_product: "whatsapp", metadata: phoneMetadata(phone), statuses }
    this.client.deliver(webhookEnvelope(phone.wabaId, "messages", value, this.now()), `${statuses.length} status(es) of ${phone.id}`)
  }

  /** Drops the queued statuses without sending them. */
  clear(): void {
    for (const batch of this.batches.values()) if (batch.timer !== undefined) clearTimeout(batch.timer)
    this.batches.clear()
  }
}
