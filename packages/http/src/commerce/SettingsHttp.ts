/** The commerce settings handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { CommerceSettingsRoutes, Eligibility } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { CommerceSettingsGroup } from "./SettingsApi.js"

export const CommerceSettingsLive = HttpApiBuilder.group(apiOf(CommerceSettingsGroup), "commerceSettings", (h) =>
  h
    .handle("get", () => CommerceSettingsRoutes.get)
    .handle("update", ({ payload }) => CommerceSettingsRoutes.update(payload))
    .handle("eligibility", () => Eligibility.get)
)
