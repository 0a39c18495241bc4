/**
 * A token of the stored data's state, for caches that must never be stale: `current()`
 * answers a value that changes whenever a write commits, by this process or any other, and
 * undefined when it cannot tell cheaply (then nothing may be cached by it). The SQLite store
 * provides it (its data version and its own connection's change count); PostgreSQL does not.
 * Read it before reading the data it covers: a write between the two only makes the token
 * older than the data, never newer.
 */
import { Context } from "effect"

export class DataVersion extends Context.Tag("@switchboard/domain/DataVersion")<DataVersion, { readonly current: () => string | undefined }>() {}
