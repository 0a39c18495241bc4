/** A Kysely that only compiles (PostgreSQL's SQL, no connection): for tests of the SQL a helper writes. */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely"
import type { Tables } from "../src/Tables.js"

export const db = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler()
  }
})
