import { Context, Schema } from "effect"

/** Live objects are real; test objects are sandbox data invisible to live keys, and the other way round. */
export const Mode = Schema.Literal("live", "test")
export type Mode = typeof Mode.Type

/** Who is calling: the store their key belongs to and the key's mode. Every query is scoped by it. */
export interface Tenant {
  readonly storeId: string
  readonly mode: Mode
}

/** The tenant of the current request, provided by authentication. */
export class CurrentTenant extends Context.Tag("@switchboard/domain/CurrentTenant")<CurrentTenant, Tenant>() {}
