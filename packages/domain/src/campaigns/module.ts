/**
 * The campaigns module: statuses of campaign sends (their callback data is the recipient id,
 * `rcp_…`) come here alone; it emits the campaign caller events. Its sender-number lanes
 * (`campaign.lane`) run under the worker's own paced runner, not the generic job runner.
 */
import * as Module from "../shared/Module.js"
import * as Campaigns from "./Campaigns.js"

export const module = Module.make({
  name: "campaigns",
  callbackPrefix: "rcp",
  operatorEvents: {
    MessageStatus: (store, _kind, event) => Campaigns.onRecipientStatus(store, event)
  },
  callerEvents: ["campaign.launched", "campaign.progress", "campaign.paused", "campaign.completed", "campaign.cancelled"]
})
