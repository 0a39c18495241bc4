/**
 * Calling (GRAPH_API.md §6): `GET /{phone_number_id}/call_permissions`, `POST
 * /{phone_number_id}/calls` (connect, pre_accept, accept, reject, terminate), and the
 * permission-request limits on `POST /{phone_number_id}/messages`: this module's messages
 * edge comes before the messaging module's in the table, refuses a `call_permission_request`
 * over the limits (138009), and hands every send to `Messaging` as that edge does.
 * Control: `POST /call-permission-replies` (a user answers the last request),
 * `POST /calls` (a user calls the number), `POST /calls/config` (timings), `GET /calls`.
 * The rules live in `Calls.ts`; its state is kept per emulator here.
 */
import { CallStore } from "../Calls.js"
import * as Payments from "../Payments.js"
import { GraphErrors } from "../GraphError.js"
import { newWamid, normalizePhone } from "../Ids.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type Answer, type ControlEdge, type EmulatorContext, type GraphEdge, ok } from "../Router.js"
import { asObject } from "../SendRequest.js"
import { phoneMetadata, webhookEnvelope } from "../Webhooks.js"

const stores = new WeakMap<EmulatorContext, CallStore>()

/** The call state of this emulator. */
export const callsOf = (ctx: EmulatorContext): CallStore => {
  let store = stores.get(ctx)
  if (store === undefined) {
    store = new CallStore(ctx.now, ctx.webhooks, (phoneNumberId, user) => ctx.windows.open(phoneNumberId, user, ctx.now()))
    stores.set(ctx, store)
  }
  return store
}

const phoneOf = (ctx: EmulatorContext, id: string) => {
  const phone = ctx.accounts.phoneNumber(id)
  if (phone === undefined) throw GraphErrors.unknownObject(id)
  return phone
}

const sessionOf = (body: Record<string, unknown>, type: "offer" | "answer"): string => {
  const session = asObject(body.session)
  if (session === undefined) throw GraphErrors.invalidParameter("The parameter session is required.")
  if (session.sdp_type !== type) throw GraphErrors.invalidParameter(`Param session['sdp_type'] must be '${type}'.`)
  if (typeof session.sdp !== "string" || !session.sdp.startsWith("v=0"))
    throw GraphErrors.invalidParameter("Param session['sdp'] must be an SDP (RFC 8866).")
  return session.sdp
}

const callAction = (ctx: EmulatorContext, phoneNumberId: string, body: Record<string, unknown>): Answer => {
  const calls = callsOf(ctx)
  const phone = phoneOf(ctx, phoneNumberId)
  if (body.messaging_product !== "whatsapp") throw GraphErrors.invalidParameter("Param messaging_product must be 'whatsapp'.")
  const action = body.action
  if (action === "connect") {
    const user = typeof body.to === "string" ? normalizePhone(body.to) : undefined
    if (user === undefined) throw GraphErrors.invalidParameter("The parameter to is required.")
    const callbackData = typeof body.biz_opaque_callback_data === "string" ? body.biz_opaque_callback_data : undefined
    const call = calls.connect(phone, user, sessionOf(body, "offer"), callbackData)
    return ok({ messaging_product: "whatsapp", calls: [{ id: call.id }] })
  }
  if (typeof body.call_id !== "string") throw GraphErrors.invalidParameter("The parameter call_id is required.")
  const call = calls.find(body.call_id, phoneNumberId)
  switch (action) {
    case "pre_accept":
    case "accept":
      calls.answer(call, action, sessionOf(body, "answer"))
      break
    case "reject":
      calls.reject(call)
      break
    case "terminate":
      calls.terminate(call)
      break
    default:
      throw GraphErrors.invalidParameter("Param action must be one of {connect, pre_accept, accept, reject, terminate}.")
  }
  return ok({ messaging_product: "whatsapp", success: true })
}

const UPPER_FIELDS = ["status", "call_icon_visibility", "callback_permission_status", "srtp_key_exchange_protocol"] as const

/** The `calling` object as the operator keeps it: values in upper case (either casing accepted), call hours checked. */
const normalizeCalling = (calling: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...calling }
  for (const field of UPPER_FIELDS) if (typeof out[field] === "string") out[field] = (out[field] as string).toUpperCase()
  if (out.srtp_key_exchange_protocol === "DTLS-SRTP") out.srtp_key_exchange_protocol = "DTLS"
  const hours = asObject(calling.call_hours)
  if (hours !== undefined) {
    const weekly = Array.isArray(hours.weekly_operating_hours) ? hours.weekly_operating_hours.map((r) => ({ ...asObject(r) })) : []
    for (const r of weekly) {
      if (typeof r.day_of_week === "string") r.day_of_week = r.day_of_week.toUpperCase()
      if (typeof r.open_time !== "string" || typeof r.close_time !== "string" || r.open_time >= r.close_time) {
        throw GraphErrors.invalidParameter("Each weekly_operating_hours entry needs open_time before close_time (HHMM).")
      }
    }
    const byDay = new Map<string, Array<Record<string, unknown>>>()
    for (const r of weekly) byDay.set(String(r.day_of_week), [...(byDay.get(String(r.day_of_week)) ?? []), r])
    for (const [day, ranges] of byDay) {
      if (ranges.length > 2) throw GraphErrors.invalidParameter(`At most 2 operating hour ranges per day (${day}).`)
      const [x, y] = ranges
      if (y !== undefined && String(x.open_time) < String(y.close_time) && String(y.open_time) < String(x.close_time)) {
        throw GraphErrors.invalidParameter(`Operating hours of ${day} overlap.`)
      }
    }
    const holidays = Array.isArray(hours.holiday_schedule) ? hours.holiday_schedule : []
    if (holidays.length > 20) throw GraphErrors.invalidParameter("At most 20 holidays.")
    out.call_hours = {
      ...hours,
      ...(typeof hours.status === "string" ? { status: hours.status.toUpperCase() } : {}),
      weekly_operating_hours: weekly,
      holiday_schedule: holidays
    }
  }
  const sip = asObject(calling.sip)
  if (sip !== undefined && typeof sip.status === "string") out.sip = { ...sip, status: sip.status.toUpperCase() }
  return out
}

/** The settings as `GET` answers them: SIP passwords only with `include_sip_credentials=true`. */
const shownCalling = (calling: Record<string, unknown>, withCredentials: boolean): Record<string, unknown> => {
  const sip = asObject(calling.sip)
  if (sip === undefined || withCredentials) return calling
  const servers = Array.isArray(sip.servers)
    ? sip.servers.map((s) => {
        const { password: _p, ...rest } = asObject(s) ?? {}
        return rest
      })
    : []
  return { ...calling, sip: { ...sip, servers } }
}

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "GET",
    path: "/:phoneNumberId/settings",
    handle: (ctx, request) => {
      const { phoneNumberId } = request.params
      phoneOf(ctx, phoneNumberId)
      const calling = callsOf(ctx).settings.get(phoneNumberId) ?? { status: "ENABLED", call_icon_visibility: "DEFAULT" }
      return ok({ calling: shownCalling(calling, request.query.get("include_sip_credentials") === "true") })
    }
  },
  {
    method: "POST",
    path: "/:phoneNumberId/settings",
    handle: (ctx, request) => {
      const { phoneNumberId } = request.params
      phoneOf(ctx, phoneNumberId)
      const calling = asObject(asObject(request.body())?.calling)
      if (calling === undefined) throw GraphErrors.invalidParameter("The parameter calling is required.")
      const store = callsOf(ctx)
      store.settings.set(phoneNumberId, { ...(store.settings.get(phoneNumberId) ?? {}), ...normalizeCalling(calling) })
      return ok({ success: true })
    }
  },
  {
    method: "POST",
    path: "/:phoneNumberId/messages",
    handle: (ctx, request) => {
      const { phoneNumberId } = request.params
      const body = request.body()
      const payload = asObject(body)
      const interactive = asObject(payload?.interactive)
      const user = interactive?.type === "call_permission_request" && typeof payload?.to === "string" ? normalizePhone(payload.to) : undefined
      if (user !== undefined && ctx.accounts.phoneNumber(phoneNumberId) !== undefined) callsOf(ctx).checkRequest(phoneNumberId, user)
      Payments.checkOrderDetails(interactive)
      const answer = ctx.messaging.send(phoneNumberId, body)
      // an order_details send: the sandbox customer pays by the number rules (Payments.ts)
      if (answer.httpStatus === 200) Payments.afterSend(ctx, phoneNumberId, String(payload?.to ?? ""), interactive)
      if (user !== undefined && answer.httpStatus === 200) {
        const id = (answer.body as { messages?: Array<{ id?: string }> }).messages?.[0]?.id
        if (id !== undefined) callsOf(ctx).recordRequest(phoneNumberId, user, id)
      }
      return { status: answer.httpStatus, body: answer.body }
    }
  },
  {
    method: "GET",
    path: "/:phoneNumberId/call_permissions",
    handle: (ctx, request) => {
      const { phoneNumberId } = request.params
      phoneOf(ctx, phoneNumberId)
      const raw = request.query.get("user_wa_id") ?? request.query.get("recipient")
      const user = raw === null ? undefined : normalizePhone(raw)
      if (user === undefined) throw GraphErrors.invalidParameter("The parameter user_wa_id is required.")
      const calls = callsOf(ctx)
      const permission = calls.permissionOf(phoneNumberId, user)
      const limits = calls.requestLimits(phoneNumberId, user)
      const granted = permission.status === "temporary" || permission.status === "permanent"
      return ok({
        messaging_product: "whatsapp",
        permission: {
          status: permission.status,
          ...(permission.expiresAt === null ? {} : { expiration_time: Math.floor(permission.expiresAt / 1000) })
        },
        actions: [
          { action_name: "send_call_permission_request", can_perform_action: limits.every((l) => l.current_usage < l.max_allowed), limits },
          { action_name: "start_call", can_perform_action: granted }
        ]
      })
    }
  },
  {
    method: "POST",
    path: "/:phoneNumberId/calls",
    handle: (ctx, request) => {
      const body = asObject(request.body())
      if (body === undefined) throw GraphErrors.invalidParameter("The request body must be a JSON object.")
      return callAction(ctx, request.params.phoneNumberId, body)
    }
  }
]

const userOf = (body: Record<string, unknown>) => {
  const user = normalizePhone(requiredString(body, "from"))
  if (user === undefined) throw new ControlError(400, "from must be a phone number (digits, optional leading +)")
  return user
}

const registered = (ctx: EmulatorContext, body: Record<string, unknown>) => {
  const phoneNumberId = requiredString(body, "phone_number_id")
  const phone = ctx.accounts.phoneNumber(phoneNumberId)
  if (phone === undefined) throw new ControlError(404, `phone number ${phoneNumberId} is not registered (POST /_emulator/accounts)`)
  return phone
}

/** Posts a webhook now and answers whether it was taken. */
const postNow = async (ctx: EmulatorContext, envelope: Record<string, unknown>, answer: Record<string, unknown>): Promise<Answer> => {
  try {
    const result = await ctx.webhooks.post(JSON.stringify(envelope))
    const delivered = result.status >= 200 && result.status < 300
    return { status: delivered ? 200 : 502, body: { ...answer, delivered, status: result.status } }
  } catch (error) {
    return { status: 502, body: { ...answer, delivered: false, error: error instanceof Error ? error.message : String(error) } }
  }
}

/** A user answers the last permission request (Appendix A.4): a `messages` webhook with the reply. */
const permissionReply = (ctx: EmulatorContext, body: Record<string, unknown>): Promise<Answer> => {
  const phone = registered(ctx, body)
  const user = userOf(body)
  const response = body.response
  if (response !== "accept" && response !== "reject") throw new ControlError(400, "response must be accept or reject")
  const now = ctx.now()
  const { contextId, expiresAt } = callsOf(ctx).reply(phone.id, user, response)
  ctx.windows.open(phone.id, user, now)
  ctx.persist()
  const messageId = newWamid()
  const message = {
    ...(contextId === null ? {} : { context: { from: phone.displayPhoneNumber.replace(/\D/g, ""), id: contextId } }),
    from: user,
    id: messageId,
    timestamp: String(Math.floor(now / 1000)),
    type: "interactive",
    interactive: {
      type: "call_permission_reply",
      call_permission_reply: {
        response,
        ...(expiresAt === null ? {} : { expiration_timestamp: Math.floor(expiresAt / 1000) }),
        response_source: "user_action"
      }
    }
  }
  const value = {
    messaging_product: "whatsapp",
    metadata: phoneMetadata(phone),
    contacts: [{ profile: { name: optionalString(body, "profile_name") ?? "Sandbox User" }, wa_id: user }],
    messages: [message]
  }
  return postNow(ctx, webhookEnvelope(phone.wabaId, "messages", value, now), { message_id: messageId })
}

/** A user calls the business number: a ringing call and its `connect` webhook with the user's offer. */
const placeCall = (ctx: EmulatorContext, body: Record<string, unknown>): Promise<Answer> => {
  const phone = registered(ctx, body)
  const user = userOf(body)
  const sdp = requiredString(body, "sdp")
  try {
    const { call, envelope } = callsOf(ctx).placeCall(phone, user, sdp, optionalString(body, "payload"))
    ctx.windows.open(phone.id, user, ctx.now())
    return postNow(ctx, envelope, { call_id: call.id })
  } catch (error) {
    throw new ControlError(409, error instanceof Error ? error.message : String(error))
  }
}

const setTimings = (ctx: EmulatorContext, body: Record<string, unknown>): Answer => {
  const calls = callsOf(ctx)
  for (const [key, field] of [
    ["ring_ms", "ringMs"],
    ["no_answer_ms", "noAnswerMs"],
    ["duration_ms", "durationMs"]
  ] as const) {
    const value = body[key]
    if (value === undefined) continue
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw new ControlError(400, `${key} must be a whole number of ms`)
    calls.timings[field] = value
  }
  return ok({ ring_ms: calls.timings.ringMs, no_answer_ms: calls.timings.noAnswerMs, duration_ms: calls.timings.durationMs })
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/call-permission-replies", handle: (ctx, request) => permissionReply(ctx, request.body()) },
  { method: "POST", path: "/calls/config", handle: (ctx, request) => setTimings(ctx, request.body()) },
  { method: "POST", path: "/calls", handle: (ctx, request) => placeCall(ctx, request.body()) },
  {
    method: "GET",
    path: "/calls",
    handle: (ctx) =>
      ok({
        data: [...callsOf(ctx).calls.values()].map((c) => ({
          id: c.id,
          phone_number_id: c.phone.id,
          user: c.user,
          direction: c.direction,
          status: c.status
        }))
      })
  }
]
