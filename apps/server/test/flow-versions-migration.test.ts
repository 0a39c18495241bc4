/**
 * Migration 0018 (unique flow versions) on a database that already has duplicate version
 * numbers (two concurrent new versions could take one number before it), on SQLite and
 * PostgreSQL: of the versions sharing a number the oldest keeps it, the others are
 * renumbered after their lineage's highest, oldest first; every row is kept, and afterwards
 * the index refuses a duplicate. The database is migrated up to the migration before 0018,
 * filled as it could be then, and migrated to the latest schema.
 */
import { describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { migrate, run } from "./migrationHarness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`migration 0018_flow_versions_unique (${dialect.name})`, () => {
    it("renumbers the younger twins after their lineage's highest version and then refuses duplicates", async () => {
      const database = await dialect.createDatabase()
      try {
        await migrate(dialect, database.url, "0017_jobs_fairness")
        const flow = (id: string, mode: string, lineage: string, version: number, createdAt: number) =>
          `INSERT INTO flows (id, store_id, mode, name, categories, status, version, previous_version_id, lineage_id, validation_errors, operator_flow_id, created_at, updated_at) VALUES ('${id}', 'str_a', '${mode}', 'F', '["OTHER"]', 'DRAFT', ${version}, NULL, '${lineage}', '[]', 'op_${id}', ${createdAt}, ${createdAt})`
        await run(dialect, database.url, [
          "INSERT INTO stores (id, name, created_at, sandbox_waba_id, sandbox_phone_number_id, sandbox_display_phone) VALUES ('str_a', 'A', 1, '100000000000001', '200000000000001', '15550000001')",
          // lineage flw_1 (live): three versions numbered 2, one numbered 3, the 2s made at 2000, 3000 and 3000
          flow("flw_1", "live", "flw_1", 1, 1000),
          flow("flw_3", "live", "flw_1", 2, 3000),
          flow("flw_2", "live", "flw_1", 2, 2000),
          flow("flw_4", "live", "flw_1", 2, 3000),
          flow("flw_5", "live", "flw_1", 3, 4000),
          // the same lineage id in test mode is another lineage: its 2 is no twin
          flow("flw_6", "test", "flw_1", 2, 1000),
          // a lineage without twins
          flow("flw_7", "live", "flw_7", 1, 1000)
        ])
        expect((await migrate(dialect, database.url))[0]).toBe("0018_flow_versions_unique")
        const rows = await run(dialect, database.url, ["SELECT id, mode, version FROM flows ORDER BY id"])
        expect(rows.map((r) => [r.id, r.mode, Number(r.version)])).toEqual([
          ["flw_1", "live", 1],
          ["flw_2", "live", 2],
          ["flw_3", "live", 4],
          ["flw_4", "live", 5],
          ["flw_5", "live", 3],
          ["flw_6", "test", 2],
          ["flw_7", "live", 1]
        ])
        await expect(run(dialect, database.url, [flow("flw_8", "live", "flw_1", 5, 5000)])).rejects.toThrow()
      } finally {
        await database.drop()
      }
    })
  })
