/**
 * WhatsApp Flows as far as a send needs them (GRAPH_API.md §5.1, §5.2, §5.4): each WABA's
 * flows with their status, created through `POST /{waba_id}/flows` (or the control API),
 * published and deprecated; and the check of a flow message: the flow it names (`flow_id` or
 * `flow_name`) must exist in the sender's WABA, in a status that `mode` may send.
 *
 * Status: `DRAFT -> PUBLISHED -> DEPRECATED`; `THROTTLED` and `BLOCKED` are set by the
 * control API (health monitoring). DRAFT is sent only with `mode: "draft"`, PUBLISHED and
 * THROTTLED only with `mode: "published"` (the default); BLOCKED answers 132068; DEPRECATED
 * cannot be sent.
 */
import { validationErrorsOf } from "./FlowJsonCheck.js"
import { GraphErrors } from "./GraphError.js"
import { asObject } from "./SendRequest.js"

export type FlowStatus = "DRAFT" | "PUBLISHED" | "DEPRECATED" | "THROTTLED" | "BLOCKED"
export const flowStatuses: ReadonlyArray<FlowStatus> = ["DRAFT", "PUBLISHED", "DEPRECATED", "THROTTLED", "BLOCKED"]

/** A flow of a WABA. JSON-safe: it is persisted as is. */
export interface FlowRecord {
  readonly id: string
  readonly wabaId: string
  readonly name: string
  readonly categories: ReadonlyArray<string>
  status: FlowStatus
  readonly createdAt: number
  /** The Flow JSON text (assets), none until one is put. */
  json?: string | undefined
  endpointUri?: string | undefined
  updatedAt?: number | undefined
}

/** The `flows` webhook value of a status change (GRAPH_API.md §2.9, A.10); no `old_status` on creation. */
export const statusChangeValue = (flow: FlowRecord, old: FlowStatus | undefined): Record<string, unknown> => ({
  event: "FLOW_STATUS_CHANGE",
  message:
    old === undefined
      ? `Flow ${flow.name} has been created with status ${flow.status}`
      : `Flow ${flow.name} changed status from ${old} to ${flow.status}`,
  flow_id: flow.id,
  ...(old === undefined ? {} : { old_status: old }),
  new_status: flow.status
})

/** What the state file keeps of the flows. */
export interface FlowsSnapshot {
  readonly nextId: number
  readonly flows: ReadonlyArray<FlowRecord>
  /** The business public key (PEM) of each phone number, for the data endpoint. */
  readonly keys?: Readonly<Record<string, string>>
}

/** The flow object as `GET /{flow_id}` and the list show it. */
export const flowView = (flow: FlowRecord): Record<string, unknown> => ({
  id: flow.id,
  name: flow.name,
  status: flow.status,
  categories: flow.categories,
  validation_errors: validationErrorsOf(flow.json),
  json_version: jsonVersionOf(flow.json),
  ...(flow.endpointUri === undefined ? {} : { endpoint_uri: flow.endpointUri }),
  preview: previewOf(flow),
  updated_at: new Date(flow.updatedAt ?? flow.createdAt).toISOString()
})

/** The operator's preview link: valid 30 days from the flow's last change. */
export const previewOf = (flow: FlowRecord): { preview_url: string; expires_at: string } => ({
  preview_url: `https://business.facebook.com/wa/manage/flows/${flow.id}/preview/?token=${flow.id.slice(-8)}${flow.updatedAt ?? flow.createdAt}`,
  expires_at: new Date((flow.updatedAt ?? flow.createdAt) + 30 * 24 * 3600 * 1000).toISOString()
})

export { validationErrorsOf }

const jsonVersionOf = (json: string | undefined): string | null => {
  try {
    const version = json === undefined ? undefined : JSON.parse(json).version
    return typeof version === "string" ? version : null
  } catch {
    return null
  }
}

/** Whether the Flow JSON asks for a data endpoint (`data_api_version`). */
export const needsEndpoint = (json: string | undefined): boolean => {
  try {
    return json !== undefined && JSON.parse(json).data_api_version !== undefined
  } catch {
    return false
  }
}

const CATEGORIES = new Set([
  "SIGN_UP",
  "SIGN_IN",
  "APPOINTMENT_BOOKING",
  "LEAD_GENERATION",
  "CONTACT_US",
  "CUSTOMER_SUPPORT",
  "SURVEY",
  "SHOPPING",
  "OTHER"
])

/** `categories` as the operator takes them: an array, or a JSON array in a string (multipart forms). */
const categoriesOf = (raw: unknown): string[] => {
  let value = raw
  if (typeof value === "string") {
    try {
      value = JSON.parse(value)
    } catch {
      value = [value]
    }
  }
  if (!Array.isArray(value) || value.length === 0) throw GraphErrors.invalidParameter("The parameter categories is required.")
  for (const category of value) {
    if (typeof category !== "string" || !CATEGORIES.has(category)) {
      throw GraphErrors.invalidParameter(`Param categories must be an array of {${[...CATEGORIES].join(", ")}}.`)
    }
  }
  return value as string[]
}

export class FlowStore {
  private readonly byId = new Map<string, FlowRecord>()
  private readonly keys = new Map<string, string>()
  private nextId = 100_000_000_000_000 + Math.floor(Math.random() * 800_000_000_000_000)

  constructor(
    private readonly now: () => number,
    private readonly onChange: () => void,
    /** A flow was created (`old` undefined) or changed status: the `flows` webhook FLOW_STATUS_CHANGE. */
    private readonly onStatus: (flow: FlowRecord, old: FlowStatus | undefined) => void = () => {}
  ) {}

  /** Creates a DRAFT flow (PUBLISHED when `publish` is true) from a `POST /{waba}/flows` body. */
  create(wabaId: string, body: unknown): FlowRecord {
    const input = asObject(body)
    if (input === undefined) throw GraphErrors.invalidParameter("The request body must be a JSON object.")
    const name = input.name
    if (typeof name !== "string" || name.trim().length === 0) throw GraphErrors.invalidParameter("The parameter name is required.")
    const clone = input.clone_flow_id === undefined ? undefined : this.byId.get(String(input.clone_flow_id))
    if (input.clone_flow_id !== undefined && (clone === undefined || clone.wabaId !== wabaId)) {
      throw GraphErrors.invalidParameter(`clone_flow_id ${String(input.clone_flow_id)} is not a flow of this WhatsApp Business Account.`)
    }
    const json = typeof input.flow_json === "string" ? input.flow_json : clone?.json
    const publish = input.publish === true || input.publish === "true"
    if (publish && (json === undefined || validationErrorsOf(json).length > 0)) {
      throw GraphErrors.flowPublishFailed("A flow can be published at creation only with a valid flow_json.")
    }
    const flow: FlowRecord = {
      id: String(this.nextId++),
      wabaId,
      name,
      categories: categoriesOf(input.categories),
      status: publish ? "PUBLISHED" : "DRAFT",
      createdAt: this.now(),
      json,
      endpointUri: typeof input.endpoint_uri === "string" ? input.endpoint_uri : clone?.endpointUri
    }
    this.byId.set(flow.id, flow)
    this.onChange()
    this.onStatus(flow, undefined)
    return flow
  }

  get(id: string): FlowRecord | undefined {
    return this.byId.get(id)
  }

  /** Changes a flow's metadata, endpoint or JSON (the routes check what the status allows). */
  change(flow: FlowRecord, patch: { name?: string; categories?: unknown; json?: string; endpointUri?: string | undefined }): void {
    const target = flow as { -readonly [K in keyof FlowRecord]: FlowRecord[K] }
    if (patch.name !== undefined) target.name = patch.name
    if (patch.categories !== undefined) target.categories = categoriesOf(patch.categories)
    if (patch.json !== undefined) target.json = patch.json
    if ("endpointUri" in patch) target.endpointUri = patch.endpointUri
    target.updatedAt = this.now()
    this.onChange()
  }

  /** Deletes a flow. */
  delete(flow: FlowRecord): void {
    this.byId.delete(flow.id)
    this.onChange()
  }

  /** A WABA's flows in creation order. */
  ofWaba(wabaId: string): FlowRecord[] {
    return [...this.byId.values()].filter((flow) => flow.wabaId === wabaId)
  }

  /** Moves a flow to `status` (publish, deprecate, or health monitoring through the control API). */
  setStatus(flow: FlowRecord, status: FlowStatus): void {
    const old = flow.status
    flow.status = status
    this.onChange()
    if (old !== status) this.onStatus(flow, old)
  }

  /**
   * Checks the flow of an interactive `flow` message sent from `wabaId` (§5.4): throws the
   * operator's refusal when the flow is unknown to that WABA or its status does not allow the
   * send's `mode`.
   */
  checkSend(wabaId: string, interactive: Record<string, unknown>): void {
    const parameters = asObject(asObject(interactive.action)?.parameters)
    if (parameters === undefined)
      throw GraphErrors.missingParameter("The parameter interactive['action']['parameters'] is required for a flow message.")
    const id = typeof parameters.flow_id === "string" || typeof parameters.flow_id === "number" ? String(parameters.flow_id) : undefined
    const name = typeof parameters.flow_name === "string" ? parameters.flow_name : undefined
    if ((id === undefined) === (name === undefined)) {
      throw GraphErrors.invalidParameter("Exactly one of flow_id and flow_name is required in interactive['action']['parameters'].")
    }
    const flow = id !== undefined ? this.byId.get(id) : this.ofWaba(wabaId).find((f) => f.name === name)
    if (flow === undefined || flow.wabaId !== wabaId) throw GraphErrors.flowNotFound(id ?? name!)
    const mode = parameters.mode ?? "published"
    if (flow.status === "BLOCKED") throw GraphErrors.flowBlocked(flow.id)
    if (flow.status === "DEPRECATED") throw GraphErrors.flowNotSendable(flow.id, "it is deprecated")
    if (mode === "draft" && flow.status !== "DRAFT")
      throw GraphErrors.flowNotSendable(flow.id, `it is ${flow.status}, not DRAFT: send it with mode "published"`)
    if (mode !== "draft" && flow.status === "DRAFT")
      throw GraphErrors.flowNotSendable(flow.id, 'it is a DRAFT: send it with mode "draft", or publish it')
  }

  /** Registers a phone number's business public key (PEM). */
  setKey(phoneNumberId: string, publicKey: string): void {
    this.keys.set(phoneNumberId, publicKey)
    this.onChange()
  }

  key(phoneNumberId: string): string | undefined {
    return this.keys.get(phoneNumberId)
  }

  snapshot(): FlowsSnapshot {
    return { nextId: this.nextId, flows: [...this.byId.values()], keys: Object.fromEntries(this.keys) }
  }

  restore(snapshot: FlowsSnapshot): void {
    this.nextId = Math.max(this.nextId, snapshot.nextId)
    for (const flow of snapshot.flows) this.byId.set(flow.id, flow)
    for (const [phone, key] of Object.entries(snapshot.keys ?? {})) this.keys.set(phone, key)
  }
}
