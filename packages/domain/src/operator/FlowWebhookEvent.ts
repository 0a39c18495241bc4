/**
 * The operator's flow webhooks (`field: "flows"`, GRAPH_API.md §2.9, Appendix A.10) turned
 * into `FlowEvent`s, routed by the business account (`entry[].id`):
 *
 * - `FLOW_STATUS_CHANGE`: `{event, message, flow_id, old_status?, new_status}` (also on
 *   creation, without `old_status`);
 * - health alerts: `ENDPOINT_ERROR_RATE`, `CLIENT_ERROR_RATE` (`error_rate`, `threshold`,
 *   `alert_state`, `errors[]`), `ENDPOINT_LATENCY` (`p50_latency`, `p90_latency`,
 *   `requests_count`, `threshold`, `alert_state`), `ENDPOINT_AVAILABILITY`,
 *   `FLOW_VERSION_EXPIRY_WARNING`: kept with their figures as `details`.
 *
 * Tolerant like `WebhookEvent.parse`: a value without an event or a flow id is skipped.
 */
import { str } from "./WebhookFields.js"

export interface FlowEvent {
  readonly _tag: "FlowEvent"
  readonly wabaId: string
  /** The operator's flow id. */
  readonly flowId: string
  readonly event: string
  readonly message: string | null
  /** FLOW_STATUS_CHANGE: the statuses, upper case (`oldStatus` none on creation). */
  readonly oldStatus: string | null
  readonly newStatus: string | null
  /** Alerts: ACTIVATED or DEACTIVATED. */
  readonly alertState: string | null
  /** The value's other fields (the alert's figures), as sent. */
  readonly details: Readonly<Record<string, unknown>>
}

const upper = (u: unknown): string | null => str(u)?.toUpperCase() ?? null

/** The flow event of one `flows` change value, or none. */
export const flowEventsOf = (wabaId: string, value: Record<string, unknown>): Array<FlowEvent> => {
  const event = str(value.event)
  const flowId = str(value.flow_id)
  if (!event || !flowId) return []
  const { event: _e, message, flow_id: _f, old_status, new_status, alert_state, ...details } = value
  return [
    {
      _tag: "FlowEvent",
      wabaId,
      flowId,
      event: event.toUpperCase(),
      message: str(message) ?? null,
      oldStatus: upper(old_status),
      newStatus: upper(new_status),
      alertState: upper(alert_state),
      details
    }
  ]
}
