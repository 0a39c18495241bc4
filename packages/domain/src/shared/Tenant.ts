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

const byKey = <A>(a: { readonly key: string; readonly value: A }, b: { readonly key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

/** The tenants of a batch's items, each with its items in the order of the batch; tenants in the order of their keys (one lock order). */
export const byTenant = <A extends { readonly tenant: Tenant }>(items: ReadonlyArray<A>) => {
  const groups = new Map<string, { readonly key: string; readonly value: { readonly tenant: Tenant; readonly items: Array<A> } }>()
  for (const item of items) {
    const key = `${item.tenant.storeId} ${item.tenant.mode}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, { key, value: { tenant: item.tenant, items: [item] } })
    else group.value.items.push(item)
  }
  return [...groups.values()].sort(byKey).map((g) => g.value)
}
