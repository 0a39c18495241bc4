import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Templates } from "@switchboard/domain"
import { Effect } from "effect"
import { SwitchboardApi } from "../Api.js"

export const TemplatesLive = HttpApiBuilder.group(SwitchboardApi, "templates", (handlers) =>
  handlers
    // The hot path: the page is built from `Template.toResource`, whose output is already the
    // encoded form of `TemplatePage`, so it is serialised directly instead of re-encoded.
    .handle("list", ({ urlParams }) => Effect.map(Templates.list(urlParams), (page) => HttpServerResponse.unsafeJson(page)))
    .handle("create", ({ payload }) => Templates.create(payload.templateData))
    .handle("sync", () => Templates.sync)
    .handle("remove", ({ path }) => Templates.remove(path.name))
)
