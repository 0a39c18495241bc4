/**
 * The caller webhooks module: it runs the deliveries (`webhook.deliver`). It emits no caller
 * events of its own; every other module emits through `Webhooks.emit`.
 */
import * as Module from "../shared/Module.js"
import { deliverJob } from "./Deliveries.js"

export const module = Module.make({
  name: "webhooks",
  jobs: [deliverJob]
})
