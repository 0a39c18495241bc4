/**
 * The storage contract: one list of module contracts, run by each store (SQLite,
 * PostgreSQL) against its own Layer, as better-auth's adapter test kit runs its list of
 * test suites against each adapter.
 *
 * A module contract is a value `{ name, tests }` (`ModuleContract.ts`): `tests` registers
 * `describe`/`it.effect` blocks through the `it` it is given, whose effects are provided
 * every storage port. A new module (commerce, calls, flows) adds one file beside this one
 * exporting its `ModuleContract`, and one entry in `storageContracts` below; both stores
 * then run it.
 *
 * Each store's suite shares one database across its tests; each test works in its own
 * stores, job kinds and idempotency scopes, so tests never see each other's rows. Time goes
 * through Effect's Clock, so leases, run times and lock timeouts are driven with `TestClock`.
 */
import { layer } from "@effect/vitest"
import { Duration, type Layer } from "effect"
import { describe } from "vitest"
import { callsContract } from "./calls.js"
import { campaignsContract } from "./campaigns.js"
import { commerceContract } from "./commerce.js"
import { ordersContract } from "./orders.js"
import { flowsContract } from "./flows.js"
import { foundationContract } from "./foundation.js"
import { messagingContract } from "./messaging-contract.js"
import { mirrorContract } from "./mirror.js"
import type { ModuleContract, StorageServices } from "./ModuleContract.js"

export type { ContractIt, ModuleContract, StorageServices } from "./ModuleContract.js"

/** The contract of every module, in the order the modules build on each other. */
export const storageContracts: ReadonlyArray<ModuleContract> = [
  foundationContract,
  mirrorContract,
  messagingContract,
  campaignsContract,
  commerceContract,
  ordersContract,
  callsContract,
  flowsContract
]

/**
 * Registers `contracts` as a `describe` block named after `dialect`; `makeLayer` provides
 * every port over a fresh, migrated database, built once for the block and released after it.
 */
export const runStorageContracts = (
  dialect: string,
  makeLayer: () => Layer.Layer<StorageServices, unknown>,
  contracts: ReadonlyArray<ModuleContract>
): void =>
  layer(makeLayer(), { timeout: Duration.minutes(2) })(`storage contract (${dialect})`, (it) => {
    for (const contract of contracts) describe(contract.name, () => contract.tests(it))
  })
