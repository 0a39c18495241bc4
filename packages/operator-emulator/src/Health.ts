/**
 * Messaging health (`GET /{node}?fields=health_status`, Meta's "Messaging and Calling Health
 * Status" page; GRAPH_API.md §5.2, §6.8): a summary of every node a send from the targeted node
 * involves. The phone number appears only when it is the node asked about; the WABA, the
 * business and the app always. Each node is `AVAILABLE`, `LIMITED` (with `additional_info`) or
 * `BLOCKED` (with `errors: [{error_code, error_description, possible_solution}]`); the overall
 * `can_send_message` is BLOCKED if any node is, else LIMITED if any node is, else AVAILABLE.
 * Every node is AVAILABLE until the control API (`POST /_emulator/node-health`) says otherwise.
 */
import { businessOf } from "./Catalogs.js"

export type CanSendMessage = "AVAILABLE" | "LIMITED" | "BLOCKED"
export const canSendMessageValues: ReadonlyArray<CanSendMessage> = ["AVAILABLE", "LIMITED", "BLOCKED"]

export interface HealthError {
  readonly error_code: number
  readonly error_description: string
  readonly possible_solution: string
}

/** A node's health as the control API set it. */
export interface NodeHealth {
  readonly canSendMessage: CanSendMessage
  readonly additionalInfo?: ReadonlyArray<string>
  readonly errors?: ReadonlyArray<HealthError>
}

/** The emulator's app: the one every sandbox token belongs to. */
export const EMULATOR_APP_ID = "1000000000000001"

const RANK: Record<CanSendMessage, number> = { AVAILABLE: 0, LIMITED: 1, BLOCKED: 2 }

/** The health of each node the control API changed (nodes not in it are AVAILABLE). */
export class HealthStore {
  private readonly byId = new Map<string, NodeHealth>()

  set(id: string, health: NodeHealth): void {
    if (health.canSendMessage === "AVAILABLE") this.byId.delete(id)
    else this.byId.set(id, health)
  }

  private entity(entityType: string, id: string): Record<string, unknown> {
    const health = this.byId.get(id)
    const status = health?.canSendMessage ?? "AVAILABLE"
    return {
      entity_type: entityType,
      id,
      can_send_message: status,
      ...(status === "LIMITED" ? { additional_info: health?.additionalInfo ?? ["The node has a messaging limitation."] } : {}),
      ...(status === "BLOCKED" ? { errors: health?.errors ?? [] } : {})
    }
  }

  /** The `health_status` of a phone number (with its WABA) or of a WABA alone. */
  statusOf(node: { readonly phoneNumberId?: string; readonly wabaId: string }): Record<string, unknown> {
    const entities = [
      ...(node.phoneNumberId === undefined ? [] : [this.entity("PHONE_NUMBER", node.phoneNumberId)]),
      this.entity("WABA", node.wabaId),
      this.entity("BUSINESS", businessOf(node.wabaId)),
      this.entity("APP", EMULATOR_APP_ID)
    ]
    const worst = entities.reduce<CanSendMessage>((acc, e) => {
      const status = e.can_send_message as CanSendMessage
      return RANK[status] > RANK[acc] ? status : acc
    }, "AVAILABLE")
    return { can_send_message: worst, entities }
  }

  clear(): void {
    this.byId.clear()
  }
}
