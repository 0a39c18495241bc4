/**
 * The templates module: applies the operator's template status webhooks and tells the
 * caller's endpoints (`template.status`). Template sync runs on request, not as a job.
 */
import * as Module from "../shared/Module.js"
import * as Templates from "./Templates.js"

export const module = Module.make({
  name: "templates",
  operatorEvents: {
    TemplateStatus: (store, _kind, event) => Templates.applyStatusUpdate(store.id, event)
  },
  callerEvents: ["template.status"]
})
