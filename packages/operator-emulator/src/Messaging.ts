/**
 * Sending messages (`POST /{phone_number_id}/messages`, GRAPH_API.md §3): the checks of a send
 * in the operator's order, the record of accepted sends, and the deterministic delivery
 * outcomes (`SendOutcomes.ts`: the README's sandbox outcomes) with their status webhooks. The request's shape is
 * read by `SendRequest.ts`; the customers' windows and inbound messages are `Customers.ts`.
 *
 * Order of the checks of one send: fault injection (rate429, rate5xx), unknown phone number,
 * request shape, throughput window (130429), pair rate (131056), template (name, status, header,
 * body and button parameters, then the messaging limit outside the customer window) or, for any other type, the
 * interactive content (`InteractiveChecks.ts`: catalog and products, product_list limits, flow_cta, ttl_minutes), the
 * flow a flow message names and the customer window,
 * then the send is accepted and recorded (and, with rateAcceptedButLost, answered 500 anyway).
 */
import type { Accounts, PhoneNumber } from "./Accounts.js"
import type { EmulatorConfig } from "./Config.js"
import type { CatalogStore } from "./Catalogs.js"
import type { CustomerWindows } from "./Customers.js"
import type { FlowStore } from "./Flows.js"
import { ErrorCode, GraphErrors } from "./GraphError.js"
import { newWamid, normalizePhone } from "./Ids.js"
import { checkInteractive } from "./InteractiveChecks.js"
import type { ItemsBatches } from "./ItemsBatch.js"
import { maxInAnyWindow } from "./RateLimits.js"
import type { MessagingLimits } from "./MessagingLimits.js"
import type { RateLimiter } from "./RateLimits.js"
import { type SentButton, asObject, parseSend } from "./SendRequest.js"
import { type Pricing, type Step, outcomeFor, pricingOf, statusOf } from "./SendOutcomes.js"
import { checkTemplateSend } from "./TemplateSend.js"
import type { MediaStore } from "./MediaStore.js"
import { checkRichSend } from "./RichTemplates.js"
import type { TemplateStore } from "./Templates.js"
import type { StatusBatcher } from "./Webhooks.js"

/** An accepted send, as `GET /_emulator/messages` lists it. Times are epoch milliseconds. */
export interface SentMessage {
  readonly id: string
  readonly phone_number_id: string
  /** The recipient's digits (wa_id). */
  readonly to: string
  readonly type: string
  readonly template?: {
    readonly name: string
    readonly language: string
    /** Body parameters as text, in order. */
    readonly parameters: string[]
    /** Header parameters as text, when any were sent. */
    readonly header_parameters?: string[]
    /** Button parameters by index and sub-type, when any were sent. */
    readonly button_parameters?: SentButton[]
    /** The send's components exactly as sent. */
    readonly components: ReadonlyArray<unknown>
  }
  readonly text?: string
  readonly interactive?: unknown
  readonly biz_opaque_callback_data?: string
  readonly accepted_at: number
  /** True when the send was recorded but answered with a 500 (rateAcceptedButLost). */
  readonly lost_response?: boolean
}

/** Counters of refused sends per phone number. */
interface Counters {
  rejected429: number
  rejectedPairRate: number
  rejected5xx: number
  lostResponses: number
}

/** What `GET /_emulator/stats` answers. */
export interface SendStats {
  readonly sends: number
  /** Sends refused with 130429: throughput window exceeded or injected by rate429. */
  readonly rejected429: number
  readonly rejectedPairRate: number
  readonly rejected5xx: number
  readonly lostResponses: number
  /** Largest number of accepted sends within any one-second window, exactly (ms precision). */
  readonly maxInAnyOneSecondWindow: number
  readonly firstSendAt: number | null
  readonly lastSendAt: number | null
  /** Accepted sends whose biz_opaque_callback_data had already been seen. */
  readonly duplicatesByCallbackData: number
  /** Accepted sends to a recipient number that had already received one. */
  readonly duplicateRecipients: number
}

/** A successful answer of the messages endpoint. */
export interface SendAnswer {
  /** HTTP status: 200, or 500 for an accepted send whose answer is "lost". */
  readonly httpStatus: number
  readonly body: unknown
}

const invalid = GraphErrors.invalidParameter

/** Dependencies of `Messaging`. */
export interface MessagingDeps {
  /** The numbers' media, for template sends with a media header (issue 32). */
  readonly media: MediaStore
  readonly accounts: Accounts
  readonly templates: TemplateStore
  readonly flows: FlowStore
  readonly catalogs: CatalogStore
  readonly items: ItemsBatches
  readonly windows: CustomerWindows
  readonly limiter: RateLimiter
  readonly limits: MessagingLimits
  readonly batcher: StatusBatcher
  readonly config: () => EmulatorConfig
  readonly now: () => number
  readonly random: () => number
}

/** The send endpoint, the record of accepted sends, and their status webhooks. */
/** Codes `POST /_emulator/refusals` may force. */
export const FORCEABLE_CODES: ReadonlyArray<number> = [ErrorCode.SPAM_RATE_LIMIT, ErrorCode.MARKETING_CAP, ErrorCode.TEMPLATE_CLASSIFICATION_LIMIT]

/** A forced refusal: the next `remaining` template sends of the number (to `to` only, when set) are refused with `code`. */
interface ForcedRefusal {
  readonly phoneNumberId: string
  readonly to: string | undefined
  readonly code: number
  remaining: number
}

export class Messaging {
  private records: SentMessage[] = []
  private forced: ForcedRefusal[] = []
  private byPhone = new Map<string, SentMessage[]>()
  private counters = new Map<string, Counters>()
  private readonly statusTimers = new Set<NodeJS.Timeout>()

  constructor(private readonly deps: MessagingDeps) {}

  private countersOf(phoneNumberId: string): Counters {
    let counters = this.counters.get(phoneNumberId)
    if (counters === undefined) {
      counters = { rejected429: 0, rejectedPairRate: 0, rejected5xx: 0, lostResponses: 0 }
      this.counters.set(phoneNumberId, counters)
    }
    return counters
  }

  /** The next `count` template sends of the number (to `to` only, when given) are refused with `code` (checked after the rate limits). */
  forceRefusals(phoneNumberId: string, code: number, count: number, to: string | undefined): void {
    this.forced.push({ phoneNumberId, to, code, remaining: count })
  }

  private forcedRefusal(phoneNumberId: string, waId: string): number | undefined {
    for (const f of this.forced) {
      if (f.remaining <= 0 || f.phoneNumberId !== phoneNumberId || (f.to !== undefined && f.to !== waId)) continue
      f.remaining--
      if (f.remaining === 0) this.forced = this.forced.filter((x) => x.remaining > 0)
      return f.code
    }
    return undefined
  }

  /**
   * Handles `POST /{phone_number_id}/messages`. Throws `GraphError` for every refusal; returns
   * the answer of an accepted send (or of a mark-as-read request).
   */
  send(phoneNumberId: string, body: unknown): SendAnswer {
    const { config, random, accounts, limiter } = this.deps
    const settings = config()
    const counters = this.countersOf(phoneNumberId)
    if (settings.rate429 > 0 && random() < settings.rate429) {
      counters.rejected429++
      throw GraphErrors.throughput()
    }
    if (settings.rate5xx > 0 && random() < settings.rate5xx) {
      counters.rejected5xx++
      throw GraphErrors.serviceUnavailable()
    }
    const phone = accounts.phoneNumber(phoneNumberId)
    if (phone === undefined) throw GraphErrors.unknownObject(phoneNumberId)
    const payload = asObject(body)
    if (payload === undefined) throw invalid("The request body must be a JSON object.")
    if (payload.messaging_product !== "whatsapp") {
      throw invalid(
        payload.messaging_product === undefined ? "The parameter messaging_product is required." : "Param messaging_product must be 'whatsapp'."
      )
    }
    if (payload.status === "read") {
      if (typeof payload.message_id !== "string") throw invalid("The parameter message_id is required.")
      return { httpStatus: 200, body: { success: true } }
    }
    const request = parseSend(payload)
    const now = this.deps.now()
    const limitError = limiter.check(phoneNumberId, request.waId, now, settings)
    if (limitError !== undefined) {
      if (limitError.code === ErrorCode.RATE_LIMIT_HIT) counters.rejected429++
      else counters.rejectedPairRate++
      throw limitError
    }
    const windowOpen = this.deps.windows.isOpen(phoneNumberId, request.waId, now)
    let template: SentMessage["template"]
    let category = "service"
    if (request.template !== undefined && this.forced.length > 0) {
      const code = this.forcedRefusal(phoneNumberId, request.waId)
      if (code !== undefined) throw GraphErrors.forced(code)
    }
    if (request.template !== undefined) {
      const found = checkTemplateSend(this.deps.templates, phone, request.template)
      checkRichSend(this.deps.media, phoneNumberId, found.template.components, request.template.components)
      template = found.view
      category = found.template.category.toLowerCase()
      if (!windowOpen) this.deps.limits.check(phone.wabaId, phoneNumberId, request.waId, now, settings)
    } else {
      const interactive = asObject(request.interactive)
      if (interactive !== undefined) checkInteractive(this.deps, phone.wabaId, interactive)
      if (interactive?.type === "flow") this.deps.flows.checkSend(phone.wabaId, interactive)
      if (!windowOpen) throw GraphErrors.reengagement()
    }

    limiter.record(phoneNumberId, request.waId, now, settings)
    if (template !== undefined && !windowOpen) this.deps.limits.record(phone.wabaId, request.waId, now, settings.messagingWindowMs)
    const lost = settings.rateAcceptedButLost > 0 && random() < settings.rateAcceptedButLost
    const message: SentMessage = {
      id: newWamid(),
      phone_number_id: phoneNumberId,
      to: request.waId,
      type: request.type,
      ...(template === undefined ? {} : { template }),
      ...(request.text === undefined ? {} : { text: request.text }),
      ...(request.interactive === undefined ? {} : { interactive: request.interactive }),
      ...(request.callbackData === undefined ? {} : { biz_opaque_callback_data: request.callbackData }),
      accepted_at: now,
      ...(lost ? { lost_response: true } : {})
    }
    this.records.push(message)
    let list = this.byPhone.get(phoneNumberId)
    if (list === undefined) {
      list = []
      this.byPhone.set(phoneNumberId, list)
    }
    list.push(message)
    this.scheduleStatuses(phone, message, pricingOf(category, windowOpen), outcomeFor(request.waId), settings.statusDelayMs)
    if (lost) {
      counters.lostResponses++
      throw GraphErrors.serviceUnavailable()
    }
    return {
      httpStatus: 200,
      body: {
        messaging_product: "whatsapp",
        contacts: [{ input: request.input, wa_id: request.waId }],
        messages: [{ id: message.id, message_status: "accepted" }]
      }
    }
  }

  /** Emits the outcome's statuses one `delayMs` apart (the first after `delayMs`), each through the batcher. */
  private scheduleStatuses(phone: PhoneNumber, message: SentMessage, pricing: Pricing, steps: ReadonlyArray<Step>, delayMs: number): void {
    const emit = (index: number) => {
      const timer = setTimeout(() => {
        this.statusTimers.delete(timer)
        const status = statusOf(message, steps[index], pricing, this.deps.now())
        this.deps.batcher.add(phone, status)
        if (index + 1 < steps.length) emit(index + 1)
      }, delayMs)
      this.statusTimers.add(timer)
    }
    emit(0)
  }

  /** Accepted sends in order, optionally of one phone number and/or to one recipient. */
  messages(phoneNumberId?: string, to?: string): SentMessage[] {
    const source = phoneNumberId ? (this.byPhone.get(phoneNumberId) ?? []) : this.records
    if (!to) return [...source]
    const waId = normalizePhone(to) ?? to
    return source.filter((message) => message.to === waId)
  }

  /** Statistics over accepted sends (of one phone number, or all). */
  stats(phoneNumberId?: string): SendStats {
    const sends = phoneNumberId ? (this.byPhone.get(phoneNumberId) ?? []) : this.records
    const counters: Counters = { rejected429: 0, rejectedPairRate: 0, rejected5xx: 0, lostResponses: 0 }
    for (const [id, c] of this.counters) {
      if (phoneNumberId && id !== phoneNumberId) continue
      counters.rejected429 += c.rejected429
      counters.rejectedPairRate += c.rejectedPairRate
      counters.rejected5xx += c.rejected5xx
      counters.lostResponses += c.lostResponses
    }
    const times = sends.map((message) => message.accepted_at)
    // Accepted-at times come from a monotonic clock, so each number's list is sorted; the merged list may not be.
    if (!phoneNumberId) times.sort((a, b) => a - b)
    const callbackData = new Set<string>()
    const recipients = new Set<string>()
    let duplicatesByCallbackData = 0
    let duplicateRecipients = 0
    for (const message of sends) {
      const data = message.biz_opaque_callback_data
      if (data !== undefined) {
        if (callbackData.has(data)) duplicatesByCallbackData++
        else callbackData.add(data)
      }
      const recipientKey = phoneNumberId ? message.to : `${message.phone_number_id}|${message.to}`
      if (recipients.has(recipientKey)) duplicateRecipients++
      else recipients.add(recipientKey)
    }
    return {
      sends: sends.length,
      ...counters,
      maxInAnyOneSecondWindow: phoneNumberId ? maxInAnyWindow(times) : this.maxPerNumber(),
      firstSendAt: times.length > 0 ? times[0] : null,
      lastSendAt: times.length > 0 ? times[times.length - 1] : null,
      duplicatesByCallbackData,
      duplicateRecipients
    }
  }

  /** Over all numbers, the worst single number: the limit is per number. */
  private maxPerNumber(): number {
    let best = 0
    for (const list of this.byPhone.values()) {
      best = Math.max(best, maxInAnyWindow(list.map((message) => message.accepted_at)))
    }
    return best
  }

  /** Forgets sends, counters and pending statuses. */
  reset(): void {
    this.records = []
    this.byPhone = new Map()
    this.counters = new Map()
    this.close()
  }

  /** Cancels the pending status timers. */
  close(): void {
    for (const timer of this.statusTimers) clearTimeout(timer)
    this.statusTimers.clear()
  }
}
