/** The flows module's public names (re-exported by `@switchboard/domain` through `Modules.ts`). */
export * as Flow from "./Flow.js"
export * as FlowErrors from "./FlowErrors.js"
export * as FlowJson from "./FlowJson.js"
export * as FlowJsonFix from "./FlowJsonFix.js"
export * as FlowRepo from "./FlowRepo.js"
export * as Flows from "./Flows.js"
export * as FlowsModule from "./module.js"
export * as FlowOperator from "../operator/FlowOperator.js"
