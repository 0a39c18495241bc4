/**
 * The operator's `flows` webhooks (GRAPH_API.md §2.9, Appendix A.10) applied to our flows:
 *
 * - `FLOW_STATUS_CHANGE` to `THROTTLED` or `BLOCKED` (the operator's health monitoring) moves
 *   our flow there, and back to `PUBLISHED` when the operator restores it, through the state
 *   machine (`throttle`, `block`, `restore`); a change the state machine refuses (a
 *   duplicate, one out of order) changes nothing. The statuses we cause ourselves (DRAFT on
 *   creation, PUBLISHED on publish, DEPRECATED) are ours already and are not taken from the
 *   webhook, which may arrive before our own write.
 * - each change is sent as the caller event `flow.status_changed`; each health alert
 *   (`ENDPOINT_ERROR_RATE`, `ENDPOINT_LATENCY`, `ENDPOINT_AVAILABILITY`, `CLIENT_ERROR_RATE`,
 *   ...) as `flow.alert`, with its figures.
 *
 * A flow id that no flow of the store has is logged and ignored.
 */
import { Effect, Either, Option } from "effect"
import type { FlowEvent } from "../operator/FlowWebhookEvent.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Flow from "./Flow.js"
import { FlowRepo } from "./FlowRepo.js"

/** The state machine's operation for a status the operator reports, when it is one the operator decides. */
const operationFor = (status: string | null, current: Flow.Status): Flow.Operation | undefined => {
  if (status === "THROTTLED") return "throttle"
  if (status === "BLOCKED") return "block"
  if (status === "PUBLISHED" && (current === "THROTTLED" || current === "BLOCKED")) return "restore"
  return undefined
}

/** The tenant of a store's flows for an account of `kind`. */
export const tenantOf = (store: Store, kind: AccountKind): Tenant => ({ storeId: store.id, mode: kind === "live" ? "live" : "test" })

/** The status a `FLOW_STATUS_CHANGE` moves a flow in `current` to, or none when the state machine refuses it (or it is ours to decide). */
export const nextStatus = (event: FlowEvent, current: Flow.Status): Flow.Status | undefined => {
  const operation = operationFor(event.newStatus, current)
  if (operation === undefined) return undefined
  const next = Flow.transition(current, operation)
  return Either.isLeft(next) ? undefined : next.right
}

/** `flow.alert`: a health alert of the flow, with its figures. */
export const emitAlert = (tenant: Tenant, flow: Flow.Flow, event: FlowEvent, at: Time.Millis) =>
  Webhooks.emit(tenant, "flow.alert", {
    flow_id: flow.id,
    event: event.event,
    alert_state: event.alertState,
    message: event.message,
    details: event.details,
    received_at: Time.toIso(at)
  })

/** `flow.status_changed`: the flow moved from `from` to `to`. */
export const emitStatusChanged = (tenant: Tenant, flow: Flow.Flow, from: Flow.Status, to: Flow.Status, event: FlowEvent, at: Time.Millis) =>
  Webhooks.emit(tenant, "flow.status_changed", {
    flow_id: flow.id,
    previous_status: from,
    status: to,
    message: event.message,
    changed_at: Time.toIso(at)
  })

export const onFlowEvent = (store: Store, kind: AccountKind, event: FlowEvent) =>
  Effect.gen(function* () {
    const tenant = tenantOf(store, kind)
    const repo = yield* FlowRepo
    const found = yield* repo.findByOperatorId(tenant, event.flowId)
    if (Option.isNone(found)) {
      return yield* Effect.logWarning("flows webhook for a flow this store does not have", { flow: event.flowId, event: event.event })
    }
    const flow = found.value
    const at = yield* Time.now
    if (event.event !== "FLOW_STATUS_CHANGE") return yield* emitAlert(tenant, flow, event, at)
    const next = nextStatus(event, flow.status)
    if (next === undefined) return
    const updated = yield* repo.update(tenant, flow.id, { status: next }, [flow.status], at)
    if (Option.isNone(updated)) return
    yield* emitStatusChanged(tenant, flow, flow.status, next, event, at)
  })
