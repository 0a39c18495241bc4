import { describe, expect, it } from "vitest"
import { preparedLists } from "../src/internal/PreparedLists.js"
import { db } from "./CompileOnly.js"

/** The query under test, built with real values or with stand-ins alike. */
const calls = (p: { storeId: string; mode: "live" | "test" }, [byOperator, byId]: ReadonlyArray<ReadonlyArray<unknown>>) =>
  db
    .selectFrom("calls")
    .select("id")
    .where("store_id", "=", p.storeId)
    .where("mode", "=", p.mode)
    .where("status", "!=", "ended")
    .where((eb) =>
      eb.or([
        ...(byOperator.length === 0 ? [] : [eb("operator_call_id", "in", byOperator as Array<string>)]),
        ...(byId.length === 0 ? [] : [eb("id", "in", byId as Array<string>)])
      ])
    )

describe("preparedLists", () => {
  const query = preparedLists((p: { storeId: string; mode: "live" | "test" }, lists) => calls(p, lists))

  it("answers the SQL and parameters Kysely compiles for the same values: lists of one and of many, one list empty", () => {
    const cases: ReadonlyArray<readonly [{ storeId: string; mode: "live" | "test" }, ReadonlyArray<ReadonlyArray<string>>]> = [
      [{ storeId: "str_A", mode: "test" }, [["wacid.1"], []]],
      [{ storeId: "str_B", mode: "live" }, [["wacid.1", "wacid.2", "wacid.3"], ["cal_1"]]],
      [{ storeId: "str_A", mode: "test" }, [[], ["cal_1", "cal_2"]]],
      // the same lengths again, other values: the statement compiled for them is bound anew
      [{ storeId: "str_C", mode: "live" }, [["wacid.9", "wacid.8", "wacid.7"], ["cal_5"]]]
    ]
    for (const [params, lists] of cases) {
      const direct = calls(params, lists).compile()
      const bound = query(params, lists)
      expect(bound.sql).toBe(direct.sql)
      expect(bound.parameters).toEqual(direct.parameters)
    }
  })

  it("compiles once per list lengths: other lengths, other SQL", () => {
    const one = query({ storeId: "str_A", mode: "test" }, [["a"], []])
    const many = query({ storeId: "str_A", mode: "test" }, [["a", "b"], []])
    expect(one.sql).not.toBe(many.sql)
    expect(many.sql).toContain("in ($4, $5)")
    expect(query({ storeId: "str_B", mode: "live" }, [["c"], []]).sql).toBe(one.sql)
  })

  it("keeps the lengths' statements it was told to, compiling a dropped one again the same", () => {
    const small = preparedLists((p: { storeId: string; mode: "live" | "test" }, lists) => calls(p, lists), 2)
    const first = small({ storeId: "str_A", mode: "test" }, [["a"], []])
    small({ storeId: "str_A", mode: "test" }, [["a", "b"], []])
    small({ storeId: "str_A", mode: "test" }, [["a", "b", "c"], []])
    const again = small({ storeId: "str_B", mode: "test" }, [["z"], []])
    expect(again.sql).toBe(first.sql)
    expect(again.parameters).toEqual(["str_B", "test", "ended", "z"])
  })
})
