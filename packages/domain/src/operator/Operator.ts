/**
 * The platform operator (WhatsApp Business Platform on the Graph API), as the use cases
 * need it. Implemented over HTTP by `@switchboard/operator-client`; the sandbox is the
 * emulator behind the same port. Which base URL and credentials serve an account is the
 * adapter's business: the domain only says which account.
 */
import { Context, type Effect } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { AccountKind, OperatorAccount } from "../stores/Store.js"
import type { TemplateState } from "../templates/TemplateRepo.js"
import type { Category, Status, TemplateData } from "../templates/Template.js"

/** A message as the operator's send endpoint takes it. `to` is E.164. */
export type OutboundMessage =
  | { readonly type: "text"; readonly to: string; readonly text: { readonly body: string; readonly preview_url?: boolean | undefined }; readonly callbackData?: string | undefined }
  | {
      readonly type: "template"
      readonly to: string
      readonly template: { readonly name: string; readonly language: string; readonly parameters: ReadonlyArray<string> }
      readonly callbackData?: string | undefined
    }
  | { readonly type: "interactive"; readonly to: string; readonly interactive: unknown; readonly callbackData?: string | undefined }

export interface CreatedTemplate {
  readonly operatorId: string
  readonly status: Status
  readonly category: Category
}

export interface SendOptions {
  /**
   * Whether a rate-limit answer is retried inside the send (default true). False for a
   * caller that paces its own sends (a campaign lane): its pacer counts every request the
   * operator sees, and a retry it did not start would break that count; the rate limit
   * surfaces at once, for the caller to retry when its pacer allows.
   */
  readonly retryRateLimits?: boolean
}

export class Operator extends Context.Tag("@switchboard/domain/Operator")<
  Operator,
  {
    /** Submits a template for review. The operator answers PENDING (normally). */
    readonly createTemplate: (account: OperatorAccount, data: TemplateData) => Effect.Effect<CreatedTemplate, OperatorRejected | OperatorUnavailable>
    /** Every template of the account, all pages followed. */
    readonly listTemplates: (account: OperatorAccount) => Effect.Effect<ReadonlyArray<TemplateState>, OperatorUnavailable>
    /** Deletes every language of the template. A name the operator does not know is not an error. */
    readonly deleteTemplate: (account: OperatorAccount, name: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /**
     * Sends one message. Answers the operator's message id (wamid). Not idempotent: the
     * operator takes no key, so callers mark the send before calling (see campaigns).
     * Rate-limit answers are retried with back-off inside a short budget (unless
     * `options.retryRateLimits` is false), then surface as OperatorUnavailable with
     * `retryAfterSeconds`; refusals as OperatorRejected with the code.
     */
    readonly sendMessage: (
      account: OperatorAccount,
      message: OutboundMessage,
      options?: SendOptions
    ) => Effect.Effect<{ readonly messageId: string }, OperatorRejected | OperatorUnavailable>
    /**
     * Checks `X-Hub-Signature-256` against the raw body with each configured app secret;
     * answers which account kind's secret signed it, or undefined when none did.
     * Constant-time comparison.
     */
    readonly verifyWebhookSignature: (rawBody: Uint8Array, signature: string | undefined) => Effect.Effect<AccountKind | undefined>
    /** The subscription handshake: mode must be `subscribe` and the token ours. */
    readonly verifyHandshake: (mode: string | undefined, token: string | undefined) => boolean
  }
>() {}
