/**
 * The tenant: every query is scoped by the caller's store and the key's mode. Authentication
 * reads the store once and provides it as `CurrentStore`; use cases take it from there and
 * pass the `Tenant` as the first argument of every port method a route can reach.
 */
import { Context, Schema } from "effect"
import * as Id from "./Id.js"
import type { Store } from "../stores/Store.js"

/** Live objects are real; test objects are sandbox data invisible to live keys, and the other way round. */
export const Mode = Schema.Literal("live", "test")
export type Mode = typeof Mode.Type

export const StoreId = Id.kind("str", "StoreId")
export type StoreId = Id.Of<typeof StoreId>

/** The fields of a tenant's entity that say whose it is (spread first in its `Schema.Struct`): the `Tenant`'s. */
export const Owned = { storeId: StoreId.schema, mode: Mode }

/** Who owns a row: a store and a mode. Another store's or the other mode's rows are invisible. */
export interface Tenant {
  readonly storeId: StoreId
  readonly mode: Mode
}

/** The authenticated caller: the store its key belongs to (read once per key) and the tenant it acts as. */
export interface Caller {
  readonly store: Store
  readonly tenant: Tenant
}

/** The caller of the current request, provided by authentication. */
export class CurrentStore extends Context.Tag("@switchboard/domain/CurrentStore")<CurrentStore, Caller>() {}
