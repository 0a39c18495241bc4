/**
 * Send windows (issue 30): each campaign recipient's time zones (`time_zone`, IANA names
 * joined by `&`, from its phone number: `campaigns/PhoneZones.ts`), set at ingestion; this
 * migration fills it for the recipients stored before, in batches.
 */
import type { Kysely } from "kysely"
import { zoneKeyOf } from "../campaigns/PhoneZones.js"

const BATCH = 5000

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaign_recipients").addColumn("time_zone", "text").execute()
  let after = ""
  for (;;) {
    const rows: Array<{ id: string; phone: string }> = await db
      .selectFrom("campaign_recipients")
      .select(["id", "phone"])
      .where("phone", "is not", null)
      .where("id", ">", after)
      .orderBy("id")
      .limit(BATCH)
      .execute()
    if (rows.length === 0) return
    const byZone = new Map<string, Array<string>>()
    for (const row of rows) {
      const zone = zoneKeyOf(row.phone)
      if (zone === null) continue
      const ids = byZone.get(zone)
      if (ids === undefined) byZone.set(zone, [row.id])
      else ids.push(row.id)
    }
    for (const [zone, ids] of byZone) await db.updateTable("campaign_recipients").set({ time_zone: zone }).where("id", "in", ids).execute()
    after = rows[rows.length - 1].id
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaign_recipients").dropColumn("time_zone").execute()
}
