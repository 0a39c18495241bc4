/**
 * Commerce eligibility (spec §4.7): whether the store (tenant) meets the requirements for
 * selling in the conversation, each requirement with a code, whether it is met, and what to
 * do about it. The operator has no eligibility endpoint (GRAPH_API.md §8.6: "no dedicated
 * WhatsApp endpoint found"); these are the rules it applies, from the sources noted:
 *
 * | code | rule | source |
 * |---|---|---|
 * | `supported_country` | the store's commerce country is set and is not one where Meta's commerce products are unavailable (comprehensively sanctioned: Cuba, Iran, North Korea, Syria) | WhatsApp Business Messaging and Commerce Policies; Meta's list of restricted countries |
 * | `connected_catalog` | a catalog is connected to the store's WhatsApp business account | GRAPH_API.md §8.1 (`/{WABA_ID}/product_catalogs`) |
 * | `cart_enabled` | the cart is on for the store's phone number | GRAPH_API.md §8.1 (`whatsapp_commerce_settings.is_cart_enabled`) |
 * | `phone_number_in_good_standing` | the phone number is CONNECTED and its quality rating is not RED | GRAPH_API.md §8.6 (phone `health_status`/`status`, `quality_rating`) |
 * | `approved_product` | at least one product of a connected catalog is approved by the operator's review | GRAPH_API.md §8.2 (`review_status`) |
 */
import { Effect, Schema } from "effect"
import { CommerceOperator } from "./CommerceOperator.js"
import { CurrentStore } from "../shared/Tenant.js"
import { accountFor } from "../stores/Store.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { ProductRepo } from "./ProductRepo.js"
import * as Settings from "./CommerceSettingsRoutes.js"

/** ISO 3166-1 codes where the operator's commerce is not available. */
export const UNSUPPORTED_COUNTRIES: ReadonlySet<string> = new Set(["CU", "IR", "KP", "SY"])

export const Requirement = Schema.Struct({ code: Schema.String, met: Schema.Boolean, message: Schema.String }).annotations({
  identifier: "EligibilityRequirement"
})
export type Requirement = typeof Requirement.Type

export const EligibilityResource = Schema.Struct({ eligible: Schema.Boolean, requirements: Schema.Array(Requirement) }).annotations({
  identifier: "CommerceEligibility"
})

const requirement = (code: string, met: boolean, yes: string, no: string): Requirement => ({ code, met, message: met ? yes : no })

/** `GET /chat/commerce/eligibility`. */
export const get = Effect.gen(function* () {
  const { store, tenant } = yield* CurrentStore
  const settings = yield* Settings.get
  const connected = yield* (yield* CatalogRepo).anyConnected(tenant)
  const phone = yield* (yield* CommerceOperator).phoneStanding(accountFor(store, tenant.mode))
  const country = settings.country
  const requirements: ReadonlyArray<Requirement> = [
    requirement(
      "supported_country",
      country !== null && !UNSUPPORTED_COUNTRIES.has(country),
      `Commerce is available in ${country}.`,
      country === null ? "Set the store's commerce country (PATCH /chat/commerce/settings)." : `Commerce is not available in ${country}.`
    ),
    requirement("connected_catalog", connected, "A catalog is connected.", "Create or connect a catalog (POST /chat/catalogs)."),
    requirement(
      "cart_enabled",
      settings.isCartEnabled,
      "The cart is on.",
      "Turn the cart on (PATCH /chat/commerce/settings with is_cart_enabled: true)."
    ),
    requirement(
      "phone_number_in_good_standing",
      phone.status === "CONNECTED" && phone.qualityRating !== "RED",
      "The phone number is connected and in good standing.",
      `The phone number is ${phone.status} with quality ${phone.qualityRating}: it must be CONNECTED and not RED.`
    ),
    requirement(
      "approved_product",
      yield* (yield* ProductRepo).anyApprovedInConnected(tenant),
      "A product of a connected catalog is approved.",
      "Add a product to a connected catalog and wait for the operator's approval (its review_status)."
    )
  ]
  return { eligible: requirements.every((r) => r.met), requirements }
})
