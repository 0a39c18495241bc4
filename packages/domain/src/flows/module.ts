/**
 * What the flows module contributes to the service (see `shared/Module.ts`): the customer's
 * `nfm_reply` messages become flow responses (`operatorEvents.InboundMessage`, beside the
 * messaging module's own handling of every inbound message), and the caller event
 * `flow.response`; the operator's `flows` webhooks (`operatorEvents.FlowEvent`: THROTTLED and
 * BLOCKED synced into the flow's status, the caller events `flow.status_changed` and `flow.alert`);
 * and the caller events of its routes, `flow.published` and `flow.deprecated` (`Flows.ts`); its
 * mirrored writes (`FlowMirrors.ts`). The inbox applies its operator events a batch at a time
 * (`operatorEventBatches`, `FlowBatches.ts`), with the same effect.
 */
import * as Module from "../shared/Module.js"
import * as FlowBatches from "./FlowBatches.js"
import * as FlowHealth from "./FlowHealth.js"
import * as FlowMirrors from "./FlowMirrors.js"
import * as FlowResponses from "./FlowResponses.js"

export const module = Module.make({
  name: "flows",
  mirrors: FlowMirrors.kinds,
  operatorEvents: {
    InboundMessage: FlowResponses.onInboundMessage,
    FlowEvent: FlowHealth.onFlowEvent
  },
  operatorEventBatches: { InboundMessage: FlowBatches.onInboundMessages, FlowEvent: FlowBatches.onFlowEvents },
  callerEvents: ["flow.response", "flow.status_changed", "flow.alert", "flow.published", "flow.deprecated"]
})
