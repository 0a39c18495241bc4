/**
 * The operator's WhatsApp Flows (GRAPH_API.md §5.1), as the flows use cases need them: one
 * capability, one tag (see `README.md` in this folder). Create a flow on the account's WABA,
 * change its metadata and endpoint, replace its Flow JSON, publish, deprecate, delete, read
 * its preview link, and register the phone number's public key for the data endpoint.
 *
 * Implemented over HTTP by `@switchboard/operator-client` (`FlowClient`); the sandbox is the
 * emulator behind the same tag.
 *
 * Errors: a change the operator refuses is `OperatorRejected` with its code (139001 update
 * failed, 139002 publish failed, 139003 deprecate failed, 139004 delete failed); an
 * unreachable operator is `OperatorUnavailable`. Creation is not retried after a lost
 * answer (a retry could make two); everything else is idempotent and retried inside.
 */
import { Context, type Effect } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

/** A validation error as the operator reports it (GRAPH_API.md §5.3). */
export interface OperatorValidationError {
  readonly error: string
  readonly error_type: string
  readonly message: string
  readonly line_start?: number
  readonly line_end?: number
  readonly column_start?: number
  readonly column_end?: number
}

export interface FlowMetadata {
  readonly name?: string
  readonly categories?: ReadonlyArray<string>
  /** The URL the operator calls for data exchange; null removes it. */
  readonly endpointUri?: string | null
}

/** A flow as the operator's list shows it (`GET /{WABA_ID}/flows`). */
export interface OperatorFlow {
  readonly id: string
  readonly name: string
  /** DRAFT, PUBLISHED, DEPRECATED, BLOCKED or THROTTLED (as the operator spells it). */
  readonly status: string
}

export class FlowOperator extends Context.Tag("@switchboard/domain/FlowOperator")<
  FlowOperator,
  {
    /** `POST /{WABA_ID}/flows`: a DRAFT; answers the operator's flow id. */
    readonly createFlow: (
      account: OperatorAccount,
      flow: { readonly name: string; readonly categories: ReadonlyArray<string>; readonly cloneFlowId?: string | undefined }
    ) => Effect.Effect<string, OperatorRejected | OperatorUnavailable>
    /** `GET /{WABA_ID}/flows`: every flow of the account, all pages followed (what a sweep's `recover` looks in). */
    readonly listFlows: (account: OperatorAccount) => Effect.Effect<ReadonlyArray<OperatorFlow>, OperatorRejected | OperatorUnavailable>
    /** `POST /{FLOW_ID}`: the fields given change. */
    readonly updateFlow: (
      account: OperatorAccount,
      flowId: string,
      metadata: FlowMetadata
    ) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** `POST /{FLOW_ID}/assets`: replaces the Flow JSON; answers the operator's validation errors (a DRAFT with errors stays a DRAFT). */
    readonly putJson: (
      account: OperatorAccount,
      flowId: string,
      json: string
    ) => Effect.Effect<ReadonlyArray<OperatorValidationError>, OperatorRejected | OperatorUnavailable>
    /** `POST /{FLOW_ID}/publish`: irreversible. */
    readonly publish: (account: OperatorAccount, flowId: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** `POST /{FLOW_ID}/deprecate`. */
    readonly deprecate: (account: OperatorAccount, flowId: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** `DELETE /{FLOW_ID}`: drafts only; a flow the operator no longer has counts as deleted. */
    readonly deleteFlow: (account: OperatorAccount, flowId: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** `GET /{FLOW_ID}?fields=preview.invalidate(false)`: the operator's preview link and when it expires (epoch ms). */
    readonly preview: (
      account: OperatorAccount,
      flowId: string
    ) => Effect.Effect<{ readonly previewUrl: string; readonly expiresAt: number }, OperatorRejected | OperatorUnavailable>
    /** `POST /{PHONE_NUMBER_ID}/whatsapp_business_encryption`: the number's public key (PEM), for the data endpoint. */
    readonly setEncryptionKey: (account: OperatorAccount, publicKeyPem: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
  }
>() {}
