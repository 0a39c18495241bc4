/**
 * What the commerce module contributes to the service (see `shared/Module.ts`). So far its
 * shipping profiles, which need no job and no operator event; catalogs, products, batches,
 * feeds and their caller events (`catalog.sync.completed`, `product_batch.completed`,
 * `feed_upload.completed`) join as they are built.
 */
import * as Module from "../shared/Module.js"

export const module = Module.make({ name: "commerce" })
