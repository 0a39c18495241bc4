/**
 * What the campaigns module contributes to the service (see `shared/Module.ts`):
 *
 * - `callbackPrefix` `rcp`: campaign sends carry the recipient id as callback data, so the
 *   statuses of those messages go to `operatorEvents.MessageStatus` (status reports) alone;
 * - `callerEvents`: `campaign.launched`, `.progress`, `.paused`, `.completed`, `.cancelled`;
 * - `jobs`: none for the generic job runner. The lane job `campaign.lane` (`laneJob`, payload
 *   `{ phoneNumberId }`) is declared with `Module.jobKind` for its typed payload and is
 *   enqueued with `Module.job(laneJob, …)` by `Lanes.ensureLane`, but it is long-lived and
 *   paced, so the worker's `CampaignLane` runner claims and runs it under its own lease; it
 *   is exported here beside the descriptor, not listed in `jobs`, so a runner built from
 *   `jobs` never claims it.
 */
import * as Module from "../shared/Module.js"
import * as Events from "./Events.js"
import { LaneJob } from "./Lanes.js"
import * as Quality from "./Quality.js"
import { RecipientId } from "./Recipient.js"
import * as StatusReports from "./StatusReports.js"

/** The lane job of a sender number, run by the worker's `CampaignLane` runner (not by the generic job runner). */
export const laneJob = LaneJob

export const module = Module.make({
  name: "campaigns",
  callbackPrefix: RecipientId.prefix,
  operatorEvents: {
    MessageStatus: (store, _kind, event) => StatusReports.onRecipientStatus(store, event),
    NumberQualityUpdate: Quality.onNumberQuality,
    CapabilityUpdate: Quality.onCapability,
    TemplateQualityUpdate: Quality.onTemplateQuality
  },
  operatorEventBatches: {
    MessageStatus: StatusReports.onRecipientStatuses,
    NumberQualityUpdate: Quality.onQualityEvents,
    CapabilityUpdate: Quality.onQualityEvents,
    TemplateQualityUpdate: Quality.onQualityEvents
  },
  callerEvents: Events.callerEvents
})
