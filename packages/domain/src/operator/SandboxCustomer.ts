import { Context, type Effect } from "effect"
import type { OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

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
  }
>() {}
