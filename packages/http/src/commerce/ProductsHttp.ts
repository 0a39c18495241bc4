/** The product and batch handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { Batches, Products } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { ProductsGroup } from "./ProductsApi.js"

export const ProductsLive = HttpApiBuilder.group(apiOf(ProductsGroup), "products", (h) =>
  h
    .handle("list", ({ path, urlParams }) => Products.list(path.id, urlParams))
    .handle("create", ({ path, payload }) => Products.create(path.id, payload))
    .handle("submitBatch", ({ path, payload }) => Batches.submit(path.id, payload))
    .handle("listBatches", ({ path, urlParams }) => Batches.list(path.id, urlParams))
    .handle("getBatch", ({ path, urlParams }) => Batches.get(path.id, path.handle, urlParams))
    .handle("get", ({ path }) => Products.get(path.id))
    .handle("update", ({ path, payload }) => Products.update(path.id, payload))
    .handle("remove", ({ path }) => Products.remove(path.id))
    .handle("errors", ({ path, urlParams }) => Products.errors(path.id, urlParams))
)
