/**
 * What the flows module contributes to the service (see `shared/Module.ts`): the customer's
 * `nfm_reply` messages become flow responses (`operatorEvents.InboundMessage`, beside the
 * messaging module's own handling of every inbound message), and the caller event
 * `flow.response`.
 */
import * as Module from "../shared/Module.js"
import * as FlowResponses from "./FlowResponses.js"

export const module = Module.make({
  name: "flows",
  operatorEvents: {
    InboundMessage: FlowResponses.onInboundMessage
  },
  callerEvents: ["flow.response"]
})
