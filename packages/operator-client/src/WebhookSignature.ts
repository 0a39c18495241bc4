/**
 * The operator's webhook authentication (GRAPH_API.md §2.1, §2.2): the `X-Hub-Signature-256`
 * header, `sha256=<lower-case hex HMAC-SHA256 of the raw body keyed with the app secret>`, and
 * the verify token of the subscription handshake. Every comparison is constant-time.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Redacted } from "effect"

const HEADER = /^sha256=([0-9a-fA-F]{64})$/

const reveal = (secret: string | Redacted.Redacted<string>): string => (Redacted.isRedacted(secret) ? Redacted.value(secret) : secret)

const hmac = (rawBody: Uint8Array | string, secret: string | Redacted.Redacted<string>): Buffer =>
  createHmac("sha256", reveal(secret)).update(rawBody).digest()

/**
 * The `X-Hub-Signature-256` header value for `rawBody` signed with `secret`
 * (`sha256=` followed by 64 lower-case hex digits), as the operator would send it.
 */
export const signPayload = (rawBody: Uint8Array | string, secret: string | Redacted.Redacted<string>): string =>
  `sha256=${hmac(rawBody, secret).toString("hex")}`

/** The 32 digest bytes a `sha256=<hex>` header carries, or undefined when the header is missing or malformed. */
export const parseSignatureHeader = (header: string | undefined): Buffer | undefined => {
  if (header === undefined) return undefined
  const match = HEADER.exec(header.trim())
  return match === null ? undefined : Buffer.from(match[1], "hex")
}

/** Whether `header` is the signature of exactly these bytes under `secret`. Constant-time in the digest. */
export const verifySignature = (rawBody: Uint8Array | string, header: string | undefined, secret: string | Redacted.Redacted<string>): boolean => {
  const given = parseSignatureHeader(header)
  if (given === undefined) return false
  const expected = hmac(rawBody, secret)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/**
 * Which of the named secrets signed `rawBody`, trying them in the order given; undefined when
 * none did or the header is missing or malformed. Every secret is tried, so the time taken
 * does not say which one matched.
 */
export const matchSignature = <K extends string>(
  rawBody: Uint8Array | string,
  header: string | undefined,
  secrets: ReadonlyArray<readonly [K, string | Redacted.Redacted<string>]>
): K | undefined => {
  const given = parseSignatureHeader(header)
  if (given === undefined) return undefined
  let found: K | undefined
  for (const [kind, secret] of secrets) {
    const expected = hmac(rawBody, secret)
    if (timingSafeEqual(given, expected) && found === undefined) found = kind
  }
  return found
}

/**
 * Constant-time equality of two strings of any lengths: both are hashed with SHA-256 first, so
 * the comparison runs on equal-length buffers and leaks neither content nor length.
 */
export const secretEquals = (given: string, expected: string | Redacted.Redacted<string>): boolean => {
  const a = createHash("sha256").update(given, "utf8").digest()
  const b = createHash("sha256").update(reveal(expected), "utf8").digest()
  return timingSafeEqual(a, b)
}

/** The subscription handshake (`hub.mode`, `hub.verify_token`): mode `subscribe` and our verify token. */
export const verifyHandshake = (mode: string | undefined, token: string | undefined, verifyToken: string | Redacted.Redacted<string>): boolean => {
  if (token === undefined) return false
  const tokenOk = secretEquals(token, verifyToken)
  return mode === "subscribe" && tokenOk
}
