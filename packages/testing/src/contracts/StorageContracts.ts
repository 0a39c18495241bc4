/**
 * The storage contract: one list of module contracts, run by each store (SQLite,
 * PostgreSQL) against its own Layer, as better-auth's adapter test kit runs its list of
 * test suites against each adapter.
 *
 * A module contract is a value `{ name, tests }`: `tests` registers `describe`/`it.effect`
 * blocks through the `it` it is given, whose effects are provided every storage port.
 * A new module (commerce, calls, flows) adds one file beside this one exporting its
 * `ModuleContract`, and one entry in `storageContracts` below; both stores then run it.
 *
 * Each store's suite shares one database across its tests; each test works in its own
 * stores, job kinds and idempotency scopes, so tests never see each other's rows. Time goes
 * through Effect's Clock, so leases, run times and lock timeouts are driven with `TestClock`.
 */
import { layer, type Vitest } from "@effect/vitest"
import type { Repositories } from "@switchboard/store-sql"
import { Duration, type Layer } from "effect"
import { describe } from "vitest"
import { callsContract } from "./calls.js"
import { campaignsContract } from "./campaigns.js"
import { commerceContract } from "./commerce.js"
import { ordersContract } from "./commerce-orders.js"
import { flowsContract } from "./flows.js"
import { foundationContract } from "./foundation.js"
import { messagingContract } from "./messaging-contract.js"

/** Every storage port a store provides (`@switchboard/store-sql`'s `Repositories.Services`). */
export type StorageServices = Repositories.Services

/** `it` of `@effect/vitest`, its effects provided every storage port and `TestClock`. */
export type ContractIt = Vitest.MethodsNonLive<StorageServices>

/** One module's storage contract: registered under a `describe` block named `name`. */
export interface ModuleContract {
  readonly name: string
  readonly tests: (it: ContractIt) => void
}

/** The contract of every module, in the order the modules build on each other. */
export const storageContracts: ReadonlyArray<ModuleContract> = [
  foundationContract,
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
