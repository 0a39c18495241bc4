/** The template handlers: each route is its use case; the endpoint's schemas render the answer. */
import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@switchboard/domain"
import { Effect } from "effect"
import * as FastLane from "../FastLane.js"
import { apiOf, respondRendered } from "../internal/Handlers.js"
import { TemplatePage, TemplatesGroup } from "./Api.js"
import { renderPage } from "./Render.js"

const page = respondRendered(TemplatePage, renderPage)
const list = ({ urlParams }: { readonly urlParams: Templates.ListQuery }) => Effect.map(Templates.list(urlParams), page)
const byName = ({ path, urlParams }: { readonly path: { readonly name: string }; readonly urlParams: Templates.ByNameQuery }) =>
  Effect.map(Templates.byName(path.name, urlParams), page)

/** The routes the fast lane answers (`FastLane.ts`). */
export const TemplatesHot = [FastLane.get(TemplatesGroup, "list", list), FastLane.get(TemplatesGroup, "get", byName)]

export const TemplatesLive = HttpApiBuilder.group(apiOf(TemplatesGroup), "templates", (handlers) =>
  handlers
    .handle("list", list)
    .handle("create", ({ payload }) => Templates.create(payload.templateData))
    .handle("sync", () => Templates.sync)
    .handle("get", byName)
    .handle("remove", ({ path }) => Templates.remove(path.name))
)
