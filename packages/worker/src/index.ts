export * as JobRunner from "./JobRunner.js"
