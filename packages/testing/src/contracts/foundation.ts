/**
 * The foundation's storage contract: stores and their keys, templates, transactions, the
 * job queue (leases, fencing), idempotency keys and the webhook inbox. Its parts live in
 * `foundation-*.ts`, one file per group of ports.
 */
import { inboxTests } from "./foundation-inbox.js"
import { jobTests } from "./foundation-jobs.js"
import { jobFairnessTests } from "./foundation-jobs-fairness.js"
import { keyTests } from "./foundation-keys.js"
import { storeTests } from "./foundation-stores.js"
import { transactorTests } from "./foundation-transactions.js"
import type { ModuleContract } from "./ModuleContract.js"
import { templateBatchTests } from "./templates-batches.js"

export const foundationContract: ModuleContract = {
  name: "foundation",
  tests: (it) => {
    storeTests(it)
    templateBatchTests(it)
    keyTests(it)
    transactorTests(it)
    jobTests(it)
    jobFairnessTests(it)
    inboxTests(it)
  }
}
