import { describe, expect, it } from "vitest"
import { multiRow, prepare } from "../src/internal/Prepared.js"
import { db } from "./CompileOnly.js"

describe("prepare", () => {
  it("compiles once and binds named values in the compiled order, keeping constants", () => {
    const query = prepare((p: { storeId: string; after: string; limit: number }) =>
      db
        .selectFrom("templates")
        .select("id")
        .where("id", "<", p.after)
        .where("status", "=", "APPROVED")
        .where("store_id", "=", p.storeId)
        .limit(p.limit)
    )
    const a = query({ storeId: "str_A", after: "tpl_9", limit: 26 })
    const b = query({ storeId: "str_B", after: "tpl_5", limit: 3 })
    expect(a.sql).toBe('select "id" from "templates" where "id" < $1 and "status" = $2 and "store_id" = $3 limit $4')
    expect(b.sql).toBe(a.sql)
    expect(a.parameters).toEqual(["tpl_9", "APPROVED", "str_A", 26])
    expect(b.parameters).toEqual(["tpl_5", "APPROVED", "str_B", 3])
  })

  it("binds a value used twice in every place", () => {
    const query = prepare((p: { id: string }) =>
      db
        .selectFrom("stores")
        .select("id")
        .where((eb) => eb.or([eb("sandbox_waba_id", "=", p.id), eb("live_waba_id", "=", p.id)]))
    )
    expect(query({ id: "123" }).parameters).toEqual(["123", "123"])
  })
})

describe("multiRow", () => {
  const rows = [
    ["evt_1", "str_A", "a.b", 1],
    ["evt_2", "str_A", "c.d", 2],
    ["evt_3", "str_B", "e.f", 3]
  ]

  it("binds rows given as one flat array exactly as it binds their tuples", () => {
    const insert = multiRow(4, (rs) =>
      db.insertInto("webhook_events").values(rs.map((r) => ({ id: r[0], store_id: r[1], type: r[2], created_at: r[3] }) as never))
    )
    for (const n of [3, 2, 1]) {
      const tuples = insert(rows.slice(0, n))
      const flat = insert.flat(rows.slice(0, n).flat(), n)
      expect(flat.sql).toBe(tuples.sql)
      expect(flat.parameters).toEqual(tuples.parameters)
    }
    // a longer array than n rows: only the first n rows are bound
    expect(insert.flat(rows.flat(), 2).parameters).toEqual(insert(rows.slice(0, 2)).parameters)
  })

  it("with reuse, binds the same statement and values, leaving the array unfrozen to be filled again", () => {
    const insert = multiRow(4, (rs) =>
      db.insertInto("webhook_events").values(rs.map((r) => ({ id: r[0], store_id: r[1], type: r[2], created_at: r[3] }) as never))
    )
    const values = rows.flat()
    const reused = insert.flat(values, 3, true)
    expect(reused.sql).toBe(insert(rows).sql)
    expect(reused.parameters).toEqual(insert(rows).parameters)
    expect(reused.query).toEqual(insert.flat(rows.flat(), 3).query)
    expect(Object.isFrozen(values)).toBe(false)
    values[0] = "evt_9"
    expect(insert.flat(values, 3, true).parameters[0]).toBe("evt_9")
    // an array of another length than n rows is bound as without reuse
    expect(insert.flat(rows.flat(), 2, true).parameters).toEqual(insert(rows.slice(0, 2)).parameters)
  })

  it("keeps constants and the compiled order when the statement binds more than the cells, in another order", () => {
    const insert = multiRow(2, (rs) =>
      db.insertInto("webhook_events").values(rs.map((r) => ({ type: r[1], id: r[0], store_id: "str_K", created_at: 7 }) as never))
    )
    const tuples = insert([
      ["evt_1", "a.b"],
      ["evt_2", "c.d"]
    ])
    const flat = insert.flat(["evt_1", "a.b", "evt_2", "c.d"], 2)
    expect(flat.sql).toBe(tuples.sql)
    expect(flat.parameters).toEqual(tuples.parameters)
    expect(flat.parameters).toContain("str_K")
  })
})
