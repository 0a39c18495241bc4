/**
 * What a module's storage contract is, in a file of its own: the contracts import these
 * types, and `StorageContracts.ts` imports the contracts (its list), so neither imports the
 * other's importers.
 */
import type { Vitest } from "@effect/vitest"
import type { Repositories } from "@switchboard/store-sql"

/** Every storage port a store provides (`@switchboard/store-sql`'s `Repositories.Services`). */
export type StorageServices = Repositories.Services

/** `it` of `@effect/vitest`, its effects provided every storage port and `TestClock`. */
export type ContractIt = Vitest.MethodsNonLive<StorageServices>

/** One module's storage contract: registered under a `describe` block named `name`. */
export interface ModuleContract {
  readonly name: string
  readonly tests: (it: ContractIt) => void
}
