/** The template handlers: each route is its use case; the endpoint's schemas render the answer. */
import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@switchboard/domain"
import { Effect } from "effect"
import * as FastLane from "../FastLane.js"
import { apiOf, respondRendered } from "../internal/Handlers.js"
import { TemplatePage, TemplatesGroup } from "./Api.js"
import { renderPage } from "./Render.js"

const page = respondRendered(TemplatePage, renderPage)
const listPage = ({ urlParams }: { readonly urlParams: Templates.ListQuery }) => Templates.list(urlParams)
const byNamePage = ({ path, urlParams }: { readonly path: { readonly name: string }; readonly urlParams: Templates.ByNameQuery }) =>
  Templates.byName(path.name, urlParams)
const list = (input: Parameters<typeof listPage>[0]) => Effect.map(listPage(input), page)
const byName = (input: Parameters<typeof byNamePage>[0]) => Effect.map(byNamePage(input), page)

/** The routes the fast lane answers (`FastLane.ts`): the pages, rendered by the lane with the handlers' own `renderPage`. */
export const TemplatesHot = [FastLane.get(TemplatesGroup, "list", listPage, renderPage), FastLane.get(TemplatesGroup, "get", byNamePage, renderPage)]

export const TemplatesLive = HttpApiBuilder.group(apiOf(TemplatesGroup), "templates", (handlers) =>
  handlers
    .handle("list", list)
    .handle("create", ({ payload }) => Templates.create(payload.templateData))
    .handle("sync", () => Templates.sync)
    .handle("get", byName)
    .handle("remove", ({ path }) => Templates.remove(path.name))
)
