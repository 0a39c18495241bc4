/**
 * What the commerce module contributes to the service (see `shared/Module.ts`): its jobs
 * (`commerce.batch` carries a product batch to the operator; `commerce.feed_upload` fetches
 * and applies a feed URL; `commerce.feed_schedule` runs a feed's schedule), the operator
 * events it applies (a customer's cart message becomes an order; payment statuses pay
 * orders) and its caller events.
 */
import * as Module from "../shared/Module.js"
import { BatchJobKind } from "./BatchJob.js"
import * as CatalogMirrors from "./CatalogMirrors.js"
import * as CommerceSettingsRoutes from "./CommerceSettingsRoutes.js"
import * as OrderEvents from "./OrderEvents.js"
import * as Uploads from "./Uploads.js"

export const module = Module.make({
  name: "commerce",
  jobs: [BatchJobKind, Uploads.UploadJob, Uploads.ScheduleJob],
  mirrors: [...CatalogMirrors.kinds, CommerceSettingsRoutes.settingsMirror],
  operatorEvents: { InboundMessage: OrderEvents.onInboundMessage, PaymentStatus: OrderEvents.onPaymentStatus },
  callerEvents: [
    "product_batch.completed",
    "catalog.sync.completed",
    "feed_upload.completed",
    "order.created",
    "order.acknowledged",
    "order.paid",
    "order.cancelled",
    "order.refunded",
    "order.shipped",
    "order.completed",
    "shipment.updated",
    "return.requested",
    "return.updated"
  ]
})
