/**
 * Commerce settings routes (spec §4.7): read and change the store's (tenant's) commerce
 * settings. The cart and catalog switches are made at the operator first: its refusal is
 * 422 `operator_rejected`, an unreachable operator 503 `operator_unavailable`, and then
 * nothing changed here.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { CommerceSettings, Eligibility } from "@switchboard/domain"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import { Docs } from "../openapi/Document.js"

const settings = {
  is_cart_enabled: true,
  is_catalog_visible: true,
  country: "US",
  currency: "USD",
  payments: null,
  order_updates_template: { name: "order_update", language: "en_US" },
  updated_at: "2026-05-04T09:30:00.000Z"
}

export class CommerceSettingsGroup extends HttpApiGroup.make("commerceSettings")
  .add(HttpApiEndpoint.get("get", "/commerce/settings").addSuccess(CommerceSettings.CommerceSettingsResource).addError(ApiError.OperatorUnavailable))
  .add(
    HttpApiEndpoint.patch("update", "/commerce/settings")
      .setPayload(CommerceSettings.UpdateCommerceSettings)
      .addSuccess(CommerceSettings.CommerceSettingsResource)
      .pipe(ApiError.withErrors(...ApiError.operatorErrors))
  )
  .add(HttpApiEndpoint.get("eligibility", "/commerce/eligibility").addSuccess(Eligibility.EligibilityResource).addError(ApiError.OperatorUnavailable))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { commerceSettings: "The store's commerce settings: cart and catalog in the conversation, country and currency" },
    operations: {
      "commerceSettings.get": {
        summary: "Get the commerce settings",
        description: "Before the first change, the cart and catalog switches are the operator's current ones for the key's phone number.",
        response: settings
      },
      "commerceSettings.update": {
        summary: "Change the commerce settings",
        description:
          "The cart and catalog switches are set at the operator on the key's phone number first, then recorded. `payments` is the store's payment configuration in the operator's terms (Meta's Payments API: `upi` in India, `br` in Brazil), carried by payment requests (`order_details`); `null` for none.",
        request: {
          payments: {
            payment_type: "upi",
            payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "main-config" } }],
            goods_type: "physical-goods"
          }
        },
        response: {
          ...settings,
          payments: {
            payment_type: "upi",
            payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "main-config" } }],
            goods_type: "physical-goods"
          }
        }
      },
      "commerceSettings.eligibility": {
        summary: "Check commerce eligibility",
        description: "Whether the store meets the operator's commerce requirements, each with what to do when it is not met.",
        response: {
          eligible: false,
          requirements: [
            { code: "supported_country", met: true, message: "Commerce is available in US." },
            { code: "connected_catalog", met: true, message: "A catalog is connected." },
            { code: "cart_enabled", met: true, message: "The cart is on." },
            { code: "phone_number_in_good_standing", met: true, message: "The phone number is connected and in good standing." },
            { code: "approved_product", met: false, message: "Add a product to a connected catalog and wait for the operator's approval." }
          ]
        }
      }
    }
  }) {}
