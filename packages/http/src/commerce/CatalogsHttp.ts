/** The catalog handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { Catalogs } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { CatalogsGroup } from "./CatalogsApi.js"

export const CatalogsLive = HttpApiBuilder.group(apiOf(CatalogsGroup), "catalogs", (h) =>
  h
    .handle("list", ({ urlParams }) => Catalogs.list(urlParams))
    .handle("create", ({ payload }) => Catalogs.create(payload))
    .handle("connect", ({ payload }) => Catalogs.connect(payload))
    .handle("get", ({ path }) => Catalogs.get(path.id))
    .handle("update", ({ path, payload }) => Catalogs.update(path.id, payload))
    .handle("remove", ({ path }) => Catalogs.remove(path.id))
    .handle("disconnect", ({ path }) => Catalogs.setConnected(path.id, false))
)
