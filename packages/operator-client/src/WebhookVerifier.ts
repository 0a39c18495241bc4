/**
 * The domain's `OperatorWebhookVerifier` on the signature primitives of `WebhookSignature`:
 * the app secret of each endpoint (live, sandbox) and our verify token. No I/O, no transport.
 */
import { OperatorWebhookVerifier, type Store } from "@switchboard/domain"
import { Config, type ConfigError, Effect, Layer, type Redacted } from "effect"
import * as WebhookSignature from "./WebhookSignature.js"

/** The secrets of the verification (an `OperatorClientConfig` is one). */
export interface WebhookVerifierConfig {
  /** The real operator's app secret, when live accounts are served. */
  readonly live?: { readonly appSecret: Redacted.Redacted<string> } | undefined
  /** The emulator's app secret. */
  readonly sandbox: { readonly appSecret: Redacted.Redacted<string> }
  /** Our verify token of the webhook subscription handshake. */
  readonly verifyToken: Redacted.Redacted<string>
}

/** The verifier. Live is tried before sandbox; every secret is tried whatever matched. */
export const make = (config: WebhookVerifierConfig): OperatorWebhookVerifier.OperatorWebhookVerifier["Type"] => {
  const secrets: ReadonlyArray<readonly [Store.AccountKind, Redacted.Redacted<string>]> =
    config.live === undefined
      ? [["sandbox", config.sandbox.appSecret]]
      : [
          ["live", config.live.appSecret],
          ["sandbox", config.sandbox.appSecret]
        ]
  return {
    verifySignature: (rawBody, signature) => Effect.sync(() => WebhookSignature.matchSignature(rawBody, signature, secrets)),
    matchSignature: (rawBody, signature) => WebhookSignature.matchSignature(rawBody, signature, secrets),
    verifyHandshake: (mode, token) => WebhookSignature.verifyHandshake(mode, token, config.verifyToken)
  }
}

export const layer = (config: WebhookVerifierConfig): Layer.Layer<OperatorWebhookVerifier.OperatorWebhookVerifier> =>
  Layer.sync(OperatorWebhookVerifier.OperatorWebhookVerifier, () => make(config))

/** `layer` with its secrets read from `Config` (e.g. environment variables). */
export const layerConfig = (
  config: Config.Config.Wrap<WebhookVerifierConfig>
): Layer.Layer<OperatorWebhookVerifier.OperatorWebhookVerifier, ConfigError.ConfigError> =>
  Layer.effect(OperatorWebhookVerifier.OperatorWebhookVerifier, Effect.map(Config.unwrap(config), make))
