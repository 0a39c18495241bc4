/** The shipping profile handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { ShippingProfiles } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { ShippingProfilesGroup } from "./ShippingApi.js"

export const ShippingProfilesLive = HttpApiBuilder.group(apiOf(ShippingProfilesGroup), "shippingProfiles", (h) =>
  h
    .handle("list", ({ urlParams }) => ShippingProfiles.list(urlParams))
    .handle("create", ({ payload }) => ShippingProfiles.create(payload))
    .handle("get", ({ path }) => ShippingProfiles.get(path.id))
    .handle("update", ({ path, payload }) => ShippingProfiles.update(path.id, payload))
    .handle("remove", ({ path }) => ShippingProfiles.remove(path.id))
)
