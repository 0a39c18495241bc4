/**
 * The templates module: applies the operator's template webhooks (status, category and
 * quality) and tells the caller's endpoints (`template.status`, `template.category`,
 * `template.quality`); its mirrored writes, create and delete (`TemplateMirrors.ts`).
 * The inbox applies each run of them a batch at a time (`TemplateBatches.ts`). Template sync runs on request, not as a job: it only reads the operator, and its local
 * write is one transaction, so a crash leaves nothing to finish.
 */
import * as Module from "../shared/Module.js"
import * as TemplateBatches from "./TemplateBatches.js"
import * as TemplateMirrors from "./TemplateMirrors.js"
import * as Templates from "./Templates.js"

export const module = Module.make({
  name: "templates",
  mirrors: TemplateMirrors.kinds,
  operatorEvents: {
    TemplateStatus: (store, _kind, event) => Templates.applyStatusUpdate(store.id, event),
    TemplateCategoryUpdate: (store, _kind, event) => Templates.applyCategoryUpdate(store.id, event),
    TemplateQualityUpdate: (store, _kind, event) => Templates.applyQualityUpdate(store.id, event)
  },
  operatorEventBatches: {
    TemplateStatus: TemplateBatches.applyUpdates,
    TemplateCategoryUpdate: TemplateBatches.applyUpdates,
    TemplateQualityUpdate: TemplateBatches.applyUpdates
  },
  callerEvents: ["template.status", "template.category", "template.quality"]
})
