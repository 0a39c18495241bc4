/**
 * Shipping profiles: where a store ships, at which rates, and how long it takes to hand an
 * order over (spec §4.6). A profile belongs to one tenant (store and mode); another tenant's
 * id answers as an id that does not exist. At most one profile of a tenant is the default:
 * making one the default unsets the other in the same transaction.
 *
 * The operator's shipping profiles (GRAPH_API.md §8.6) take destinations and a handling
 * time whose inner schema the fact sheet could not find; ours is the common shape of
 * commerce platforms: destinations by ISO 3166-1 country with optional regions, each with
 * named rates (integer minor units, ISO 4217 currency, minimum and maximum transit days).
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import { Currency, MinorUnits } from "../shared/Money.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"

/** `shp_…` */
export const ShippingProfileId = Id.kind("shp", "ShippingProfileId")
export type ShippingProfileId = Id.Of<typeof ShippingProfileId>

const strict = { parseOptions: { onExcessProperty: "error" } } as const

const Days = Schema.Number.pipe(
  Schema.filter((n) => (Number.isInteger(n) && n >= 0 && n <= 365) || "must be a whole number of days from 0 to 365"),
  Schema.annotations({ jsonSchema: { type: "integer", minimum: 0, maximum: 365 } })
)
const Text = (max: number) => Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= max) || `must be 1 to ${max} characters`))

/** ISO 3166-1 alpha-2, upper case. */
export const Country = Schema.String.pipe(Schema.filter((s) => /^[A-Z]{2}$/.test(s) || "must be an ISO 3166-1 alpha-2 country code such as US"))

/** A span of days, minimum no more than maximum. */
const DaySpan = <S extends Schema.Struct.Fields>(fields: S, identifier: string) =>
  Schema.Struct({ ...fields, min_days: Days, max_days: Days }).pipe(
    Schema.filter((r) => {
      const span = r as unknown as { readonly min_days: number; readonly max_days: number }
      return span.min_days <= span.max_days || { path: ["max_days"], message: "must not be less than min_days" }
    }),
    Schema.annotations({ ...strict, identifier })
  )

export const Rate = DaySpan({ name: Text(100), price: MinorUnits, currency: Currency }, "ShippingRate")
export type Rate = typeof Rate.Type

export const HandlingTime = DaySpan({}, "HandlingTime")
export type HandlingTime = typeof HandlingTime.Type

export const Destination = Schema.Struct({
  country: Country,
  regions: Schema.optionalWith(Schema.Array(Text(100)).pipe(Schema.maxItems(100)), { default: () => [] }),
  rates: Schema.Array(Rate).pipe(Schema.minItems(1), Schema.maxItems(20))
}).annotations({ ...strict, identifier: "ShippingDestination" })
export type Destination = typeof Destination.Type

const Destinations = Schema.Array(Destination).pipe(
  Schema.minItems(1),
  Schema.maxItems(250),
  Schema.filter((ds) => {
    const seen = new Set<string>()
    for (const [i, d] of ds.entries()) {
      const keys = d.regions.length === 0 ? [d.country] : d.regions.map((r) => `${d.country}/${r}`)
      for (const k of keys) {
        if (seen.has(k)) return { path: [i, "country"], message: `names ${k} twice` }
        seen.add(k)
      }
    }
    return true
  })
)

/** The profile. */
export const ShippingProfile = Schema.Struct({
  id: ShippingProfileId.schema,
  ...Owned,
  name: Schema.String,
  destinations: Schema.Array(Destination),
  handlingTime: HandlingTime,
  isDefault: Schema.Boolean,
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface ShippingProfile extends Schema.Schema.Type<typeof ShippingProfile> {}

/** `POST /chat/shipping-profiles`. Without a handling time: 1 to 3 days; the first profile of a tenant is its default. */
export const CreateShippingProfile = Schema.Struct({
  name: Text(200),
  destinations: Destinations,
  handling_time: Schema.optional(HandlingTime),
  is_default: Schema.optional(Schema.Boolean)
}).annotations({ ...strict, identifier: "CreateShippingProfile" })
export type CreateShippingProfile = typeof CreateShippingProfile.Type

/** `PATCH /chat/shipping-profiles/{id}`: fields left out stay. `is_default: true` makes it the default (unsetting the other); `false` on the default leaves the tenant without one. */
export const UpdateShippingProfile = Schema.Struct({
  name: Schema.optional(Text(200)),
  destinations: Schema.optional(Destinations),
  handling_time: Schema.optional(HandlingTime),
  is_default: Schema.optional(Schema.Boolean)
}).annotations({ ...strict, identifier: "UpdateShippingProfile" })
export type UpdateShippingProfile = typeof UpdateShippingProfile.Type

export const DEFAULT_HANDLING_TIME: HandlingTime = { min_days: 1, max_days: 3 }

/** The profile as the API shows it. */
export const ShippingProfileResource = Schema.Struct({
  id: ShippingProfile.fields.id,
  name: ShippingProfile.fields.name,
  destinations: ShippingProfile.fields.destinations,
  handlingTime: Wire.key(ShippingProfile.fields.handlingTime, "handling_time"),
  isDefault: Wire.key(ShippingProfile.fields.isDefault, "is_default"),
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "ShippingProfile" })

/** The answer of `DELETE /chat/shipping-profiles/{id}`. */
export const Deleted = Schema.Struct({ id: ShippingProfileId.schema, deleted: Schema.Literal(true) })
