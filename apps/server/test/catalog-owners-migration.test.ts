/**
 * Migration 0016 (catalog owners) on a database that already has catalogs, on SQLite and
 * PostgreSQL: an operator catalog that several stores hold (possible before it) goes to the
 * store whose catalog row is the oldest; the others are kept, and the claim is what later
 * connects are checked against. The database is migrated up to the migration before 0016,
 * filled as it could be then, and migrated to the latest schema.
 */
import { describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { migrate, run } from "./migrationHarness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`migration 0016_catalog_owners (${dialect.name})`, () => {
    it("gives each operator catalog to the store with its oldest catalog row; every catalog row is kept", async () => {
      const database = await dialect.createDatabase()
      try {
        await migrate(dialect, database.url, "0015_flows")
        const store = (id: string, n: number) =>
          `INSERT INTO stores (id, name, created_at, sandbox_waba_id, sandbox_phone_number_id, sandbox_display_phone) VALUES ('${id}', '${id}', 1, '10000000000000${n}', '20000000000000${n}', '1555000000${n}')`
        const catalog = (id: string, storeId: string, mode: string, operatorId: string, createdAt: number) =>
          `INSERT INTO catalogs (id, store_id, mode, name, operator_catalog_id, origin, connected, created_at, updated_at) VALUES ('${id}', '${storeId}', '${mode}', 'C', '${operatorId}', 'connected', 1, ${createdAt}, ${createdAt})`
        await run(dialect, database.url, [
          store("str_a", 1),
          store("str_b", 2),
          // 701: B connected it first, then A (both modes); 702: A only; 703: same time, the smaller id wins
          catalog("cat_1", "str_a", "live", "701", 2000),
          catalog("cat_2", "str_b", "live", "701", 1000),
          catalog("cat_3", "str_a", "test", "701", 3000),
          catalog("cat_4", "str_a", "live", "702", 1000),
          catalog("cat_6", "str_a", "live", "703", 5000),
          catalog("cat_5", "str_b", "test", "703", 5000)
        ])
        expect((await migrate(dialect, database.url))[0]).toBe("0016_catalog_owners")
        const owners = await run(dialect, database.url, ["SELECT operator_catalog_id, store_id FROM catalog_owners ORDER BY operator_catalog_id"])
        expect(owners).toEqual([
          { operator_catalog_id: "701", store_id: "str_b" },
          { operator_catalog_id: "702", store_id: "str_a" },
          { operator_catalog_id: "703", store_id: "str_b" }
        ])
        // every catalog row is kept
        expect(Number((await run(dialect, database.url, ["SELECT count(*) AS n FROM catalogs"]))[0].n)).toBe(6)
      } finally {
        await database.drop()
      }
    })
  })
