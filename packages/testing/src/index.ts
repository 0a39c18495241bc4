export * from "./dialects.js"
export * from "./postgres.js"
export * from "./support.js"
export * from "./random.js"
