/**
 * Storage of flow sends and responses, scoped by the tenant (store and mode): another
 * tenant's rows are invisible.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { FlowId } from "./Flow.js"
import type { FlowResponse, FlowResponseId, FlowSend } from "./FlowResponse.js"

export interface ResponseQuery extends PageRequest {
  readonly after?: FlowResponseId | undefined
  /** Only this flow's responses. */
  readonly flowId?: FlowId | undefined
  /** Only responses whose token matched no send. */
  readonly unmatched?: boolean | undefined
  readonly flowToken?: string | undefined
  /** Received at or after (epoch ms). */
  readonly since?: number | undefined
  /** Received before (epoch ms). */
  readonly until?: number | undefined
}

export class FlowResponseRepo extends Context.Tag("@switchboard/domain/FlowResponseRepo")<
  FlowResponseRepo,
  {
    readonly recordSend: (tenant: Tenant, send: FlowSend) => Effect.Effect<void>
    /** The latest send with this token. */
    readonly sendByToken: (tenant: Tenant, flowToken: string) => Effect.Effect<Option.Option<FlowSend>>
    /** The latest send of each of these tokens (by token; a token no send has is absent). */
    readonly sendsByTokens: (tenant: Tenant, flowTokens: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, FlowSend>>
    /** Stores the response once per operator message id; answers false (and stores nothing) for a duplicate. */
    readonly insertResponse: (tenant: Tenant, response: FlowResponse) => Effect.Effect<boolean>
    /**
     * Stores each response (their operator message ids distinct) unless the tenant has one with
     * its operator message id; answers the operator message ids of those stored.
     */
    readonly insertResponses: (tenant: Tenant, responses: ReadonlyArray<FlowResponse>) => Effect.Effect<ReadonlySet<string>>
    /** Newest first by id. */
    readonly list: (tenant: Tenant, query: ResponseQuery) => Effect.Effect<Slice<FlowResponse>>
    /** The times of a flow's sends and of its responses in [since, until), for the stats. */
    readonly times: (
      tenant: Tenant,
      flowId: FlowId,
      since: number,
      until: number
    ) => Effect.Effect<{ readonly sends: ReadonlyArray<number>; readonly responses: ReadonlyArray<number> }>
  }
>() {}
