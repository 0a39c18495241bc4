/**
 * The control API of the messaging limit and quality (`MessagingLimits.ts`):
 * - `POST /accounts/{phone_number_id}/limits {"tier"}`: the number's messaging limit tier
 *   (`TIER_50` … `TIER_UNLIMITED`), told to the business by a `business_capability_update`
 *   webhook when the number is registered;
 * - `POST /quality {"phone_number_id", "event": "FLAGGED" | "UNFLAGGED"}`: the number's
 *   quality flag, told by a `phone_number_quality_update` webhook; or
 *   `{"template_name", "score": "GREEN" | "YELLOW" | "RED", "language"?}`: the template's
 *   quality in every WABA that has it, told by `message_template_quality_update`;
 * - `POST /refusals {"phone_number_id", "code", "count"?, "to"?}`: the next `count` (default
 *   1) template sends of the number, to `to` only when given, are refused with `code`:
 *   131048 (spam rate limit), 131049 (per-user marketing cap) or 131064
 *   (template-classification messaging limit). The operator answers 131049 mostly in a
 *   `failed` status webhook; the emulator refuses synchronously, which a sender handles alike.
 */
import { FORCEABLE_CODES } from "../Messaging.js"
import { MessagingLimits, TIERS } from "../MessagingLimits.js"
import { normalizePhone } from "../Ids.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, ok } from "../Router.js"
import type { QualityScore } from "../Templates.js"
import { webhookEnvelope } from "../Webhooks.js"

const setLimits = (ctx: EmulatorContext, phoneNumberId: string, body: Record<string, unknown>) => {
  const tier = requiredString(body, "tier")
  if (!Object.hasOwn(TIERS, tier)) throw new ControlError(400, `tier must be one of ${Object.keys(TIERS).join(", ")}`)
  ctx.limits.setTier(phoneNumberId, tier)
  const phone = ctx.accounts.phoneNumber(phoneNumberId)
  if (phone !== undefined) {
    const perDay = MessagingLimits.perDay(tier)
    const value = { max_daily_conversations_per_business: perDay, max_phone_numbers_per_business: 20, max_phone_numbers_per_waba: 25 }
    ctx.webhooks.deliver(webhookEnvelope(phone.wabaId, "business_capability_update", value, ctx.now()), `messaging limit ${tier} of ${phoneNumberId}`)
  }
  return { ok: true, phone_number_id: phoneNumberId, tier }
}

const setQuality = (ctx: EmulatorContext, body: Record<string, unknown>) => {
  const templateName = optionalString(body, "template_name")
  if (templateName !== undefined) {
    const score = requiredString(body, "score")
    if (!["GREEN", "YELLOW", "RED", "UNKNOWN"].includes(score)) throw new ControlError(400, "score must be GREEN, YELLOW, RED or UNKNOWN")
    let templates = 0
    for (const wabaId of ctx.accounts.wabaIds())
      templates += ctx.templates.setQuality(wabaId, templateName, optionalString(body, "language"), score as QualityScore).length
    if (templates === 0) throw new ControlError(404, `no template named ${templateName}`)
    return { ok: true, template_name: templateName, score, templates }
  }
  const phoneNumberId = requiredString(body, "phone_number_id")
  const event = requiredString(body, "event")
  if (event !== "FLAGGED" && event !== "UNFLAGGED") throw new ControlError(400, "event must be FLAGGED or UNFLAGGED")
  const phone = ctx.accounts.phoneNumber(phoneNumberId)
  if (phone === undefined) throw new ControlError(404, `phone number ${phoneNumberId} is not registered (POST /_emulator/accounts)`)
  ctx.limits.setFlagged(phoneNumberId, event === "FLAGGED")
  const value = {
    display_phone_number: phone.displayPhoneNumber,
    event,
    current_limit: ctx.limits.tierOf(phoneNumberId, ctx.config.defaultMessagingLimit)
  }
  ctx.webhooks.deliver(webhookEnvelope(phone.wabaId, "phone_number_quality_update", value, ctx.now()), `quality ${event} of ${phoneNumberId}`)
  return { ok: true, phone_number_id: phoneNumberId, event }
}

const forceRefusals = (ctx: EmulatorContext, body: Record<string, unknown>) => {
  const phoneNumberId = requiredString(body, "phone_number_id")
  if (ctx.accounts.phoneNumber(phoneNumberId) === undefined)
    throw new ControlError(404, `phone number ${phoneNumberId} is not registered (POST /_emulator/accounts)`)
  const code = body.code
  if (typeof code !== "number" || !FORCEABLE_CODES.includes(code)) throw new ControlError(400, `code must be one of ${FORCEABLE_CODES.join(", ")}`)
  const count = body.count ?? 1
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 100_000)
    throw new ControlError(400, "count must be an integer from 1 to 100000")
  const rawTo = optionalString(body, "to")
  const to = rawTo === undefined ? undefined : normalizePhone(rawTo)
  if (rawTo !== undefined && to === undefined) throw new ControlError(400, "to must be a phone number (digits, optional leading +)")
  ctx.messaging.forceRefusals(phoneNumberId, code, count, to)
  return { ok: true, phone_number_id: phoneNumberId, code, count, to: to ?? null }
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/refusals", handle: (ctx, request) => ok(forceRefusals(ctx, request.body())) },
  {
    method: "POST",
    path: "/accounts/:phoneNumberId/limits",
    handle: (ctx, request) => ok(setLimits(ctx, request.params.phoneNumberId, request.body()))
  },
  { method: "POST", path: "/quality", handle: (ctx, request) => ok(setQuality(ctx, request.body())) }
]
