/** Shipping profile routes (spec §4.6): each takes the caller's tenant from `CurrentStore`. */
import { Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Profile from "./ShippingProfile.js"
import { type ProfilePatch, ShippingProfileRepo } from "./ShippingProfileRepo.js"

const RESOURCE = "shipping profile"

const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(ShippingProfileRepo, (repo) => Id.lookup(Profile.ShippingProfileId, RESOURCE, id, (profileId) => repo.find(tenant, profileId)))

/** `POST /chat/shipping-profiles`. */
export const create = (input: Profile.CreateShippingProfile) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const now = yield* Time.now
    return yield* (yield* ShippingProfileRepo).insert(tenant, {
      id: yield* Profile.ShippingProfileId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      name: input.name,
      destinations: input.destinations,
      handlingTime: input.handling_time ?? Profile.DEFAULT_HANDLING_TIME,
      isDefault: input.is_default ?? false,
      createdAt: now,
      updatedAt: now
    })
  })

/** `GET /chat/shipping-profiles`: newest first. */
export const list = (query: { readonly limit: number; readonly cursor?: Profile.ShippingProfileId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* ShippingProfileRepo).list(tenant, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Profile.ShippingProfileId.schema, (p) => p.id)
  })

/** `GET /chat/shipping-profiles/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** `PATCH /chat/shipping-profiles/{id}`. */
export const update = (id: string, input: Profile.UpdateShippingProfile) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const profile = yield* lookup(tenant, id)
    const patch: ProfilePatch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.destinations !== undefined ? { destinations: input.destinations } : {}),
      ...(input.handling_time !== undefined ? { handlingTime: input.handling_time } : {}),
      ...(input.is_default !== undefined ? { isDefault: input.is_default } : {})
    }
    const updated = yield* (yield* ShippingProfileRepo).update(tenant, profile.id, patch, yield* Time.now)
    return yield* Id.orNotFound(RESOURCE, id)(updated)
  })

/** `DELETE /chat/shipping-profiles/{id}`. Deleting the default leaves the tenant without one. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const profile = yield* lookup(tenant, id)
    const removed = yield* (yield* ShippingProfileRepo).remove(tenant, profile.id)
    if (!removed) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: RESOURCE, id }))
    return { id: profile.id, deleted: true as const }
  })
