import { Context, type Effect } from "effect"
import type { OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

/** One request of a sandbox customer's client to a flow's data endpoint (the decrypted form). */
export interface FlowDataExchange {
  /** The operator's flow id. */
  readonly flowId: string
  readonly action: string
  readonly screen?: string | undefined
  readonly data?: Readonly<Record<string, unknown>> | undefined
  readonly flowToken?: string | undefined
  readonly version?: string | undefined
}

/** What the client saw: the endpoint's status, its decrypted reply (200) or its error body. */
export interface FlowDataExchangeResult {
  readonly status: number
  readonly response: unknown
  readonly error: unknown
  readonly latencyMs: number
}

/**
 * The customer's side of the sandbox, played by the emulator: each call makes the emulator
 * send the real signed webhook to our inbound route, and answers once it was delivered.
 */
export class SandboxCustomer extends Context.Tag("@switchboard/domain/SandboxCustomer")<
  SandboxCustomer,
  {
    /** A customer writes to the store's sandbox number. `message` replaces `text` for other types (order, interactive). */
    readonly sendInbound: (
      account: OperatorAccount,
      input: { readonly from: string; readonly text?: string | undefined; readonly profileName?: string | undefined; readonly message?: unknown }
    ) => Effect.Effect<{ readonly messageId: string }, OperatorUnavailable>
    /**
     * The operator sends a payment status webhook for our payment request's `referenceId`
     * (the customer `to` paid, or not): `amount` in minor units with `offset`.
     */
    readonly sendPayment: (
      account: OperatorAccount,
      input: {
        readonly to: string
        readonly referenceId: string
        readonly status: "captured" | "failed" | "pending"
        readonly amount: { readonly value: number; readonly offset: number }
        readonly currency: string
      }
    ) => Effect.Effect<void, OperatorUnavailable>
    /**
     * The customer's WhatsApp client calls a flow's data endpoint, as the operator does
     * (GRAPH_API.md §5.5: encrypted with the number's public key, signed with the app secret):
     * answers the endpoint's HTTP status and, on 200, the decrypted reply; else its error body.
     */
    readonly flowDataExchange: (account: OperatorAccount, input: FlowDataExchange) => Effect.Effect<FlowDataExchangeResult, OperatorUnavailable>
  }
>() {}
