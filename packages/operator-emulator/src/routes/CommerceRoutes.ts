/**
 * Commerce (GRAPH_API.md §8): a phone number's WhatsApp commerce settings,
 * `GET /{phone_number_id}/whatsapp_commerce_settings` → `{ data: [{ id, is_cart_enabled,
 * is_catalog_visible }] }` and `POST` of the same path with `is_cart_enabled` and/or
 * `is_catalog_visible` (query or body, `true`/`false`) → `{ success: true }`. Kept on the
 * phone number in `Accounts.ts`, so the state file keeps them.
 */
import { DEFAULT_COMMERCE } from "../Accounts.js"
import { GraphErrors } from "../GraphError.js"
import { type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"

const flag = (request: GraphRequest, name: string): boolean | undefined => {
  const body = request.method === "POST" ? (request.body() as Record<string, unknown> | undefined) : undefined
  const raw = request.query.get(name) ?? (body !== undefined && body !== null && typeof body === "object" ? body[name] : undefined)
  if (raw === undefined || raw === null) return undefined
  if (raw === true || raw === "true") return true
  if (raw === false || raw === "false") return false
  throw GraphErrors.invalidParameter(`Param ${name} must be a boolean.`)
}

const phoneOf = (ctx: EmulatorContext, id: string) => {
  const phone = ctx.accounts.phoneNumber(id)
  if (phone === undefined) throw GraphErrors.unknownObject(id)
  return phone
}

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "GET",
    path: "/:phoneNumberId/whatsapp_commerce_settings",
    handle: (ctx, { params: { phoneNumberId } }) => {
      const settings = phoneOf(ctx, phoneNumberId).commerce ?? DEFAULT_COMMERCE
      return ok({
        data: [{ id: `${phoneNumberId}_commerce`, is_cart_enabled: settings.isCartEnabled, is_catalog_visible: settings.isCatalogVisible }]
      })
    }
  },
  {
    method: "POST",
    path: "/:phoneNumberId/whatsapp_commerce_settings",
    handle: (ctx, request) => {
      const { phoneNumberId } = request.params
      phoneOf(ctx, phoneNumberId)
      const isCartEnabled = flag(request, "is_cart_enabled")
      const isCatalogVisible = flag(request, "is_catalog_visible")
      if (isCartEnabled === undefined && isCatalogVisible === undefined) {
        throw GraphErrors.invalidParameter("One of is_cart_enabled or is_catalog_visible is required.")
      }
      ctx.accounts.setCommerce(phoneNumberId, {
        ...(isCartEnabled === undefined ? {} : { isCartEnabled }),
        ...(isCatalogVisible === undefined ? {} : { isCatalogVisible })
      })
      ctx.persist()
      return ok({ success: true })
    }
  }
]
