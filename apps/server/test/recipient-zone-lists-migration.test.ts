/**
 * Migration 0029 (recipients' time zones as the id of their list) on a database whose
 * recipients carry their zones' names (`time_zone`, migration 0025), on SQLite and
 * PostgreSQL: each distinct list becomes one row of `campaign_zone_lists`, every recipient's
 * `zone_id` names the list it had (null stays null), the names column is gone, and the table
 * goes on numbering new lists after the converted ones and refuses a list twice. The
 * database is migrated up to 0028, filled as it could be then, and migrated to the latest
 * schema.
 */
import { describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { migrate, run } from "./migrationHarness.js"

const NEW_YORK = "America/New_York"
const LOS_ANGELES = "America/Los_Angeles"
/** A list as long as a number without an area code gets (every zone of +1). */
const LONG = Array.from({ length: 40 }, (_, i) => `America/Zone_${i}`).join("&")

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`migration 0029_recipient_zone_lists (${dialect.name})`, () => {
    it("gives every recipient the id of the list it had, one row per distinct list, and drops the names", async () => {
      const database = await dialect.createDatabase()
      try {
        await migrate(dialect, database.url, "0028_product_staging_unlogged")
        const recipient = (id: string, seq: number, phone: string | null, zone: string | null) =>
          `INSERT INTO campaign_recipients (id, campaign_id, seq, phone, status, skip_reason, updated_at, time_zone) VALUES ('${id}', 'cmp_1', ${seq}, ${phone === null ? "NULL" : `'${phone}'`}, '${phone === null ? "skipped" : "pending"}', ${phone === null ? "'invalid_number'" : "NULL"}, 1, ${zone === null ? "NULL" : `'${zone}'`})`
        await run(dialect, database.url, [
          "INSERT INTO stores (id, name, created_at, sandbox_waba_id, sandbox_phone_number_id, sandbox_display_phone) VALUES ('str_a', 'A', 1, '100000000000001', '200000000000001', '15550000001')",
          "INSERT INTO campaigns (id, store_id, mode, name, template_name, template_language, parameters, status, created_at, updated_at) VALUES ('cmp_1', 'str_a', 'test', 'C', 't', 'en_US', '[]', 'draft', 1, 1)",
          recipient("rcp_1", 0, "+12015550001", NEW_YORK),
          recipient("rcp_2", 1, "+12135550001", LOS_ANGELES),
          recipient("rcp_3", 2, "+12005550001", LONG),
          recipient("rcp_4", 3, "+12015550002", NEW_YORK),
          recipient("rcp_5", 4, null, null),
          recipient("rcp_6", 5, "+9995550001", null),
          recipient("rcp_7", 6, "+12005550002", LONG)
        ])
        expect(await migrate(dialect, database.url)).toContain("0029_recipient_zone_lists")
        const lists = await run(dialect, database.url, ["SELECT id, zones FROM campaign_zone_lists ORDER BY id"])
        expect(lists.map((l) => l.zones).sort()).toEqual([LOS_ANGELES, NEW_YORK, LONG].sort())
        const zonesOf = new Map(lists.map((l) => [Number(l.id), l.zones as string]))
        const rows = await run(dialect, database.url, ["SELECT id, zone_id FROM campaign_recipients ORDER BY seq"])
        expect(rows.map((r) => [r.id, r.zone_id === null ? null : zonesOf.get(Number(r.zone_id))])).toEqual([
          ["rcp_1", NEW_YORK],
          ["rcp_2", LOS_ANGELES],
          ["rcp_3", LONG],
          ["rcp_4", NEW_YORK],
          ["rcp_5", null],
          ["rcp_6", null],
          ["rcp_7", LONG]
        ])
        await expect(run(dialect, database.url, ["SELECT time_zone FROM campaign_recipients"])).rejects.toThrow()
        // a new list is numbered after the converted ones; a list already there is refused
        const [added] = await run(dialect, database.url, [
          "INSERT INTO campaign_zone_lists (zones) VALUES ('Europe/Paris')",
          "SELECT id FROM campaign_zone_lists WHERE zones = 'Europe/Paris'"
        ])
        expect(Number(added.id)).toBeGreaterThan(Math.max(...zonesOf.keys()))
        await expect(run(dialect, database.url, [`INSERT INTO campaign_zone_lists (zones) VALUES ('${NEW_YORK}')`])).rejects.toThrow()
      } finally {
        await database.drop()
      }
    })
  })
