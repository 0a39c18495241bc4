import { describe, expect, it } from "vitest"
import { prepare } from "../src/internal/Prepared.js"
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
