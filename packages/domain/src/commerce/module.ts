/**
 * What the commerce module contributes to the service (see `shared/Module.ts`): its jobs
 * (`commerce.batch` carries a product batch to the operator; `commerce.feed_upload` fetches
 * and applies a feed URL; `commerce.feed_schedule` runs a feed's schedule) and its caller events. Orders, built on
 * catalogs and products, are a module of their own (`orders/`).
 */
import * as Module from "../shared/Module.js"
import { BatchJobKind } from "./BatchJob.js"
import * as CatalogMirrors from "./CatalogMirrors.js"
import * as CommerceSettingsRoutes from "./CommerceSettingsRoutes.js"
import * as ProductMirrors from "./ProductMirrors.js"
import * as Uploads from "./Uploads.js"

export const module = Module.make({
  name: "commerce",
  jobs: [BatchJobKind, Uploads.UploadJob, Uploads.ScheduleJob],
  mirrors: [...CatalogMirrors.kinds, ...ProductMirrors.kinds, CommerceSettingsRoutes.settingsMirror],
  callerEvents: ["product_batch.completed", "catalog.sync.completed", "feed_upload.completed"]
})
