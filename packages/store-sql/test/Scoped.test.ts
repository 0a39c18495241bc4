import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import * as Columns from "../src/internal/Columns.js"
import { prepare } from "../src/internal/Prepared.js"
import { ownedBy, scoped, scopedDelete, scopedUpdate } from "../src/internal/Scoped.js"
import { db } from "./CompileOnly.js"

const tenant = { storeId: "str_A", mode: "test" } as const

describe("scoped", () => {
  it("names the tenant's store and mode in every statement", () => {
    expect(scoped(db, "calls", tenant).select("id").where("id", "=", "call_1").compile()).toMatchObject({
      sql: 'select "id" from "calls" where "store_id" = $1 and "mode" = $2 and "id" = $3',
      parameters: ["str_A", "test", "call_1"]
    })
    expect(scopedUpdate(db, "calls", tenant).set({ status: "ended" }).compile()).toMatchObject({
      sql: 'update "calls" set "status" = $1 where "store_id" = $2 and "mode" = $3',
      parameters: ["ended", "str_A", "test"]
    })
    expect(scopedDelete(db, "calls", tenant).compile()).toMatchObject({
      sql: 'delete from "calls" where "store_id" = $1 and "mode" = $2',
      parameters: ["str_A", "test"]
    })
  })

  it("names the store alone for a store's table or a lookup across modes", () => {
    expect(scoped(db, "templates", { storeId: "str_A" }).select("id").compile()).toMatchObject({
      sql: 'select "id" from "templates" where "store_id" = $1',
      parameters: ["str_A"]
    })
  })

  it("places a prepared statement's stand-ins like values", () => {
    const query = prepare((p: { storeId: string; mode: string; id: string }) => scoped(db, "messages", p).select("id").where("id", "=", p.id))
    expect(query({ storeId: "str_B", mode: "live", id: "msg_1" })).toMatchObject({
      sql: 'select "id" from "messages" where "store_id" = $1 and "mode" = $2 and "id" = $3',
      parameters: ["str_B", "live", "msg_1"]
    })
  })

  it("scopes a joined table by its alias", () => {
    const query = db.selectFrom("products as p").select("p.id").where(ownedBy("p", tenant)).compile()
    expect(query.sql).toBe('select "p"."id" from "products" as "p" where ("p"."store_id" = $1 and "p"."mode" = $2)')
  })
})

describe("Columns.json", () => {
  const columns = Columns.map<{ readonly id: string; readonly tags: ReadonlyArray<string> }, { readonly id: string; readonly tags: string }>(
    "things",
    { id: ["id", Columns.text], tags: ["tags", Columns.json(Schema.Array(Schema.String))] }
  )

  it("decodes JSON text through the field's Schema, keeping what JSON.stringify wrote", () => {
    expect(columns.fromRow({ id: "a", tags: '["x","y"]' })).toEqual({ id: "a", tags: ["x", "y"] })
    expect(columns.toRow({ id: "a", tags: ["x"] })).toEqual({ id: "a", tags: '["x"]' })
  })

  it("keeps properties the Schema does not name", () => {
    const codec = Columns.json(Schema.Struct({ a: Schema.Number }))
    expect(codec.fromRow('{"a":1,"b":2}')).toEqual({ a: 1, b: 2 })
  })

  it("throws a RowDecodeError naming the table and column for a value that does not decode", () => {
    expect(() => columns.fromRow({ id: "a", tags: '["x",1]' })).toThrow(Columns.RowDecodeError)
    expect(() => columns.fromRow({ id: "a", tags: '["x",1]' })).toThrow(/^things\.tags does not decode/)
    expect(() => columns.fromRow({ id: "a", tags: "not json" })).toThrow(/^things\.tags does not decode/)
  })
})
