/** The template handlers: each route is its use case; the endpoint's schemas render the answer. */
import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@switchboard/domain"
import { Effect } from "effect"
import { apiOf, respond } from "../internal/Handlers.js"
import { TemplatePage, TemplatesGroup } from "./Api.js"

const page = respond(TemplatePage)

export const TemplatesLive = HttpApiBuilder.group(apiOf(TemplatesGroup), "templates", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) => Effect.map(Templates.list(urlParams), page))
    .handle("create", ({ payload }) => Templates.create(payload.templateData))
    .handle("sync", () => Templates.sync)
    .handle("remove", ({ path }) => Templates.remove(path.name))
)
