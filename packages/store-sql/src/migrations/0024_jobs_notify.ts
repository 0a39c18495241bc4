/**
 * On PostgreSQL, every statement that inserts into `jobs` announces it with
 * `NOTIFY switchboard_jobs` (`JobWakeups.ts`), from a statement-level trigger: no round trip of
 * its own, delivered at the commit of the inserting transaction (one notification however many
 * rows or statements it inserted), whatever path queued the job. SQLite: nothing (one process
 * writes, and its own enqueues wake its runners).
 */
import { type Kysely, PostgresAdapter, sql } from "kysely"

const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`create or replace function switchboard_jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('switchboard_jobs', '');
      return null;
    end
  $$`.execute(db)
  await sql`create trigger jobs_notify after insert on jobs for each statement execute function switchboard_jobs_notify()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`drop trigger if exists jobs_notify on jobs`.execute(db)
  await sql`drop function if exists switchboard_jobs_notify()`.execute(db)
}
