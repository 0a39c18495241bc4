/**
 * Messages: the send edge (GRAPH_API.md §3.3) and the sandbox customer's side of the control
 * API: a user writes to a business number (`POST /inbound`), and the record of accepted sends
 * (`GET /messages`, `GET /stats`). The rules of a send live in `Messaging.ts`.
 */
import { newWamid, normalizePhone } from "../Ids.js"
import { inboundValue } from "../Customers.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type Answer, type ControlEdge, type EmulatorContext, type GraphEdge, ok } from "../Router.js"
import { webhookEnvelope } from "../Webhooks.js"

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:phoneNumberId/messages",
    handle: (ctx, request) => {
      const body = request.body()
      const answer = ctx.messaging.send(request.params.phoneNumberId, body)
      return { status: answer.httpStatus, body: answer.body }
    }
  }
]

/** A simulated user writes to a business number: opens the window, then a synchronous signed webhook. */
const inbound = async (ctx: EmulatorContext, body: Record<string, unknown>): Promise<Answer> => {
  const phoneNumberId = requiredString(body, "phone_number_id")
  const phone = ctx.accounts.phoneNumber(phoneNumberId)
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
  const now = ctx.now()
  const messageId = newWamid()
  ctx.windows.open(phoneNumberId, from, now)
  ctx.persist()
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
    const result = await ctx.webhooks.post(JSON.stringify(envelope))
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

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/inbound", handle: (ctx, request) => inbound(ctx, request.body()) },
  {
    method: "GET",
    path: "/messages",
    handle: (ctx, request) =>
      ok({ data: ctx.messaging.messages(request.query.get("phone_number_id") ?? undefined, request.query.get("to") ?? undefined) })
  },
  { method: "GET", path: "/stats", handle: (ctx, request) => ok(ctx.messaging.stats(request.query.get("phone_number_id") ?? undefined)) }
]
