/**
 * The cryptography flows need, as a port (the domain imports only `effect`): HMAC signatures
 * of preview links with the server's secret. Implemented with `node:crypto` in
 * `@switchboard/http` (`flows/FlowCryptoLive.ts`).
 */
import { Context } from "effect"

export class FlowCrypto extends Context.Tag("@switchboard/domain/FlowCrypto")<
  FlowCrypto,
  {
    /** HMAC-SHA256 of `data` with the server's secret, base64url. */
    readonly sign: (data: string) => string
    /** Whether `signature` is `sign(data)`, compared in constant time. */
    readonly verify: (data: string, signature: string) => boolean
  }
>() {}
