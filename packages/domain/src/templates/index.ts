/** The templates module's public names (re-exported by `@switchboard/domain` through `Modules.ts`). */
export * as Template from "./Template.js"
export * as TemplateSend from "./TemplateSend.js"
export * as TemplateRepo from "./TemplateRepo.js"
export * as Templates from "./Templates.js"
export * as TemplatesModule from "./module.js"
export * as RichSend from "./RichSend.js"
export * as RichComponents from "./RichComponents.js"
export * as TemplateBatches from "./TemplateBatches.js"
