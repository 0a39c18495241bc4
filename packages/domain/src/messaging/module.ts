/**
 * The messaging module: applies the operator's inbound messages, the marketing preference
 * signal and the statuses no other module claims by callback prefix (messages sent through
 * `POST /chat/messages` carry their `msg_` id, but a status may also come by wamid alone),
 * and emits the caller events of messages and opt-outs.
 */
import * as Module from "../shared/Module.js"
import * as InboundBatches from "./InboundBatches.js"
import * as InboundEvents from "./InboundEvents.js"
import * as PreferenceBatches from "./PreferenceBatches.js"
import * as StatusBatches from "./StatusBatches.js"

export const module = Module.make({
  name: "messaging",
  operatorEvents: {
    InboundMessage: InboundEvents.onInboundMessage,
    OperatorNotice: InboundEvents.onOperatorNotice,
    MessageStatus: (store, _kind, event) => InboundEvents.onMessageStatus(store, event),
    MarketingPreference: InboundEvents.onMarketingPreference
  },
  operatorEventBatches: {
    InboundMessage: InboundBatches.onInboundMessages,
    OperatorNotice: InboundBatches.onOperatorNotices,
    MessageStatus: StatusBatches.onMessageStatuses,
    MarketingPreference: PreferenceBatches.onMarketingPreferences
  },
  callerEvents: ["message.status", "message.received", "customer.opted_out", "customer.opted_in"]
})
