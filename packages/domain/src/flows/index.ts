/** The flows module's public names (re-exported by `@switchboard/domain` through `Modules.ts`). */
export * as FlowJson from "./FlowJson.js"
export * as FlowJsonFix from "./FlowJsonFix.js"
