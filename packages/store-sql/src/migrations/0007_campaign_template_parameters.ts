/**
 * Campaigns send a template with every kind of parameter it declares: beside the body's
 * `parameters`, the TEXT header's (`header_parameters`) and the buttons' by index and
 * sub-type (`button_parameters`), each a JSON array, empty for campaigns made before.
 */
import { sql, type Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("campaigns")
    .addColumn("header_parameters", "text", (c) => c.notNull().defaultTo(sql`'[]'`))
    .execute()
  await db.schema
    .alterTable("campaigns")
    .addColumn("button_parameters", "text", (c) => c.notNull().defaultTo(sql`'[]'`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaigns").dropColumn("button_parameters").execute()
  await db.schema.alterTable("campaigns").dropColumn("header_parameters").execute()
}
