/**
 * The operator's `flows` webhooks (GRAPH_API.md §2.9, A.10) as events: FLOW_STATUS_CHANGE
 * with its statuses (none before on creation), health alerts with their figures, routed by
 * the business account; values without an event or a flow id are skipped.
 */
import { describe, expect, it } from "@effect/vitest"
import { WebhookEvent } from "@switchboard/domain"

const envelope = (...values: Array<Record<string, unknown>>) => ({
  object: "whatsapp_business_account",
  entry: [{ id: "waba-1", time: 1_700_000_000, changes: values.map((value) => ({ field: "flows", value })) }]
})

describe("flows webhooks", () => {
  it("parses status changes and alerts, by the business account", () => {
    const events = WebhookEvent.parse(
      envelope(
        {
          event: "FLOW_STATUS_CHANGE",
          message: "Flow Booking changed status from PUBLISHED to THROTTLED",
          flow_id: "9001",
          old_status: "PUBLISHED",
          new_status: "THROTTLED"
        },
        { event: "FLOW_STATUS_CHANGE", message: "created", flow_id: 9002, new_status: "draft" },
        {
          event: "ENDPOINT_ERROR_RATE",
          message: "Error rate over 10%",
          flow_id: "9001",
          error_rate: 12.5,
          threshold: 10,
          alert_state: "ACTIVATED",
          errors: [{ error_type: "TIMEOUT_ERROR", error_rate: 12.5, error_count: 5 }]
        },
        { event: "FLOW_STATUS_CHANGE", new_status: "BLOCKED" },
        { flow_id: "9003", new_status: "BLOCKED" }
      ),
      1
    )
    expect(events).toEqual([
      {
        _tag: "FlowEvent",
        wabaId: "waba-1",
        flowId: "9001",
        event: "FLOW_STATUS_CHANGE",
        message: "Flow Booking changed status from PUBLISHED to THROTTLED",
        oldStatus: "PUBLISHED",
        newStatus: "THROTTLED",
        alertState: null,
        details: {}
      },
      expect.objectContaining({ flowId: "9002", oldStatus: null, newStatus: "DRAFT" }),
      expect.objectContaining({
        flowId: "9001",
        event: "ENDPOINT_ERROR_RATE",
        alertState: "ACTIVATED",
        newStatus: null,
        details: { error_rate: 12.5, threshold: 10, errors: [{ error_type: "TIMEOUT_ERROR", error_rate: 12.5, error_count: 5 }] }
      })
    ])
    expect(events!.every(WebhookEvent.isAccountEvent)).toBe(true)
  })
})
