/**
 * The operator's Calling API as the emulator plays it (GRAPH_API.md §6): per business number
 * and user, the call permission (temporary for 7 days after an accepted request, or none)
 * with the request limits (1 per 24 h, 2 per 7 days, reset by a connected call), the calls
 * with their state machine and the operator's real refusals (§6.9), and the `calls`
 * webhooks (A.11) that report them.
 *
 * Business-initiated calls act on the number called, like the send outcomes:
 * - ending in `0000`: it rings, then the user rejects;
 * - ending in `0001`: it rings, then fails with no answer;
 * - anything else: it rings, the user accepts (connect webhook with the answer SDP), and
 *   the call ends when the business terminates it or after `durationMs`.
 *
 * The calling error codes are named here (the emulator keeps its own table, see
 * `GraphError.ts`); timings are set with `POST /_emulator/calls/config`.
 */
import type { PhoneNumber } from "./Accounts.js"
import { GraphError } from "./GraphError.js"
import { newWamid } from "./Ids.js"
import type { WebhookClient } from "./Webhooks.js"
import { phoneMetadata, webhookEnvelope } from "./Webhooks.js"

export const CallErrorCode = {
  CALLING_NOT_ENABLED: 138000,
  CALL_IN_PROGRESS: 138003,
  NO_CALL_PERMISSION: 138006,
  PERMISSION_REQUEST_LIMIT: 138009,
  CALLS_PER_USER_LIMIT: 138012
} as const

const DAY = 24 * 60 * 60 * 1000
export const TEMPORARY_PERMISSION_MS = 7 * DAY
export const REQUEST_LIMITS = [
  { period: "PT24H", windowMs: DAY, max: 1 },
  { period: "P7D", windowMs: 7 * DAY, max: 2 }
] as const
/** Connected business-initiated calls per user per 24 h. */
export const CALLS_PER_DAY = 5

export interface CallTimings {
  /** From connect to RINGING (and from RINGING to the user's answer). */
  ringMs: number
  /** How long a `0001` number rings before the call fails with no answer. */
  noAnswerMs: number
  /** How long an accepted call lasts unless terminated first. */
  durationMs: number
}

export const DEFAULT_TIMINGS: CallTimings = { ringMs: 150, noAnswerMs: 1500, durationMs: 60_000 }

interface Pair {
  status: "no_permission" | "temporary" | "permanent"
  expiresAt: number | null
  requests: Array<number>
  lastRequestId: string | null
  resetAt: number | null
  connected: Array<number>
}

export interface EmulatedCall {
  readonly id: string
  readonly phone: PhoneNumber
  /** The user's digits. */
  readonly user: string
  readonly direction: "USER_INITIATED" | "BUSINESS_INITIATED"
  status: "calling" | "ringing" | "pre_accepted" | "accepted" | "rejected" | "ended"
  readonly offer: string
  answer: string | null
  startedAt: number | null
  readonly callbackData: string | undefined
  readonly payload: string | undefined
  readonly timers: Set<NodeJS.Timeout>
}

const refused = (code: number, message: string, details: string) => new GraphError(400, code, message, { details })

export class CallStore {
  timings: CallTimings = { ...DEFAULT_TIMINGS }
  private readonly pairs = new Map<string, Pair>()
  readonly calls = new Map<string, EmulatedCall>()
  /** The `calling` settings of each phone number, as last set (upper case; SIP passwords kept). */
  readonly settings = new Map<string, Record<string, unknown>>()

  constructor(
    private readonly now: () => number,
    private readonly webhooks: WebhookClient,
    /** A user engaged with the number (answered or placed a call): their customer service window opens. */
    private readonly engaged: (phoneNumberId: string, user: string) => void
  ) {}

  private pair(phoneNumberId: string, user: string): Pair {
    const key = `${phoneNumberId}|${user}`
    let pair = this.pairs.get(key)
    if (pair === undefined) {
      pair = { status: "no_permission", expiresAt: null, requests: [], lastRequestId: null, resetAt: null, connected: [] }
      this.pairs.set(key, pair)
    }
    return pair
  }

  /** The permission's status now (a temporary one lapses at its expiry). */
  permissionOf(phoneNumberId: string, user: string): { status: string; expiresAt: number | null } {
    const p = this.pair(phoneNumberId, user)
    if (p.status === "temporary" && p.expiresAt !== null && p.expiresAt <= this.now()) return { status: "no_permission", expiresAt: null }
    return { status: p.status, expiresAt: p.expiresAt }
  }

  private counted(p: Pair, windowMs: number): Array<number> {
    const now = this.now()
    return p.requests.filter((t) => t > now - windowMs && (p.resetAt === null || t > p.resetAt))
  }

  /** The request limits' usage now, in the shape of `GET call_permissions`. */
  requestLimits(phoneNumberId: string, user: string) {
    const p = this.pair(phoneNumberId, user)
    return REQUEST_LIMITS.map((l) => {
      const used = this.counted(p, l.windowMs)
      return {
        time_period: l.period,
        max_allowed: l.max,
        current_usage: used.length,
        ...(used.length >= l.max ? { limit_expiration_time: Math.floor((Math.min(...used) + l.windowMs) / 1000) } : {})
      }
    })
  }

  /** Refuses a permission request over the limits (138009). */
  checkRequest(phoneNumberId: string, user: string): void {
    const p = this.pair(phoneNumberId, user)
    if (REQUEST_LIMITS.some((l) => this.counted(p, l.windowMs).length >= l.max)) {
      throw refused(
        CallErrorCode.PERMISSION_REQUEST_LIMIT,
        "(#138009) Call permission request limit reached",
        "The limit of call permission requests to this user (1 per 24 hours, 2 per 7 days) has been reached."
      )
    }
  }

  recordRequest(phoneNumberId: string, user: string, messageId: string): void {
    const p = this.pair(phoneNumberId, user)
    p.requests.push(this.now())
    p.lastRequestId = messageId
  }

  /** The user answers: accept grants a temporary permission for 7 days. Answers the reply's context (the request's wamid). */
  reply(phoneNumberId: string, user: string, response: "accept" | "reject"): { contextId: string | null; expiresAt: number | null } {
    const p = this.pair(phoneNumberId, user)
    const now = this.now()
    p.status = response === "accept" ? "temporary" : "no_permission"
    p.expiresAt = response === "accept" ? now + TEMPORARY_PERMISSION_MS : null
    return { contextId: p.lastRequestId, expiresAt: p.expiresAt }
  }

  private liveWith(phoneNumberId: string, user: string): EmulatedCall | undefined {
    for (const call of this.calls.values()) {
      if (call.phone.id === phoneNumberId && call.user === user && call.status !== "ended" && call.status !== "rejected") return call
    }
    return undefined
  }

  private inProgress(): GraphError {
    return refused(CallErrorCode.CALL_IN_PROGRESS, "(#138003) Duplicate call", "There is already an ongoing call with this user.")
  }

  /** `connect` by the business: the permission, one live call per user, 5 connected calls per 24 h. */
  connect(phone: PhoneNumber, user: string, offer: string, callbackData: string | undefined): EmulatedCall {
    const now = this.now()
    if (this.settings.get(phone.id)?.status === "DISABLED") {
      throw refused(CallErrorCode.CALLING_NOT_ENABLED, "(#138000) Calling not enabled", "Calling is not enabled for this business phone number.")
    }
    const permission = this.permissionOf(phone.id, user)
    if (permission.status !== "temporary" && permission.status !== "permanent") {
      throw refused(
        CallErrorCode.NO_CALL_PERMISSION,
        "(#138006) No approved call permission",
        "The user has not granted call permission to this business."
      )
    }
    if (this.liveWith(phone.id, user) !== undefined) throw this.inProgress()
    const p = this.pair(phone.id, user)
    const today = p.connected.filter((t) => t > now - DAY)
    if (today.length >= CALLS_PER_DAY) {
      const next = new Date(Math.min(...today) + DAY).toISOString()
      throw refused(
        CallErrorCode.CALLS_PER_USER_LIMIT,
        "(#138012) Business-initiated call limit reached",
        `The limit of 5 connected business-initiated calls to this user in 24 hours has been reached. Next call allowed at ${next}`
      )
    }
    const call = this.newCall(phone, user, "BUSINESS_INITIATED", offer, callbackData, undefined)
    call.status = "calling"
    this.afterConnect(call)
    return call
  }

  private newCall(
    phone: PhoneNumber,
    user: string,
    direction: EmulatedCall["direction"],
    offer: string,
    callbackData: string | undefined,
    payload: string | undefined
  ): EmulatedCall {
    const call: EmulatedCall = {
      id: `wacid.${newWamid().slice("wamid.".length)}`,
      phone,
      user,
      direction,
      status: "ringing",
      offer,
      answer: null,
      startedAt: null,
      callbackData,
      payload,
      timers: new Set()
    }
    this.calls.set(call.id, call)
    return call
  }

  private later(call: EmulatedCall, ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      call.timers.delete(timer)
      run()
    }, ms)
    timer.unref()
    call.timers.add(timer)
  }

  private afterConnect(call: EmulatedCall): void {
    const { ringMs, noAnswerMs, durationMs } = this.timings
    this.later(call, ringMs, () => {
      if (call.status !== "calling") return
      call.status = "ringing"
      this.sendStatus(call, "RINGING")
      if (call.user.endsWith("0000")) {
        this.later(call, ringMs, () => {
          if (call.status !== "ringing") return
          call.status = "rejected"
          this.sendStatus(call, "REJECTED")
          this.finish(call, "FAILED")
        })
      } else if (call.user.endsWith("0001")) {
        this.later(call, noAnswerMs, () => {
          if (call.status === "ringing") this.finish(call, "FAILED")
        })
      } else {
        this.later(call, ringMs, () => {
          if (call.status !== "ringing") return
          call.status = "accepted"
          call.startedAt = this.now()
          call.answer = answerFor(call.offer)
          const p = this.pair(call.phone.id, call.user)
          this.engaged(call.phone.id, call.user)
          p.connected.push(call.startedAt)
          p.resetAt = call.startedAt
          this.sendStatus(call, "ACCEPTED")
          this.sendCall(call, "connect", { session: { sdp_type: "answer", sdp: call.answer } })
          this.later(call, durationMs, () => {
            if (call.status === "accepted") this.finish(call, "COMPLETED")
          })
        })
      }
    })
  }

  /** A user calls the business number: a ringing call and its connect webhook (the caller posts it). */
  placeCall(phone: PhoneNumber, user: string, offer: string, payload: string | undefined): { call: EmulatedCall; envelope: Record<string, unknown> } {
    if (this.liveWith(phone.id, user) !== undefined) throw this.inProgress()
    const call = this.newCall(phone, user, "USER_INITIATED", offer, undefined, payload)
    return { call, envelope: this.callEnvelope(call, "connect", { session: { sdp_type: "offer", sdp: offer } }) }
  }

  find(id: string, phoneNumberId: string): EmulatedCall {
    const call = this.calls.get(id)
    if (call === undefined || call.phone.id !== phoneNumberId) {
      throw new GraphError(400, 100, "(#100) Invalid parameter", { details: `Call ${id} was not found for this phone number.` })
    }
    return call
  }

  /** `pre_accept` / `accept` of a user-initiated call with our answer. */
  answer(call: EmulatedCall, action: "pre_accept" | "accept", sdp: string): void {
    const allowed = action === "pre_accept" ? call.status === "ringing" : call.status === "ringing" || call.status === "pre_accepted"
    if (call.direction !== "USER_INITIATED" || !allowed) {
      throw new GraphError(400, 100, "(#100) Invalid parameter", { details: `Cannot ${action} a call in state ${call.status}.` })
    }
    call.answer = sdp
    if (action === "pre_accept") {
      call.status = "pre_accepted"
      return
    }
    call.status = "accepted"
    call.startedAt = this.now()
    this.later(call, this.timings.durationMs, () => {
      if (call.status === "accepted") this.finish(call, "COMPLETED")
    })
  }

  reject(call: EmulatedCall): void {
    if (call.direction !== "USER_INITIATED" || (call.status !== "ringing" && call.status !== "pre_accepted")) {
      throw new GraphError(400, 100, "(#100) Invalid parameter", { details: `Cannot reject a call in state ${call.status}.` })
    }
    call.status = "rejected"
    this.finish(call, "FAILED")
  }

  terminate(call: EmulatedCall): void {
    if (call.status === "ended" || call.status === "rejected") {
      throw new GraphError(400, 100, "(#100) Invalid parameter", { details: `Cannot terminate a call in state ${call.status}.` })
    }
    this.finish(call, call.status === "accepted" ? "COMPLETED" : "FAILED")
  }

  /** Ends the call and sends its terminate webhook. */
  private finish(call: EmulatedCall, status: "COMPLETED" | "FAILED"): void {
    for (const timer of call.timers) clearTimeout(timer)
    call.timers.clear()
    const end = this.now()
    call.status = "ended"
    const times =
      call.startedAt === null
        ? {}
        : {
            start_time: String(Math.floor(call.startedAt / 1000)),
            end_time: String(Math.floor(end / 1000)),
            duration: Math.max(0, Math.round((end - call.startedAt) / 1000))
          }
    this.sendCall(call, "terminate", { status, ...times })
  }

  private callEnvelope(call: EmulatedCall, event: "connect" | "terminate", extra: Record<string, unknown>): Record<string, unknown> {
    const now = this.now()
    const userInitiated = call.direction === "USER_INITIATED"
    const entry: Record<string, unknown> = {
      id: call.id,
      from: userInitiated ? call.user : call.phone.displayPhoneNumber.replace(/\D/g, ""),
      to: userInitiated ? call.phone.displayPhoneNumber.replace(/\D/g, "") : call.user,
      event,
      timestamp: String(Math.floor(now / 1000)),
      direction: call.direction,
      ...extra
    }
    if (call.callbackData !== undefined) entry.biz_opaque_callback_data = call.callbackData
    if (call.payload !== undefined) entry.cta_payload = call.payload
    return webhookEnvelope(
      call.phone.wabaId,
      "calls",
      {
        messaging_product: "whatsapp",
        metadata: phoneMetadata(call.phone),
        contacts: [{ profile: { name: "Sandbox User" }, wa_id: call.user }],
        calls: [entry]
      },
      now
    )
  }

  private sendCall(call: EmulatedCall, event: "connect" | "terminate", extra: Record<string, unknown>): void {
    this.webhooks.deliver(this.callEnvelope(call, event, extra), `call ${call.id} ${event}`)
  }

  private sendStatus(call: EmulatedCall, status: "RINGING" | "ACCEPTED" | "REJECTED"): void {
    const now = this.now()
    const entry: Record<string, unknown> = { id: call.id, timestamp: String(Math.floor(now / 1000)), type: "call", status, recipient_id: call.user }
    if (call.callbackData !== undefined) entry.biz_opaque_callback_data = call.callbackData
    this.webhooks.deliver(
      webhookEnvelope(call.phone.wabaId, "calls", { messaging_product: "whatsapp", metadata: phoneMetadata(call.phone), statuses: [entry] }, now),
      `call ${call.id} ${status}`
    )
  }
}

/** The customer's answer to an offer: the offer's media, with the customer's own ICE and DTLS role. */
export const answerFor = (offer: string): string =>
  offer
    .split("\n")
    .map((line) => {
      const l = line.replace("\r", "")
      if (l.startsWith("a=setup:")) return "a=setup:active"
      if (l.startsWith("a=ice-ufrag:")) return "a=ice-ufrag:emU1"
      if (l.startsWith("a=ice-pwd:")) return "a=ice-pwd:emulatorcustomerpwd0000001"
      return l
    })
    .join("\r\n")
