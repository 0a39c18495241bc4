/** The refund and cancellation handlers: each route is its use case. */
import { HttpApiBuilder } from "@effect/platform"
import { Refunds } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { RefundsGroup } from "./RefundsApi.js"

export const RefundsLive = HttpApiBuilder.group(apiOf(RefundsGroup), "refunds", (h) =>
  h
    .handle("list", ({ path, urlParams }) => Refunds.listRefunds(path.id, urlParams))
    .handle("create", ({ path, payload }) => Refunds.createRefund(path.id, payload))
    .handle("get", ({ path }) => Refunds.getRefund(path.id, path.refundId))
    .handle("refundableAmount", ({ path }) => Refunds.refundableAmount(path.id))
    .handle("listCancellations", ({ path, urlParams }) => Refunds.listCancellations(path.id, urlParams))
    .handle("createCancellation", ({ path, payload }) => Refunds.createCancellation(path.id, payload))
    .handle("getCancellation", ({ path }) => Refunds.getCancellation(path.id, path.cancellationId))
)
