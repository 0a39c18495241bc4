/**
 * Storage of the hosted data endpoint (issue 15 item 7), scoped by the tenant: its key pair
 * (one per tenant, the private key stored encrypted by the caller of `saveKey`) and the log
 * of its requests, which the stats read.
 */
import { Context, type Effect, type Option } from "effect"
import type { Tenant } from "../shared/Tenant.js"
import type { FlowId } from "./Flow.js"

/** One request the operator made to the hosted endpoint. */
export interface EndpointCall {
  readonly id: string
  readonly flowId: FlowId
  /** `ping`, `INIT`, `BACK`, `data_exchange`, `navigate`, or `unknown` when it could not be read. */
  readonly action: string
  /** What we answered the operator. */
  readonly httpStatus: number
  readonly ok: boolean
  readonly latencyMs: number
  readonly error: string | null
  readonly at: number
}

export interface EndpointKey {
  readonly phoneNumberId: string
  readonly publicKey: string
  /** Encrypted with the server's key (see `FlowCrypto.sealPrivateKey`). */
  readonly privateKey: string
  readonly createdAt: number
}

/**
 * What the hosted endpoint reads for one request, in one read: the flow's tenant, its
 * caller's URL and Flow JSON, and the sealed private key of the flow's tenant (null when it
 * has none). The same as `FlowRepo.findById` and `findKey` together.
 */
export interface EndpointTarget {
  readonly flowId: FlowId
  readonly tenant: Tenant
  readonly endpointUrl: string | null
  readonly json: string | null
  readonly privateKey: string | null
}

export class FlowEndpointRepo extends Context.Tag("@switchboard/domain/FlowEndpointRepo")<
  FlowEndpointRepo,
  {
    /** Records a call; it may be written a moment later (off the request's path), but `calls` in this process reads it. */
    readonly recordCall: (tenant: Tenant, call: EndpointCall) => Effect.Effect<void>
    /** A flow's calls in [since, until), every call recorded before in this process among them. */
    readonly calls: (tenant: Tenant, flowId: FlowId, since: number, until: number) => Effect.Effect<ReadonlyArray<EndpointCall>>
    readonly findKey: (tenant: Tenant) => Effect.Effect<Option.Option<EndpointKey>>
    /** Any tenant's flow with its tenant's key: only for the operator's requests to the hosted endpoint, which carry their own proof. */
    readonly target: (flowId: FlowId) => Effect.Effect<Option.Option<EndpointTarget>>
    /** Stores the tenant's key unless it has one; answers the key it has now (the first one saved wins a race). */
    readonly saveKey: (tenant: Tenant, key: EndpointKey) => Effect.Effect<EndpointKey>
  }
>() {}
