export * from "./dialects.js"
export * from "./postgres.js"
export * from "./support.js"
