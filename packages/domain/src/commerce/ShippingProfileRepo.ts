/**
 * Storage of shipping profiles, scoped by the tenant (store and mode): another tenant's rows
 * are invisible. At most one default per tenant, kept in the store's own transaction.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { ShippingProfile, ShippingProfileId } from "./ShippingProfile.js"

export type ProfilePatch = Partial<Pick<ShippingProfile, "name" | "destinations" | "handlingTime" | "isDefault">>

export class ShippingProfileRepo extends Context.Tag("@switchboard/domain/ShippingProfileRepo")<
  ShippingProfileRepo,
  {
    /**
     * Stores the profile. When it is the default (or the tenant has no profile yet, when it
     * becomes the default), the tenant's other default is unset in the same transaction.
     * Answers the profile as stored.
     */
    readonly insert: (tenant: Tenant, profile: ShippingProfile) => Effect.Effect<ShippingProfile>
    readonly find: (tenant: Tenant, id: ShippingProfileId) => Effect.Effect<Option.Option<ShippingProfile>>
    /** Newest first by id, rows with id < `after` when given. */
    readonly list: (tenant: Tenant, page: PageRequest & { readonly after?: ShippingProfileId | undefined }) => Effect.Effect<Slice<ShippingProfile>>
    /**
     * Applies `patch` at `now`; `isDefault: true` unsets the tenant's other default in the same
     * transaction. Answers the updated profile, or none when it does not exist in the tenant.
     */
    readonly update: (tenant: Tenant, id: ShippingProfileId, patch: ProfilePatch, now: number) => Effect.Effect<Option.Option<ShippingProfile>>
    /** Answers whether a row went. */
    readonly remove: (tenant: Tenant, id: ShippingProfileId) => Effect.Effect<boolean>
  }
>() {}
