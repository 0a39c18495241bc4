export * as StorePostgres from "./StorePostgres.js"
export * from "./StorePostgres.js"
