/** The catalog handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { CatalogSync, Catalogs } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { CatalogsGroup } from "./CatalogsApi.js"

export const CatalogsLive = HttpApiBuilder.group(apiOf(CatalogsGroup), "catalogs", (h) =>
  h
    .handle("list", ({ urlParams }) => Catalogs.list(urlParams))
    .handle("create", ({ payload }) => Catalogs.create(payload))
    .handle("connect", ({ payload }) => Catalogs.connect(payload))
    .handle("get", ({ path }) => Catalogs.get(path.id))
    .handle("update", ({ path, payload }) => Catalogs.update(path.id, payload))
    .handle("remove", ({ path, urlParams }) => Catalogs.remove(path.id, urlParams.force ?? false))
    .handle("sync", ({ path }) => CatalogSync.sync(path.id))
    .handle("getSync", ({ path }) => CatalogSync.getSync(path.id, path.syncId))
    .handle("diagnostics", ({ path }) => CatalogSync.diagnostics(path.id))
    .handle("errors", ({ path, urlParams }) => CatalogSync.errors(path.id, urlParams))
    .handle("disconnect", ({ path }) => Catalogs.setConnected(path.id, false))
)
