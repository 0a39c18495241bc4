/** The template handlers: each route is its use case; the endpoint's schemas render the answer. */
import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { TemplatesGroup } from "./Api.js"

export const TemplatesLive = HttpApiBuilder.group(apiOf(TemplatesGroup), "templates", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) => Templates.list(urlParams))
    .handle("create", ({ payload }) => Templates.create(payload.templateData))
    .handle("sync", () => Templates.sync)
    .handle("remove", ({ path }) => Templates.remove(path.name))
)
