/**
 * The domain's `FlowCrypto` with `node:crypto`: the operator's side of a flow's data
 * endpoint (its requests decrypted and its replies encrypted as GRAPH_API.md §5.5 says),
 * beside the operator's webhook verifier, and the server's own signatures (preview links,
 * sealed keys). The server's secret is `SWITCHBOARD_FLOW_SECRET`; without it, a random
 * secret per process (preview links and sealed keys then hold only on the process that made
 * them, until it restarts). `OperatorClient.layer` provides it. The call to the caller's
 * endpoint (`CallerEndpoint`) is `@switchboard/outbound`'s, under the guard of every call to
 * a caller's URL.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
  randomBytes,
  timingSafeEqual
} from "node:crypto"
import { FlowCrypto } from "@switchboard/domain"
import { Config, Effect, Layer, Option } from "effect"

export const make = (secret: string): FlowCrypto.FlowCrypto["Type"] => {
  /** Parsed private keys by PEM: parsing one costs several times the RSA decryption itself. */
  const parsed = new Map<string, KeyObject>()
  /** Sealed keys already opened (a tenant's key is opened on each of its endpoint's requests). */
  const opened = new Map<string, string>()
  const privateKeyOf = (pem: string): KeyObject => {
    let key = parsed.get(pem)
    if (key === undefined) {
      key = createPrivateKey(pem)
      if (parsed.size >= 1000) parsed.delete(parsed.keys().next().value!)
      parsed.set(pem, key)
    }
    return key
  }
  const sign = (data: string) => createHmac("sha256", secret).update(data).digest("base64url")
  const sealKey = createHash("sha256").update(`seal:${secret}`).digest()
  return FlowCrypto.FlowCrypto.of({
    sign,
    verify: (data, signature) => {
      const expected = Buffer.from(sign(data))
      const given = Buffer.from(signature)
      return expected.length === given.length && timingSafeEqual(expected, given)
    },
    generateKeyPair: Effect.sync(() => {
      const pair = generateKeyPairSync("rsa", {
        modulusLength: 2048,
        publicKeyEncoding: { type: "spki", format: "pem" },
        privateKeyEncoding: { type: "pkcs8", format: "pem" }
      })
      return { publicKey: pair.publicKey, privateKey: pair.privateKey }
    }),
    seal: (plain) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", sealKey, iv)
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64")
    },
    open: (sealed) => {
      const known = opened.get(sealed)
      if (known !== undefined) return Option.some(known)
      try {
        const raw = Buffer.from(sealed, "base64")
        const decipher = createDecipheriv("aes-256-gcm", sealKey, raw.subarray(0, 12))
        decipher.setAuthTag(raw.subarray(12, 28))
        const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")
        if (opened.size >= 1000) opened.delete(opened.keys().next().value!)
        opened.set(sealed, plain)
        return Option.some(plain)
      } catch {
        return Option.none()
      }
    },
    decrypt: (privateKeyPem, request) => {
      try {
        const aesKey = privateDecrypt(
          { key: privateKeyOf(privateKeyPem), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
          Buffer.from(request.encrypted_aes_key, "base64")
        )
        const iv = Buffer.from(request.initial_vector, "base64")
        const data = Buffer.from(request.encrypted_flow_data, "base64")
        const decipher = createDecipheriv(`aes-${aesKey.length * 8}-gcm` as "aes-128-gcm", aesKey, iv)
        decipher.setAuthTag(data.subarray(data.length - 16))
        const plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8")
        return Option.some({ payload: JSON.parse(plain) as unknown, aesKey, iv })
      } catch {
        return Option.none()
      }
    },
    encrypt: (decrypted, reply) => {
      const flipped = Buffer.from(decrypted.iv.map((b) => ~b & 0xff))
      const cipher = createCipheriv(`aes-${decrypted.aesKey.length * 8}-gcm` as "aes-128-gcm", decrypted.aesKey, flipped)
      return Buffer.concat([cipher.update(JSON.stringify(reply), "utf8"), cipher.final(), cipher.getAuthTag()]).toString("base64")
    }
  })
}

export const layer = Layer.effect(
  FlowCrypto.FlowCrypto,
  Effect.map(Config.string("SWITCHBOARD_FLOW_SECRET").pipe(Config.option, Effect.orElseSucceed(Option.none)), (secret) =>
    make(Option.getOrElse(secret, () => randomBytes(32).toString("hex")))
  )
)
