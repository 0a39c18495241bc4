/** The messaging module's storage contract, listed in `storageContracts`: its parts live in `messaging*.ts`. */
import { messageTests } from "./messaging.js"
import { inboundBatchTests } from "./messaging-inbound-batches.js"
import { messageListTests } from "./messaging-list.js"
import { statusBatchTests } from "./messaging-status-batches.js"
import { statusSetTests } from "./messaging-status-sets.js"
import { webhookTests } from "./messaging-webhooks.js"
import type { ModuleContract } from "./ModuleContract.js"

export const messagingContract: ModuleContract = {
  name: "messaging",
  tests: (it) => {
    messageTests(it)
    messageListTests(it)
    webhookTests(it)
    statusBatchTests(it)
    inboundBatchTests(it)
    statusSetTests(it)
  }
}
