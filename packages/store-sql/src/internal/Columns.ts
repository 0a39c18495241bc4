/**
 * One column map per table: how each field of an entity is stored, in both directions.
 * Timestamps are epoch milliseconds (`bigint` on PostgreSQL, which pg hands back as text),
 * JSON is TEXT, booleans are integers 0/1. A repository declares its map once and uses
 * `toRow` for writes and `fromRow` for reads; no field is converted by hand elsewhere.
 *
 *   const columns = Columns.map<Campaign, CampaignsTable>("campaigns", {
 *     id: ["id", Columns.text], parameters: ["parameters", Columns.json(Campaign.fields.parameters)], ...
 *   })
 *
 * A JSON column is decoded through the Schema of its field (its type side: what
 * `JSON.stringify` of the value wrote), never cast; a stored value that does not decode is a
 * defect that names its table and column (`RowDecodeError`).
 */
import { Data, Schema } from "effect"

/** A stored value that does not decode as its field's Schema says: a defect, never a failure. */
export class RowDecodeError extends Data.TaggedError("RowDecodeError")<{
  readonly table: string
  readonly column: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `${this.table}.${this.column} does not decode: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/** How one field is stored. */
export interface Codec<A, C> {
  readonly toRow: (a: A) => C
  readonly fromRow: (c: C) => A
}

const identity = <A>(a: A): A => a

/** Stored as it is (text, integers that fit a double, enums). */
export const text: Codec<any, any> = { toRow: identity, fromRow: identity }
export const same = text

/** Epoch milliseconds; pg answers `bigint` columns as strings. */
export const epoch: Codec<number, number | string> = { toRow: identity, fromRow: (c) => Number(c) }

/** An integer column pg may answer as a string (`bigint`, counts). */
export const integer: Codec<number, number | string> = epoch

/**
 * JSON text of a value of `schema`, decoded through it (`Schema.parseJson` of its type side,
 * keeping properties the Schema does not name, as `JSON.parse` did). Writes are
 * `JSON.stringify`, as before.
 */
export const json = <A, I>(schema: Schema.Schema<A, I>): Codec<A, string> => ({
  toRow: (a) => JSON.stringify(a),
  fromRow: Schema.decodeUnknownSync(Schema.parseJson(Schema.typeSchema(schema)), { onExcessProperty: "preserve" })
})

/** JSON text of any value (a message's content, an event's data): nothing to check, `null` for none. */
export const anyJson: Codec<unknown, string> = { toRow: (a) => JSON.stringify(a ?? null), fromRow: (c) => JSON.parse(c) as unknown }

/** `codec.fromRow` for a column read outside a column map: a value that does not decode is a `RowDecodeError` naming it. */
export const reader =
  <A, C>(table: string, column: string, codec: Codec<A, C>) =>
  (c: C): A => {
    try {
      return codec.fromRow(c)
    } catch (cause) {
      throw new RowDecodeError({ table, column, cause })
    }
  }

/** 0/1 integers (PostgreSQL booleans come back as booleans). */
export const bool: Codec<boolean, number | boolean> = { toRow: (a) => (a ? 1 : 0), fromRow: (c) => c === true || c === 1 }

/** `null` stays `null`; other values go through `codec`. */
export const nullable = <A, C>(codec: Codec<A, C>): Codec<A | null, C | null> => ({
  toRow: (a) => (a === null ? null : codec.toRow(a)),
  fromRow: (c) => (c === null || c === undefined ? null : codec.fromRow(c))
})

export type Spec<E> = { readonly [K in keyof E]-?: readonly [column: string, codec: Codec<E[K], any>] }

export interface ColumnMap<E, Row> {
  readonly toRow: (entity: E) => Row
  readonly fromRow: (row: Row) => E
  /** field name -> column name */
  readonly column: { readonly [K in keyof E]-?: string }
}

/** A column map made from a spec (`map`), which can also write tuples. */
export interface SpecMap<E, Row> extends ColumnMap<E, Row> {
  /** Writes as value tuples in the order of `columns` (a multi-row statement's binding), no row object in between. */
  readonly toTuple: (columns: ReadonlyArray<keyof Row & string>) => (entity: E) => Array<unknown>
}

/** `toTuple` for rows of a tenant: the `store_id` and `mode` cells (where `columns` has them) are the tenant's. */
export const tenantTuple =
  (columns: ReadonlyArray<string>, toTuple: (entity: any) => Array<unknown>) =>
  <E>(entity: E, tenant: { readonly storeId: string; readonly mode: string }): Array<unknown> => {
    const row = toTuple(entity)
    const store = columns.indexOf("store_id")
    const mode = columns.indexOf("mode")
    if (store >= 0) row[store] = tenant.storeId
    if (mode >= 0) row[mode] = tenant.mode
    return row
  }

/** The column map of an entity stored in rows of type `Row` of `table`. */
export const map = <E, Row>(table: string, spec: Spec<E>): SpecMap<E, Row> => {
  const entries = Object.entries(spec) as Array<[string, readonly [string, Codec<unknown, unknown>]]>
  // plain arrays and an index loop: `fromRow` runs for every row of every list
  const fieldNames = entries.map(([field]) => field)
  const columnNames = entries.map(([, [column]]) => column)
  const codecs = entries.map(([, [, codec]]) => codec)
  return {
    toRow: (entity) => {
      const row: Record<string, unknown> = {}
      for (let i = 0; i < codecs.length; i++) row[columnNames[i]] = codecs[i].toRow((entity as Record<string, unknown>)[fieldNames[i]])
      return row as Row
    },
    fromRow: (row) => {
      const entity: Record<string, unknown> = {}
      let i = 0
      try {
        for (; i < codecs.length; i++) entity[fieldNames[i]] = codecs[i].fromRow((row as Record<string, unknown>)[columnNames[i]])
      } catch (cause) {
        throw new RowDecodeError({ table, column: columnNames[i], cause })
      }
      return entity as E
    },
    column: Object.fromEntries(entries.map(([field, [column]]) => [field, column])) as ColumnMap<E, Row>["column"],
    toTuple: (columns) => {
      const fields = columns.map((column) => {
        const found = entries.find(([, [c]]) => c === column)
        if (found === undefined) throw new Error(`no field is stored in column ${column}`)
        return found
      })
      return (entity) => {
        const tuple = new Array<unknown>(fields.length)
        for (let i = 0; i < fields.length; i++) {
          const [field, [, codec]] = fields[i]
          tuple[i] = codec.toRow((entity as Record<string, unknown>)[field])
        }
        return tuple
      }
    }
  }
}

/** A tenant's row: its store and mode (`store_id`, `mode`), the columns every tenant table has. */
export interface TenantRow {
  readonly store_id: string
  readonly mode: "live" | "test"
}

/** A tenant's entity row: its id first, then its tenant. */
export interface OwnedRow extends TenantRow {
  readonly id: string
}

/** The times a row was made and last changed (epoch milliseconds, text from pg's `bigint`). */
export interface StampedRow {
  readonly created_at: number | string
  readonly updated_at: number | string
}

/** The fields of `TenantRow` in a spec: `storeId`, `mode`. */
export const tenant = { storeId: ["store_id", text], mode: ["mode", text] } as const

/** The fields of `OwnedRow` in a spec: `id`, `storeId`, `mode`. */
export const owned = { id: ["id", text], ...tenant } as const

/** The fields of `StampedRow` in a spec: `createdAt`, `updatedAt`. */
export const stamps = { createdAt: ["created_at", epoch], updatedAt: ["updated_at", epoch] } as const
