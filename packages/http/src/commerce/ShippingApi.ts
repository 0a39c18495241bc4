/**
 * Shipping profile routes (spec §4.6): list, create, read, change, delete. A profile id of
 * another store or mode answers 404 `resource_not_found` exactly as an unknown one.
 */
import { HttpApiGroup } from "@effect/platform"
import { ShippingProfile } from "@switchboard/domain"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Docs } from "../openapi/Document.js"

const time = "2026-05-04T09:30:00.000Z"
const profile = {
  id: "shp_01M85GK8TB3E8BH2R1WY18AD8X",
  name: "Domestic",
  destinations: [{ country: "US", regions: [], rates: [{ name: "Standard", price: 499, currency: "USD", min_days: 2, max_days: 5 }] }],
  handling_time: { min_days: 1, max_days: 2 },
  is_default: true,
  created_at: time,
  updated_at: time
}
const { id: _id, is_default: _d, created_at: _c, updated_at: _u, ...request } = profile

export class ShippingProfilesGroup extends HttpApiGroup.make("shippingProfiles")
  .add(
    Endpoints.list(
      "list",
      "/shipping-profiles",
      ShippingProfile.ShippingProfileId.schema,
      {},
      ShippingProfile.ShippingProfileResource,
      "ShippingProfilePage"
    )
  )
  .add(Endpoints.create("create", "/shipping-profiles", ShippingProfile.CreateShippingProfile, ShippingProfile.ShippingProfileResource, []))
  .add(Endpoints.getOne("get", "/shipping-profiles/:id", ShippingProfile.ShippingProfileResource))
  .add(
    Endpoints.update("update", "/shipping-profiles/:id", ShippingProfile.UpdateShippingProfile, ShippingProfile.ShippingProfileResource, [
      ApiError.ResourceNotFound
    ])
  )
  .add(Endpoints.remove("remove", "/shipping-profiles/:id", ShippingProfile.Deleted, [ApiError.ResourceNotFound]))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { shippingProfiles: "Where the store ships, at which rates; one default per store and mode" },
    ids: { "shipping-profiles": profile.id },
    operations: {
      "shippingProfiles.list": { summary: "List shipping profiles", response: { data: [profile], next_cursor: null } },
      "shippingProfiles.create": {
        summary: "Create a shipping profile",
        description: "The store's first profile becomes its default; `is_default: true` makes this one the default and unsets the other.",
        request: { ...request, is_default: true },
        response: profile
      },
      "shippingProfiles.get": { summary: "Get a shipping profile", response: profile },
      "shippingProfiles.update": {
        summary: "Change a shipping profile",
        request: { name: "Domestic (2-5 days)" },
        response: { ...profile, name: "Domestic (2-5 days)" }
      },
      "shippingProfiles.remove": { summary: "Delete a shipping profile", response: { id: profile.id, deleted: true } }
    }
  }) {}
