/**
 * Templates keep the operator's quality rating (`message_template_quality_update`, or the
 * `quality_score` of its list): GREEN, YELLOW, RED or UNKNOWN; null until it says one.
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("templates").addColumn("quality_score", "text").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("templates").dropColumn("quality_score").execute()
}
