/** The template handlers: each route is its use case; the endpoint's schemas render the answer. */
import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@switchboard/domain"
import { Effect } from "effect"
import * as FastLane from "../FastLane.js"
import { apiOf, respond } from "../internal/Handlers.js"
import { TemplatePage, TemplatesGroup } from "./Api.js"

const page = respond(TemplatePage)
const list = ({ urlParams }: { readonly urlParams: Templates.ListQuery }) => Effect.map(Templates.list(urlParams), page)

/** The routes the fast lane answers (`FastLane.ts`). */
export const TemplatesHot = [FastLane.get(TemplatesGroup, "list", list)]

export const TemplatesLive = HttpApiBuilder.group(apiOf(TemplatesGroup), "templates", (handlers) =>
  handlers
    .handle("list", list)
    .handle("create", ({ payload }) => Templates.create(payload.templateData))
    .handle("sync", () => Templates.sync)
    .handle("get", ({ path, urlParams }) => Effect.map(Templates.byName(path.name, urlParams), page))
    .handle("remove", ({ path }) => Templates.remove(path.name))
)
