/**
 * The operator's send endpoint (GRAPH_API.md §3.3): one capability of the operator, one tag.
 * See `README.md` in this folder for the pattern every operator capability follows.
 *
 * Implemented over HTTP by `@switchboard/operator-client` (`MessageClient`); the sandbox is
 * the emulator behind the same tag. Messaging's use cases and the campaign lanes (the
 * worker) use it.
 */
import { Context, type Effect, type Exit } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"
import type { ButtonParameter } from "../templates/TemplateSend.js"
import type { SendCard, SendHeader } from "../templates/RichSend.js"

/** A message as the operator's send endpoint takes it. `to` is E.164. */
export type OutboundMessage =
  | {
      readonly type: "text"
      readonly to: string
      readonly text: { readonly body: string; readonly preview_url?: boolean | undefined }
      readonly callbackData?: string | undefined
    }
  | {
      readonly type: "template"
      readonly to: string
      readonly template: {
        readonly name: string
        readonly language: string
        /** The body's parameters, in order, or by name (NAMED templates). */
        readonly parameters: ReadonlyArray<string> | Readonly<Record<string, string>>
        /** The TEXT header's parameter (at most one), or by name. */
        readonly headerParameters?: ReadonlyArray<string> | Readonly<Record<string, string>> | undefined
        /** A media header (by the operator's media id or a link) or a location header. */
        readonly header?: SendHeader | undefined
        /** The buttons' parameters, by index and sub-type (Appendix B.2). */
        readonly buttons?: ReadonlyArray<ButtonParameter> | undefined
        /** A carousel's cards, in order. */
        readonly cards?: ReadonlyArray<SendCard> | undefined
        /** A limited-time offer's expiry (epoch ms). */
        readonly limitedTimeOffer?: { readonly expiration_time_ms: number } | undefined
      }
      readonly callbackData?: string | undefined
    }
  | { readonly type: "interactive"; readonly to: string; readonly interactive: unknown; readonly callbackData?: string | undefined }

export interface SendOptions {
  /**
   * Whether a rate-limit answer is retried inside the send (default true). False for a
   * caller that paces its own sends (a campaign lane): its pacer counts every request the
   * operator sees, and a retry it did not start would break that count; the rate limit
   * surfaces at once, for the caller to retry when its pacer allows.
   */
  readonly retryRateLimits?: boolean
}

export class MessageOperator extends Context.Tag("@switchboard/domain/MessageOperator")<
  MessageOperator,
  {
    /**
     * Sends one message. Answers the operator's message id (wamid). Not idempotent: the
     * operator takes no key, so callers mark the send before calling (see campaigns), and
     * a send is never retried after an answer that may hide its acceptance (5xx, network,
     * timeout): that is `OperatorUnavailable` with `kind: "unreachable"`, and a status
     * webhook (our callback data) tells later whether it went out.
     * Rate-limit answers are retried with back-off inside a short budget (unless
     * `options.retryRateLimits` is false), then surface as `OperatorUnavailable` with
     * `kind: "rate_limited"`, the operator's `code` and `retryAfterSeconds`: the message was
     * not taken. Refusals are `OperatorRejected` with the code.
     */
    readonly sendMessage: (
      account: OperatorAccount,
      message: OutboundMessage,
      options?: SendOptions
    ) => Effect.Effect<{ readonly messageId: string }, OperatorRejected | OperatorUnavailable>
    /**
     * `sendMessage` with `retryRateLimits: false`, with no fiber: `done` is called once with
     * its exit. For a caller that sends a thousand messages a second (a campaign lane);
     * optional: without it, such a caller runs `sendMessage`.
     */
    /**
     * The messaging limit tier of the account's business portfolio
     * (`whatsapp_business_manager_messaging_limit` of the phone number, e.g. `TIER_250`).
     * Optional: without it, campaigns keep the tier the operator's webhooks last told.
     */
    readonly messagingTier?: (account: OperatorAccount) => Effect.Effect<string, OperatorRejected | OperatorUnavailable>
    readonly sendPaced?: (
      account: OperatorAccount,
      message: OutboundMessage,
      done: (exit: Exit.Exit<{ readonly messageId: string }, OperatorRejected | OperatorUnavailable>) => void
    ) => void
  }
>() {}
