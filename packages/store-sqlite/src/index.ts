export * as StoreSqlite from "./StoreSqlite.js"
export * from "./StoreSqlite.js"
