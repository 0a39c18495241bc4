/**
 * The operator's side of a flow's data exchange (GRAPH_API.md §5.5), as the WhatsApp client
 * does it while a customer fills in an endpoint-backed flow: the request
 * `{version, action, screen?, data?, flow_token?}` is encrypted with a fresh AES-128-GCM key
 * and a 16-byte IV, the key sealed with the phone number's registered business public key
 * (RSA-OAEP, SHA-256), and POSTed as `{encrypted_flow_data, encrypted_aes_key,
 * initial_vector}` to the flow's `endpoint_uri`, signed with `X-Hub-Signature-256` (HMAC-SHA256
 * of the body with the app secret, as webhooks are). A 200 answer is decrypted with the same
 * key and the bit-inverted IV; any other status is reported with its body.
 *
 * Control API: `POST /_emulator/flows/data-exchange` with `phone_number_id`, `flow_id`,
 * `action` (`ping`, `INIT`, `BACK`, `data_exchange`, `navigate`), and optionally `screen`,
 * `data`, `flow_token`, `version`, `signature` (`valid` | `invalid` | `none`, a fault knob).
 */
import { constants, createCipheriv, createDecipheriv, publicEncrypt, randomBytes } from "node:crypto"
import * as http from "node:http"
import * as https from "node:https"
import { ControlError, optionalString, requiredString } from "./Requests.js"
import type { ControlEdge, EmulatorContext } from "./Router.js"
import { ok } from "./Router.js"
import { type SignatureMode, signWebhook } from "./Webhooks.js"

export const ACTIONS = ["ping", "INIT", "BACK", "data_exchange", "navigate"] as const

/** The business endpoint did not answer in time (the operator's own limit is not documented; 10 s here). */
export const EXCHANGE_TIMEOUT_MS = 10_000

/** Encrypts a request with `publicKey`; answers the body to POST and how to decrypt the reply. */
export const encryptRequest = (publicKey: string, payload: unknown) => {
  const aesKey = randomBytes(16)
  const iv = randomBytes(16)
  const cipher = createCipheriv("aes-128-gcm", aesKey, iv)
  const data = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final(), cipher.getAuthTag()])
  const body = {
    encrypted_flow_data: data.toString("base64"),
    encrypted_aes_key: publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, aesKey).toString("base64"),
    initial_vector: iv.toString("base64")
  }
  /** The reply: base64 of ciphertext and tag, AES-GCM with the same key and the inverted IV. */
  const decrypt = (text: string): unknown => {
    const raw = Buffer.from(text.trim(), "base64")
    const decipher = createDecipheriv("aes-128-gcm", aesKey, Buffer.from(iv.map((b) => ~b & 0xff)))
    decipher.setAuthTag(raw.subarray(raw.length - 16))
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString("utf8"))
  }
  return { body, decrypt }
}

/** One POST to a flow endpoint; resolves with its status and body text. */
const post = (url: string, body: string, headers: http.OutgoingHttpHeaders): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const request = target.protocol === "https:" ? https.request : http.request
    const req = request(
      target,
      { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, timeout: EXCHANGE_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8").slice(0, 65_536) }))
        res.on("error", reject)
      }
    )
    req.on("timeout", () => req.destroy(new Error(`the flow endpoint did not answer within ${EXCHANGE_TIMEOUT_MS} ms`)))
    req.on("error", reject)
    req.end(body)
  })

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Calls a flow's endpoint as the operator does; answers what the client saw. */
const exchange = async (ctx: EmulatorContext, body: Record<string, unknown>) => {
  const phoneNumberId = requiredString(body, "phone_number_id")
  const phone = ctx.accounts.phoneNumber(phoneNumberId)
  if (phone === undefined) throw new ControlError(404, `phone number ${phoneNumberId} is not registered (POST /_emulator/accounts)`)
  const flowId = requiredString(body, "flow_id")
  const flow = ctx.flows.get(flowId)
  if (flow === undefined || flow.wabaId !== phone.wabaId) throw new ControlError(404, `no flow ${flowId} in the WABA of ${phoneNumberId}`)
  if (flow.status === "BLOCKED" || flow.status === "DEPRECATED") throw new ControlError(409, `flow ${flowId} is ${flow.status}: it cannot be opened`)
  if (flow.endpointUri === undefined) throw new ControlError(409, `flow ${flowId} has no endpoint_uri`)
  const publicKey = ctx.flows.key(phoneNumberId)
  if (publicKey === undefined) throw new ControlError(409, `phone number ${phoneNumberId} has no business public key (whatsapp_business_encryption)`)
  const action = requiredString(body, "action")
  if (!(ACTIONS as ReadonlyArray<string>).includes(action)) throw new ControlError(400, `action must be one of ${ACTIONS.join(", ")}`)
  const signature = (optionalString(body, "signature") ?? "valid") as SignatureMode
  if (!["valid", "invalid", "none"].includes(signature)) throw new ControlError(400, "signature must be valid, invalid or none")
  const screen = optionalString(body, "screen")
  const token = optionalString(body, "flow_token")
  const data = body.data
  if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) throw new ControlError(400, "data must be an object")
  const request = {
    version: optionalString(body, "version") ?? "3.0",
    action,
    ...(screen !== undefined ? { screen } : {}),
    ...(data !== undefined ? { data } : {}),
    ...(token !== undefined ? { flow_token: token } : {})
  }
  const encrypted = encryptRequest(publicKey, request)
  const text = JSON.stringify(encrypted.body)
  const headers: http.OutgoingHttpHeaders = { "content-type": "application/json", "user-agent": "facebookexternalua" }
  if (signature === "valid") headers["x-hub-signature-256"] = signWebhook(ctx.appSecret, text)
  if (signature === "invalid") headers["x-hub-signature-256"] = signWebhook(`not-${ctx.appSecret}`, text)
  const started = Date.now()
  let answer: { status: number; body: string }
  try {
    answer = await post(flow.endpointUri, text, headers)
  } catch (error) {
    throw new ControlError(502, `the flow endpoint could not be reached: ${error instanceof Error ? error.message : String(error)}`)
  }
  const latencyMs = Date.now() - started
  if (answer.status !== 200) return ok({ request, status: answer.status, response: null, error: parsed(answer.body), latency_ms: latencyMs })
  try {
    return ok({ request, status: 200, response: encrypted.decrypt(answer.body), error: null, latency_ms: latencyMs })
  } catch {
    return ok({
      request,
      status: 200,
      response: null,
      error: "the reply could not be decrypted with the request's key and the inverted IV",
      latency_ms: latencyMs
    })
  }
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/flows/data-exchange", handle: (ctx, request) => exchange(ctx, request.body()) }
]
