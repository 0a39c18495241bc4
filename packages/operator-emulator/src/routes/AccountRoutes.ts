/**
 * Business accounts and phone numbers: `GET /{waba_id}/phone_numbers` (each with its
 * `status`), `GET /{id}` (a template, flow, phone number or WABA), and the control API's
 * registration of a sandbox number (`POST /accounts`, `GET /accounts`). The accounts
 * themselves live in `Accounts.ts`.
 */
import { GraphErrors } from "../GraphError.js"
import { type CanSendMessage, canSendMessageValues } from "../Health.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, ok } from "../Router.js"
import { businessOf } from "../Catalogs.js"
import { flowView } from "../Flows.js"
import { catalogNode } from "./CatalogRoutes.js"
import { selectFields } from "../TemplateList.js"

/** Only the top-level `fields` asked for (and the id, which the Graph always answers); all without `fields`. */
const pick = (node: Record<string, unknown>, fields: string | null): Record<string, unknown> => {
  if (fields === null || fields.trim() === "") return node
  const wanted = new Set(["id", ...fields.split(",").map((f) => f.trim().split(/[{.]/)[0])])
  return Object.fromEntries(Object.entries(node).filter(([key]) => wanted.has(key)))
}

const phoneView = (ctx: EmulatorContext, id: string): Record<string, unknown> => {
  const phone = ctx.accounts.phoneNumber(id)!
  return {
    id: phone.id,
    display_phone_number: phone.displayPhoneNumber,
    verified_name: phone.verifiedName,
    status: "CONNECTED",
    name_status: "APPROVED",
    quality_rating: ctx.limits.qualityOf(phone.id),
    whatsapp_business_manager_messaging_limit: ctx.limits.tierOf(phone.id, ctx.config.defaultMessagingLimit),
    code_verification_status: "VERIFIED",
    platform_type: "CLOUD_API",
    throughput: { level: ctx.config.messagesPerSecond >= 1000 ? "HIGH" : "STANDARD" }
  }
}

const wantsHealth = (fields: string | null) => fields !== null && /(^|,)\s*health_status\b/.test(fields)

/** `GET /{id}`: a template (only `fields` when given), flow, phone number or WABA; `health_status` on a number or WABA when asked. */
const node = (ctx: EmulatorContext, id: string, fields: string | null): unknown => {
  const template = ctx.templates.get(id)
  if (template !== undefined) return selectFields(template, fields)
  const flow = ctx.flows.get(id)
  if (flow !== undefined) return flowView(flow)
  const catalog = catalogNode(ctx, id)
  if (catalog !== undefined) return pick(catalog as Record<string, unknown>, fields)
  const phone = ctx.accounts.phoneNumber(id)
  if (phone !== undefined) {
    if (!wantsHealth(fields)) return pick(phoneView(ctx, id), fields)
    return pick({ ...phoneView(ctx, id), health_status: ctx.accounts.health.statusOf({ phoneNumberId: id, wabaId: phone.wabaId }) }, fields)
  }
  if (ctx.accounts.hasWaba(id)) {
    return pick(
      {
        ...(wantsHealth(fields) ? { health_status: ctx.accounts.health.statusOf({ wabaId: id }) } : {}),
        id,
        name: `Sandbox WABA ${id}`,
        currency: "USD",
        timezone_id: "1",
        message_template_namespace: `ns_${id}`,
        owner_business_info: { id: businessOf(id), name: `Sandbox business ${businessOf(id)}` }
      },
      fields
    )
  }
  throw GraphErrors.unknownObjectGet(id, "GET")
}

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "GET",
    path: "/:wabaId/phone_numbers",
    handle: (ctx, { params: { wabaId } }) => {
      if (ctx.accounts.phoneNumber(wabaId) !== undefined) throw GraphErrors.nonexistingField("phone_numbers", wabaId)
      ctx.accounts.ensureWaba(wabaId)
      return ok({ data: ctx.accounts.phoneNumbersOf(wabaId).map((phone) => phoneView(ctx, phone.id)) })
    }
  },
  { method: "GET", path: "/:id", handle: (ctx, { params: { id }, query }) => ok(node(ctx, id, query.get("fields"))) }
]

/** Registers (or moves) a sandbox phone number. Idempotent. */
const upsert = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const wabaId = requiredString(body, "waba_id")
  const phoneNumberId = requiredString(body, "phone_number_id")
  const display = optionalString(body, "display_phone_number") ?? "15550000000"
  ctx.accounts.upsertPhoneNumber({
    id: phoneNumberId,
    wabaId,
    displayPhoneNumber: display.replace(/^\+/, ""),
    verifiedName: optionalString(body, "verified_name") ?? "Switchboard Sandbox"
  })
  ctx.persist()
  return { ok: true }
}

/** Sets a node's messaging health (`id`, `can_send_message`, and the error or limitation it shows). */
const setHealth = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const id = requiredString(body, "id")
  const status = requiredString(body, "can_send_message").toUpperCase() as CanSendMessage
  if (!canSendMessageValues.includes(status)) throw new ControlError(400, `can_send_message must be one of ${canSendMessageValues.join(", ")}`)
  const code = body.error_code === undefined ? 131031 : Number(body.error_code)
  if (!Number.isInteger(code)) throw new ControlError(400, "error_code must be a number")
  ctx.accounts.health.set(id, {
    canSendMessage: status,
    ...(status === "LIMITED" ? { additionalInfo: [optionalString(body, "additional_info") ?? "The node has a messaging limitation."] } : {}),
    ...(status === "BLOCKED"
      ? {
          errors: [
            {
              error_code: code,
              error_description: optionalString(body, "error_description") ?? "The node cannot send messages.",
              possible_solution: optionalString(body, "possible_solution") ?? "Resolve the issue in WhatsApp Manager."
            }
          ]
        }
      : {})
  })
  return { ok: true }
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/accounts", handle: (ctx, request) => ok(upsert(ctx, request.body())) },
  { method: "POST", path: "/node-health", handle: (ctx, request) => ok(setHealth(ctx, request.body())) },
  { method: "GET", path: "/accounts", handle: (ctx) => ok({ data: ctx.accounts.snapshot().phoneNumbers }) }
]
