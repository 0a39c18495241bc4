/**
 * Migration 0016 (catalog owners) on a database that already has catalogs, on SQLite and
 * PostgreSQL: an operator catalog that several stores hold (possible before it) goes to the
 * store whose catalog row is the oldest; the others are kept, and the claim is what later
 * connects are checked against. The database is brought to the latest schema, set back to
 * just before 0016 (its table and its migration row removed), filled, and migrated again.
 */
import { describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { migrate, run } from "./migrationHarness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`migration 0016_catalog_owners (${dialect.name})`, () => {
    it("gives each operator catalog to the store with its oldest catalog row; every catalog row is kept", async () => {
      const database = await dialect.createDatabase()
      try {
        await migrate(dialect, database.url)
        const store = (id: string, n: number) =>
          `INSERT INTO stores (id, name, created_at, sandbox_waba_id, sandbox_phone_number_id, sandbox_display_phone) VALUES ('${id}', '${id}', 1, '10000000000000${n}', '20000000000000${n}', '1555000000${n}')`
        const catalog = (id: string, storeId: string, mode: string, operatorId: string, createdAt: number) =>
          `INSERT INTO catalogs (id, store_id, mode, name, operator_catalog_id, origin, connected, created_at, updated_at) VALUES ('${id}', '${storeId}', '${mode}', 'C', '${operatorId}', 'connected', 1, ${createdAt}, ${createdAt})`
        await run(dialect, database.url, [
          "DROP TABLE catalog_owners",
          "DELETE FROM kysely_migration WHERE name = '0016_catalog_owners'",
          // and what came after it (migrations apply in order)
          "DROP INDEX jobs_runnable_by_kind",
          "ALTER TABLE jobs DROP COLUMN store_id",
          "DELETE FROM kysely_migration WHERE name = '0017_jobs_fairness'",
          "DROP INDEX flows_lineage_version_uq",
          "CREATE INDEX flows_lineage_idx ON flows (store_id, mode, lineage_id, version)",
          "DELETE FROM kysely_migration WHERE name = '0018_flow_versions_unique'",
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
        expect(await migrate(dialect, database.url)).toEqual(["0016_catalog_owners", "0017_jobs_fairness", "0018_flow_versions_unique"])
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
