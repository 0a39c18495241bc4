/**
 * The authentication of the operator's webhooks (GRAPH_API.md §2.1, §2.2): one capability of
 * the operator, one tag. See `README.md` in this folder for the pattern every operator
 * capability follows.
 *
 * Implemented by `@switchboard/operator-client` (`WebhookVerifier`) with the app secrets of
 * the live operator and of the sandbox. No I/O: it needs only the secrets.
 */
import { Context, type Effect } from "effect"
import type { AccountKind } from "../stores/Store.js"

export class OperatorWebhookVerifier extends Context.Tag("@switchboard/domain/OperatorWebhookVerifier")<
  OperatorWebhookVerifier,
  {
    /**
     * Checks `X-Hub-Signature-256` against the raw body with each configured app secret;
     * answers which account kind's secret signed it, or undefined when none did (or the
     * header is missing or malformed). Constant-time comparison; every secret is tried, so
     * the time taken does not say which one matched.
     */
    readonly verifySignature: (rawBody: Uint8Array, signature: string | undefined) => Effect.Effect<AccountKind | undefined>
    /** `verifySignature`, answered at once (no effect): for a path that runs no fiber per request. */
    readonly matchSignature: (rawBody: Uint8Array, signature: string | undefined) => AccountKind | undefined
    /** The subscription handshake: mode must be `subscribe` and the token ours (constant-time). */
    readonly verifyHandshake: (mode: string | undefined, token: string | undefined) => boolean
  }
>() {}
