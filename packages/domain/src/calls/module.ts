/**
 * What the calls module contributes to the service (see `shared/Module.ts`): it applies the
 * customer's call permission replies (`InboundMessage`) and the operator's call webhooks
 * (`CallEvent`; the inbox applies a batch of them at once, `CallBatches.ts`, with the same
 * effect), and emits `call.ringing`, `call.accepted`, `call.rejected`, `call.ended`
 * and `call_permission.updated` (also as `call.permission_updated`, its older name). No jobs: a permission lapses and a request leaves the
 * budget by time alone.
 */
import * as Module from "../shared/Module.js"
import * as CallBatches from "./CallBatches.js"
import * as CallMirrors from "./CallMirrors.js"
import * as CallWebhooks from "./CallWebhooks.js"
import * as Events from "./Events.js"
import * as PermissionReplies from "./PermissionReplies.js"
import * as SettingsRoutes from "./SettingsRoutes.js"

export const module = Module.make({
  name: "calls",
  mirrors: [...CallMirrors.kinds, SettingsRoutes.settingsMirror],
  operatorEvents: {
    InboundMessage: PermissionReplies.onInboundMessage,
    CallEvent: CallWebhooks.onCallEvent
  },
  operatorEventBatches: { CallEvent: CallBatches.onCallEvents },
  callerEvents: Events.callerEvents
})
