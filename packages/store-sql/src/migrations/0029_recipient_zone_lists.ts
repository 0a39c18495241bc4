/**
 * Recipients' time zones as the id of their list (issue 29, ingestion): each distinct list of
 * zones (IANA names joined by `&`, as 0025 stored them on every row, up to 700 bytes for a
 * number without an area code) becomes a row of `campaign_zone_lists`, and a recipient keeps
 * its list's id (`zone_id`) instead of the names. Existing rows are converted: their lists
 * added, their ids set, and the `time_zone` column dropped.
 */
import { type Kysely, PostgresAdapter, sql } from "kysely"

const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("campaign_zone_lists")
    .addColumn("id", isPostgres(db) ? "serial" : "integer", (c) => c.primaryKey())
    .addColumn("zones", "text", (c) => c.notNull().unique())
    .execute()
  await db.schema.alterTable("campaign_recipients").addColumn("zone_id", "integer").execute()
  await sql`insert into campaign_zone_lists (zones)
    select distinct time_zone from campaign_recipients where time_zone is not null order by time_zone`.execute(db)
  await sql`update campaign_recipients
    set zone_id = (select z.id from campaign_zone_lists z where z.zones = campaign_recipients.time_zone)
    where time_zone is not null`.execute(db)
  await db.schema.alterTable("campaign_recipients").dropColumn("time_zone").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaign_recipients").addColumn("time_zone", "text").execute()
  await sql`update campaign_recipients
    set time_zone = (select z.zones from campaign_zone_lists z where z.id = campaign_recipients.zone_id)
    where zone_id is not null`.execute(db)
  await db.schema.alterTable("campaign_recipients").dropColumn("zone_id").execute()
  await db.schema.dropTable("campaign_zone_lists").execute()
}
