/**
 * Storage ports of calls. Every method takes the tenant first and sees only the tenant's
 * rows: another store's or the other mode's rows are invisible.
 *
 * - `CallPermissionRepo`: one permission record per tenant and customer phone, changed only
 *   by compare-and-set on its `version`, so of concurrent changes read from one version
 *   exactly one is written (100 concurrent permission requests send one message).
 * - `CallRepo`: the calls; status changes are compare-and-set on the status read.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { Millis } from "../shared/Time.js"
import type { Call, CallId, Direction, Status } from "./Call.js"
import type { Permission } from "./CallPermission.js"
import type { CallSettings } from "./CallSettings.js"

export type PermissionPatch = Partial<
  Pick<Permission, "status" | "expiresAt" | "requestTimes" | "budgetResetAt" | "lastRequestMessageId" | "updatedAt">
>

export class CallPermissionRepo extends Context.Tag("@switchboard/domain/CallPermissionRepo")<
  CallPermissionRepo,
  {
    /** The tenant's record of `phone` (E.164), none before anything was recorded for it. */
    readonly find: (tenant: Tenant, phone: string) => Effect.Effect<Option.Option<Permission>>
    /**
     * Writes `read` with `patch` applied (and version + 1) only while the stored version is
     * `read.version`; version 0 means no record yet, and the record is created. Answers the
     * record written, or none when another change came first (nothing is written then).
     */
    readonly compareAndSet: (tenant: Tenant, read: Permission, patch: PermissionPatch) => Effect.Effect<Option.Option<Permission>>
  }
>() {}

export type CallPatch = Partial<
  Pick<Call, "status" | "operatorCallId" | "answerSdp" | "endStatus" | "startedAt" | "endedAt" | "durationSeconds" | "error" | "updatedAt">
>

export class CallRepo extends Context.Tag("@switchboard/domain/CallRepo")<
  CallRepo,
  {
    /** Stores the call. */
    readonly insert: (tenant: Tenant, call: Call) => Effect.Effect<void>
    /**
     * Stores a call the operator announced, unless the tenant already has one with its
     * operator call id (a replayed webhook): answers the call stored and whether it is new.
     */
    readonly insertFromOperator: (tenant: Tenant, call: Call) => Effect.Effect<{ readonly call: Call; readonly created: boolean }>
    readonly find: (tenant: Tenant, id: CallId) => Effect.Effect<Option.Option<Call>>
    readonly findByOperatorId: (tenant: Tenant, operatorCallId: string) => Effect.Effect<Option.Option<Call>>
    /**
     * The tenant's calls with one of these operator call ids or ids, by id (locked until the
     * transaction ends where the store can lock rows): what a batch of call webhooks names.
     */
    readonly findForEvents: (tenant: Tenant, operatorCallIds: ReadonlyArray<string>, ids: ReadonlyArray<CallId>) => Effect.Effect<ReadonlyArray<Call>>
    /**
     * Stores calls the operator announced (their operator call ids set and distinct), each
     * unless the tenant already has one with its operator call id; answers the ids of those stored.
     */
    readonly insertManyFromOperator: (tenant: Tenant, calls: ReadonlyArray<Call>) => Effect.Effect<ReadonlySet<CallId>>
    /**
     * Writes each call as `next` while it is stored as `read` (the same status and update
     * time), in one statement per 500; answers the ids written.
     */
    readonly updateMany: (tenant: Tenant, changes: ReadonlyArray<{ readonly read: Call; readonly next: Call }>) => Effect.Effect<ReadonlySet<CallId>>
    /** Newest first by id, rows with id < `after`, filtered by status, direction and phone when given. */
    readonly list: (
      tenant: Tenant,
      page: PageRequest & {
        readonly after?: CallId | undefined
        readonly status?: Status | undefined
        readonly direction?: Direction | undefined
        readonly phone?: string | undefined
      }
    ) => Effect.Effect<Slice<Call>>
    /**
     * Applies `patch` only while the stored status is one of `from`; answers the call after
     * the change, or none when its status was not one of `from` (or it does not exist).
     */
    readonly update: (tenant: Tenant, id: CallId, from: ReadonlyArray<Status>, patch: CallPatch) => Effect.Effect<Option.Option<Call>>
    /** The tenant's calls created in [since, until), oldest first (analytics; at most `limit`). */
    readonly createdBetween: (tenant: Tenant, since: Millis, until: Millis, limit: number) => Effect.Effect<ReadonlyArray<Call>>
  }
>() {}

/** The tenant's call settings (one record per tenant; SIP passwords kept as secrets, never in `calling`). */
export class CallSettingsRepo extends Context.Tag("@switchboard/domain/CallSettingsRepo")<
  CallSettingsRepo,
  {
    readonly find: (tenant: Tenant) => Effect.Effect<Option.Option<CallSettings>>
    /** Creates or replaces the tenant's record. */
    readonly save: (tenant: Tenant, settings: CallSettings) => Effect.Effect<void>
  }
>() {}
