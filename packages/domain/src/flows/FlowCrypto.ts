/**
 * The cryptography and the outbound HTTP that flows need, as ports (the domain imports only
 * `effect`). `FlowCrypto` is implemented with `node:crypto` in `@switchboard/operator-client`
 * (`FlowCryptoLive.ts`), `CallerEndpoint` in `@switchboard/outbound` (`FlowExchange.ts`).
 *
 * - HMAC signatures of preview links and derived secrets, with the server's secret;
 * - the data endpoint's encryption (GRAPH_API.md §5.5): an RSA key pair per tenant, the
 *   private key sealed with the server's secret; requests decrypted with RSA-OAEP (SHA-256)
 *   and AES-128-GCM; replies encrypted with the same AES key and the bit-inverted IV.
 */
import { Context, type Effect, type Option } from "effect"

/** What the operator POSTs to the data endpoint. */
export interface EncryptedRequest {
  readonly encrypted_flow_data: string
  readonly encrypted_aes_key: string
  readonly initial_vector: string
}

/** A decrypted request, with what its reply is encrypted with. */
export interface Decrypted {
  readonly payload: unknown
  readonly aesKey: Uint8Array
  readonly iv: Uint8Array
}

export class FlowCrypto extends Context.Tag("@switchboard/domain/FlowCrypto")<
  FlowCrypto,
  {
    /** HMAC-SHA256 of `data` with the server's secret, base64url. */
    readonly sign: (data: string) => string
    /** Whether `signature` is `sign(data)`, compared in constant time. */
    readonly verify: (data: string, signature: string) => boolean
    /** A new RSA-2048 key pair, PEM (SPKI public, PKCS#8 private). */
    readonly generateKeyPair: Effect.Effect<{ readonly publicKey: string; readonly privateKey: string }>
    /** Encrypts a private key with the server's secret (AES-256-GCM). */
    readonly seal: (plain: string) => string
    /** Decrypts what `seal` made; none when it was sealed with another secret or is damaged. */
    readonly open: (sealed: string) => Option.Option<string>
    /** Decrypts an operator request; none when it cannot be decrypted (answered 421). */
    readonly decrypt: (privateKeyPem: string, request: EncryptedRequest) => Option.Option<Decrypted>
    /** Encrypts a reply: AES-GCM with the request's key and the bit-inverted IV, base64 of ciphertext and tag. */
    readonly encrypt: (decrypted: Decrypted, reply: unknown) => string
  }
>() {}

/** An answer of the caller's endpoint. */
export interface CallerAnswer {
  readonly status: number
  readonly body: string
}

/**
 * Calls the caller's flow endpoint with plain JSON, signed as caller webhooks are (Standard
 * Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` with `secret`). The URL is
 * checked by the SSRF guard first. Fails with a reason when no answer came.
 */
export class CallerEndpoint extends Context.Tag("@switchboard/domain/CallerEndpoint")<
  CallerEndpoint,
  {
    readonly exchange: (url: string, secret: string, payload: unknown) => Effect.Effect<CallerAnswer, string>
  }
>() {}

/** Derived secrets kept per `FlowCrypto` (the hosted endpoint derives its flow's on every request), the oldest dropped first. */
const SECRETS_KEPT = 1000
const derived = new WeakMap<FlowCrypto["Type"], Map<string, string>>()

/** The Standard Webhooks secret of a flow's forwards to the caller, derived from the server's secret. */
export const secretOf = (crypto: FlowCrypto["Type"], flowId: string): string => {
  let kept = derived.get(crypto)
  if (kept === undefined) {
    kept = new Map()
    derived.set(crypto, kept)
  }
  const known = kept.get(flowId)
  if (known !== undefined) return known
  const b64 = crypto.sign(`endpoint:${flowId}`).replace(/-/g, "+").replace(/_/g, "/")
  const secret = `whsec_${b64}${"=".repeat((4 - (b64.length % 4)) % 4)}`
  if (kept.size >= SECRETS_KEPT) kept.delete(kept.keys().next().value!)
  kept.set(flowId, secret)
  return secret
}
