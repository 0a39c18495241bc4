/**
 * Storage of flows, scoped by the tenant (store and mode): another tenant's rows are
 * invisible. Status changes are compare-and-set: a write names the statuses it may start
 * from, so two concurrent controls never both win.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { Flow, FlowId, Status } from "./Flow.js"

export type FlowPatch = Partial<Pick<Flow, "name" | "categories" | "json" | "jsonVersion" | "validationErrors" | "endpointUrl" | "status">>

export class FlowRepo extends Context.Tag("@switchboard/domain/FlowRepo")<
  FlowRepo,
  {
    /**
     * Stores a new flow; false (nothing stored) when its lineage already holds a version with
     * its number: a lineage's numbers are unique, even between concurrent inserts.
     */
    readonly insert: (tenant: Tenant, flow: Flow) => Effect.Effect<boolean>
    readonly find: (tenant: Tenant, id: FlowId) => Effect.Effect<Option.Option<Flow>>
    /** The tenant's flow with this operator flow id (what the operator's `flows` webhooks name). */
    readonly findByOperatorId: (tenant: Tenant, operatorFlowId: string) => Effect.Effect<Option.Option<Flow>>
    /** `findByOperatorId` of each of these operator flow ids at once (by operator flow id; one the tenant has none of is absent). */
    readonly findByOperatorIds: (tenant: Tenant, operatorFlowIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, Flow>>
    /** Any tenant's flow: only for what carries its own proof (a signed preview link, the operator's encrypted endpoint requests). */
    readonly findById: (id: FlowId) => Effect.Effect<Option.Option<Flow>>
    /** Newest first by id, rows with id < `after` when given; only `status` when given. */
    readonly list: (
      tenant: Tenant,
      page: PageRequest & { readonly after?: FlowId | undefined; readonly status?: Status | undefined }
    ) => Effect.Effect<Slice<Flow>>
    /**
     * Applies `patch` at `now` while the stored status is one of `from`. Answers the flow as
     * stored, or none when it is not the tenant's or its status was not one of `from`.
     */
    readonly update: (tenant: Tenant, id: FlowId, patch: FlowPatch, from: ReadonlyArray<Status>, now: number) => Effect.Effect<Option.Option<Flow>>
    /** Every version of a lineage, by version. */
    readonly lineage: (tenant: Tenant, lineageId: FlowId) => Effect.Effect<ReadonlyArray<Flow>>
    /** Removes the flow while its status is one of `from`; answers whether a row went. */
    readonly remove: (tenant: Tenant, id: FlowId, from: ReadonlyArray<Status>) => Effect.Effect<boolean>
  }
>() {}
