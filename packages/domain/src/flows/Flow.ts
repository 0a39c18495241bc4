/**
 * Flows (spec §4.11): native forms that a customer fills in inside the conversation. A flow
 * belongs to exactly one tenant (store and mode); another tenant's id answers as an id that
 * does not exist. Each flow is mirrored at the operator (GRAPH_API.md §5.1), whose id it
 * keeps (`operator_flow_id`).
 *
 * State machine (GRAPH_API.md §5.2, DESIGN.md "State machines"):
 *
 *   DRAFT ──publish──► PUBLISHED ──deprecate──► DEPRECATED
 *   PUBLISHED ──(operator: unhealthy endpoint)──► THROTTLED ──(operator)──► PUBLISHED
 *   PUBLISHED | THROTTLED ──(operator: health, integrity)──► BLOCKED ──(operator)──► PUBLISHED
 *   THROTTLED | BLOCKED ──deprecate──► DEPRECATED
 *   DRAFT ──delete──► (gone)
 *
 * Only a DRAFT is edited (`update`: its name and categories, its JSON, its endpoint);
 * anything else is refused with `FlowPublished`. Only a DRAFT is deleted. Deprecating
 * anything but a published flow (PUBLISHED, THROTTLED, BLOCKED) is refused with
 * `InvalidState`. A published flow never changes: a new version (`POST .../versions`) is a
 * new DRAFT copied from it that names it as `previous_version_id`; publishing that version
 * deprecates the lineage's other published versions (its predecessor among them) in the same
 * step unless the caller says otherwise (`FlowVersions`).
 *
 * The entity is declared once, as the `Flow` schema; the API's `FlowResource` is derived
 * from it.
 */
import { Either, Schema } from "effect"
import { InvalidState } from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { Mode, StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { FlowPublished } from "./FlowErrors.js"

/** `flw_…` */
export const FlowId = Id.kind("flw", "FlowId")
export type FlowId = Id.Of<typeof FlowId>

export const Status = Schema.Literal("DRAFT", "PUBLISHED", "DEPRECATED", "THROTTLED", "BLOCKED")
export type Status = typeof Status.Type

/** The operator's categories (GRAPH_API.md §5.1). */
export const Category = Schema.Literal(
  "SIGN_UP",
  "SIGN_IN",
  "APPOINTMENT_BOOKING",
  "LEAD_GENERATION",
  "CONTACT_US",
  "CUSTOMER_SUPPORT",
  "SURVEY",
  "SHOPPING",
  "OTHER"
)
export type Category = typeof Category.Type

/** What a caller (or the operator) asks of a flow. */
export type Operation =
  | "update"
  | "delete"
  | "publish"
  | "deprecate"
  /** The operator's health monitoring. */
  | "throttle"
  | "block"
  | "restore"

const refuse = (status: Status, operation: string) => Either.left(new InvalidState({ resource: "flow", status, operation }))

/**
 * The status after `operation`, or the refusal: `FlowPublished` for an edit of anything but
 * a DRAFT, `InvalidState` otherwise. The one place that knows which operation is allowed in
 * which status.
 */
export const transition = (status: Status, operation: Operation): Either.Either<Status, InvalidState | FlowPublished> => {
  switch (operation) {
    case "update":
      return status === "DRAFT" ? Either.right(status) : Either.left(new FlowPublished({ status }))
    case "delete":
      return status === "DRAFT" ? Either.right(status) : refuse(status, operation)
    case "publish":
      return status === "DRAFT" ? Either.right("PUBLISHED") : refuse(status, operation)
    case "deprecate":
      return status === "PUBLISHED" || status === "THROTTLED" || status === "BLOCKED" ? Either.right("DEPRECATED") : refuse(status, operation)
    case "throttle":
      return status === "PUBLISHED" ? Either.right("THROTTLED") : refuse(status, operation)
    case "block":
      return status === "PUBLISHED" || status === "THROTTLED" ? Either.right("BLOCKED") : refuse(status, operation)
    case "restore":
      return status === "THROTTLED" || status === "BLOCKED" ? Either.right("PUBLISHED") : refuse(status, operation)
  }
}

/** The statuses from which `operation` is allowed (for conditional updates). */
export const sources = (operation: Operation): ReadonlyArray<Status> => Status.literals.filter((s) => Either.isRight(transition(s, operation)))

/** Whether a flow in `status` may be sent, and in which mode (GRAPH_API.md §5.2, §5.4). */
export const sendable = (status: Status, mode: "draft" | "published"): boolean =>
  mode === "draft" ? status === "DRAFT" : status === "PUBLISHED" || status === "THROTTLED"

/** One validation error, as the operator and our own validator report them. */
export const ValidationError = Schema.Struct({
  error: Schema.String,
  error_type: Schema.String,
  message: Schema.String,
  path: Schema.optional(Schema.String),
  line_start: Schema.optional(Schema.Number),
  line_end: Schema.optional(Schema.Number),
  column_start: Schema.optional(Schema.Number),
  column_end: Schema.optional(Schema.Number)
}).annotations({ identifier: "FlowValidationError" })

export const Flow = Schema.Struct({
  id: FlowId.schema,
  storeId: StoreId.schema,
  mode: Mode,
  name: Schema.String,
  categories: Schema.Array(Category),
  status: Status,
  /** 1, 2, ... along its lineage. */
  version: Schema.Int,
  previousVersionId: Schema.NullOr(FlowId.schema),
  /** The first version's id: what every version of one lineage shares. */
  lineageId: FlowId.schema,
  /** The Flow JSON as stored (text), none until one is put. */
  json: Schema.NullOr(Schema.String),
  jsonVersion: Schema.NullOr(Schema.String),
  validationErrors: Schema.Array(ValidationError),
  /** The caller's data endpoint URL (our hosted endpoint forwards to it). */
  endpointUrl: Schema.NullOr(Schema.String),
  operatorFlowId: Schema.String,
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Flow extends Schema.Schema.Type<typeof Flow> {}

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const Name = Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= 200) || "must be 1 to 200 characters"))
const Categories = Schema.Array(Category).pipe(Schema.minItems(1), Schema.maxItems(9))

/** `POST /chat/flows`. */
export const CreateFlow = Schema.Struct({ name: Name, categories: Categories }).annotations({ ...strict, identifier: "CreateFlow" })
/** `PATCH /chat/flows/{id}`: fields left out stay. */
export const UpdateFlow = Schema.Struct({ name: Schema.optional(Name), categories: Schema.optional(Categories) }).annotations({
  ...strict,
  identifier: "UpdateFlow"
})
/** `PUT /chat/flows/{id}/json`: the Flow JSON as an object or as text. */
export const PutJson = Schema.Struct({
  json: Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  autoFix: Schema.optionalWith(Schema.Boolean, { default: () => false })
}).annotations({ ...strict, identifier: "PutFlowJson" })
/** `PUT /chat/flows/{id}/endpoint`: the caller's URL, or null to remove it. */
export const PutEndpoint = Schema.Struct({ url: Schema.NullOr(Schema.String) }).annotations({ ...strict, identifier: "PutFlowEndpoint" })
/** `POST /chat/flows/{id}/publish`: `deprecate_previous` (default true) deprecates the lineage's other published versions. */
export const Publish = Schema.Struct({ deprecate_previous: Schema.optionalWith(Schema.Boolean, { default: () => true }) }).annotations({
  ...strict,
  identifier: "PublishFlow"
})

/** The flow as the API shows it. */
export const FlowResource = Schema.Struct({
  id: Flow.fields.id,
  name: Flow.fields.name,
  categories: Flow.fields.categories,
  status: Flow.fields.status,
  version: Flow.fields.version,
  previousVersionId: Wire.key(Flow.fields.previousVersionId, "previous_version_id"),
  jsonVersion: Wire.key(Flow.fields.jsonVersion, "json_version"),
  validationErrors: Wire.key(Flow.fields.validationErrors, "validation_errors"),
  endpointUrl: Wire.key(Flow.fields.endpointUrl, "endpoint_url"),
  operatorFlowId: Wire.key(Flow.fields.operatorFlowId, "operator_flow_id"),
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Flow" })

/** One fix of autoFix. */
export const Fix = Schema.Struct({ path: Schema.String, fix: Schema.String, before: Schema.Unknown, after: Schema.Unknown }).annotations({
  identifier: "FlowJsonFix"
})

/** The answer of `PUT /chat/flows/{id}/json`: the flow and the fixes applied (empty without autoFix). */
export const PutJsonResult = Schema.Struct({
  ...FlowResource.fields,
  fixesApplied: Wire.key(Schema.Array(Fix), "fixes_applied")
}).annotations({ identifier: "FlowJsonPut" })

/** The answer of `GET /chat/flows/{id}/json`. */
export const JsonDocument = Schema.Struct({
  id: FlowId.schema,
  json: Schema.NullOr(Schema.Unknown),
  jsonVersion: Wire.key(Schema.NullOr(Schema.String), "json_version")
}).annotations({ identifier: "FlowJsonDocument" })

export const Deleted = Schema.Struct({ id: FlowId.schema, deleted: Schema.Literal(true) })
