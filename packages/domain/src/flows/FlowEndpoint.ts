/**
 * The data endpoint we host (issue 15 item 7, GRAPH_API.md §5.5). `PUT /chat/flows/{id}/endpoint`
 * takes the caller's URL (checked by the SSRF guard); the tenant's RSA key pair is made once
 * (its public key registered with the operator, its private key sealed with the server's
 * secret) and the operator is given our own URL, `/chat/flow-endpoint/{id}`, which:
 *
 * - checks the request's `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app
 *   secret of the flow's account kind, as the operator signs webhooks): 432 when it is
 *   missing or wrong;
 * - decrypts the operator's request (421 when it cannot);
 * - answers `ping` itself once the caller's URL passes the SSRF guard;
 * - answers 427 for a `flow_token` that no flow message of ours carried;
 * - forwards `INIT`, `BACK`, `data_exchange` and `navigate` to the caller's URL as plain JSON,
 *   signed as caller webhooks are (with the flow's `endpoint_secret`);
 * - checks the caller's reply (the screen exists, its data is declared by that screen);
 * - encrypts the reply with the inverted IV.
 *
 * Every request is recorded (action, status, latency, error) for the stats.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { OperatorWebhookVerifier } from "../operator/OperatorWebhookVerifier.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { OperatorAccount } from "../stores/Store.js"
import { checkCallerUrl, WebhookTransport } from "../webhooks/WebhookTransport.js"
import * as Flow from "./Flow.js"
import { CallerEndpoint, type EncryptedRequest, FlowCrypto, secretOf } from "./FlowCrypto.js"
import { FlowEndpointRepo } from "./FlowEndpointRepo.js"
import { isObject } from "./FlowJson.js"
import * as FlowMirrors from "./FlowMirrors.js"
import * as Mirror from "../shared/Mirror.js"
import { FlowResponseRepo } from "./FlowResponseRepo.js"
import { caller, lookup } from "./Flows.js"

export const EndpointRequest = Schema.Struct({
  encrypted_flow_data: Schema.String,
  encrypted_aes_key: Schema.String,
  initial_vector: Schema.String
}).annotations({ identifier: "FlowEndpointRequest" })

/** The answer of `PUT /chat/flows/{id}/endpoint`: the flow, our URL given to the operator, and the secret our forwards are signed with. */
export const PutEndpointResult = Schema.Struct({
  ...Flow.FlowResource.fields,
  hosted_endpoint_url: Schema.NullOr(Schema.String),
  endpoint_secret: Schema.NullOr(Schema.String)
}).annotations({ identifier: "FlowEndpointPut" })

/**
 * The tenant's key pair, made once and stored (the first saved wins a race), and registered
 * with the operator as a mirrored write (`FlowMirrors.encryptionKey`): on every endpoint
 * change, so a registration a crash or a refusal lost is made again.
 */
const ensureKey = (tenant: Tenant, account: OperatorAccount) =>
  Effect.gen(function* () {
    const repo = yield* FlowEndpointRepo
    const crypto = yield* FlowCrypto
    // made outside the transaction (an RSA key takes a while); stored in it unless one is there
    const made = Option.isSome(yield* repo.findKey(tenant)) ? undefined : yield* crypto.generateKeyPair
    const createdAt = yield* Time.now
    const prepare = Effect.gen(function* () {
      const found = yield* repo.findKey(tenant)
      if (Option.isSome(found)) return { publicKey: found.value.publicKey }
      const pair = made ?? (yield* crypto.generateKeyPair)
      const key = yield* repo.saveKey(tenant, {
        phoneNumberId: account.phoneNumberId,
        publicKey: pair.publicKey,
        privateKey: crypto.seal(pair.privateKey),
        createdAt
      })
      return { publicKey: key.publicKey }
    })
    yield* Mirror.run(FlowMirrors.encryptionKey, { tenant, account, prepare })
  })

/** `PUT /chat/flows/{id}/endpoint`: a DRAFT's endpoint (`url: null` removes it). */
export const putEndpoint = (id: string, input: typeof Flow.PutEndpoint.Type, baseUrl: string) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    if (flow.status !== "DRAFT")
      return yield* Effect.fail(Flow.transition(flow.status, "update").pipe((e) => (e._tag === "Left" ? e.left : undefined))!)
    const set = (endpointUri: string | null, endpointUrl: string | null) =>
      Mirror.run(FlowMirrors.endpoint, {
        tenant,
        account,
        prepare: Effect.succeed({ id: flow.id, operatorFlowId: flow.operatorFlowId, endpointUri, endpointUrl })
      })
    if (input.url === null) return { ...(yield* set(null, null)), hosted_endpoint_url: null, endpoint_secret: null }
    const url = input.url
    yield* checkCallerUrl("url", url)
    yield* ensureKey(tenant, account)
    const hosted = `${baseUrl.replace(/\/$/, "")}/chat/flow-endpoint/${flow.id}`
    const stored = yield* set(hosted, url)
    return { ...stored, hosted_endpoint_url: hosted, endpoint_secret: secretOf(yield* FlowCrypto, flow.id) }
  })

/** What the hosted endpoint answers the operator. */
export interface EndpointAnswer {
  readonly status: number
  readonly body: string
}

/** A refusal, in the API's error envelope (427 also carries the operator's `error_msg`). */
const refusal = (status: number, code: string, message: string): EndpointAnswer => ({
  status,
  body: JSON.stringify({ ...(status === 427 ? { error_msg: message } : {}), error: { code, message } })
})

/** How many Flow JSON texts `Screens` keeps parsed (the oldest goes first). */
const SCREENS_KEPT = 100

/**
 * The screens of a Flow JSON, kept parsed for the last flows seen (the endpoint checks a
 * reply against them on every request), for the server that provides it (`layerScreens`:
 * two servers in one process, or two tests, share nothing).
 */
export class Screens extends Context.Tag("@switchboard/domain/FlowScreens")<
  Screens,
  { readonly of: (flowJson: string | null) => ReadonlyArray<Record<string, unknown>> }
>() {}

/** The screens of a Flow JSON text (none when it is not JSON or has no screens). */
export const parseScreens = (flowJson: string | null): ReadonlyArray<Record<string, unknown>> => {
  if (flowJson === null) return []
  try {
    const doc = JSON.parse(flowJson)
    return isObject(doc) && Array.isArray(doc.screens) ? doc.screens.filter(isObject) : []
  } catch {
    return []
  }
}

/** A fresh `Screens`, keeping nothing yet. */
export const layerScreens: Layer.Layer<Screens> = Layer.sync(Screens, () => {
  const parsed = new Map<string, ReadonlyArray<Record<string, unknown>>>()
  return {
    of: (flowJson) => {
      if (flowJson === null) return []
      const known = parsed.get(flowJson)
      if (known !== undefined) return known
      const screens = parseScreens(flowJson)
      if (parsed.size >= SCREENS_KEPT) parsed.delete(parsed.keys().next().value!)
      parsed.set(flowJson, screens)
      return screens
    }
  }
})

/** Whether the caller's reply names one of the flow's `screens` (or SUCCESS) with data that screen declares. */
export const checkReply = (screens: ReadonlyArray<Record<string, unknown>>, reply: unknown): string | undefined => {
  if (!isObject(reply) || typeof reply.screen !== "string") return "the reply must be an object with a screen"
  if (reply.data !== undefined && !isObject(reply.data)) return "the reply's data must be an object"
  if (reply.screen === "SUCCESS") return undefined
  const screen = screens.find((s) => s.id === reply.screen)
  if (screen === undefined) return `the reply names a screen the flow does not have: ${reply.screen}`
  const declared = isObject(screen.data) ? screen.data : {}
  const extra = Object.keys(isObject(reply.data) ? reply.data : {}).filter((k) => !(k in declared) && k !== "error_message")
  return extra.length === 0 ? undefined : `the reply's data is not declared by screen ${reply.screen}: ${extra.join(", ")}`
}

/**
 * `POST /chat/flow-endpoint/{id}`: one operator request (its raw body signed as `signature`
 * says), answered and recorded. The flow, its caller's URL and Flow JSON and its tenant's key
 * are one read (`FlowEndpointRepo.target`); the private key is opened and parsed once per
 * process (`FlowCrypto`), so only the decryption, the caller's round trip and the encryption cost.
 */
export const handle = (flowId: string, request: EncryptedRequest, rawBody: Uint8Array, signature: string | undefined) =>
  Effect.gen(function* () {
    const started = yield* Time.now
    const endpoints = yield* FlowEndpointRepo
    const found = Flow.FlowId.is(flowId) ? yield* endpoints.target(flowId) : Option.none()
    if (Option.isNone(found)) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "flow", id: flowId }))
    const flow = found.value
    const tenant = flow.tenant
    const crypto = yield* FlowCrypto
    const record = (action: string, answer: EndpointAnswer, error: string | null) =>
      Effect.gen(function* () {
        yield* endpoints.recordCall(tenant, {
          id: yield* Id.generate("fec"),
          flowId: flow.flowId,
          action,
          httpStatus: answer.status,
          ok: error === null,
          latencyMs: (yield* Time.now) - started,
          error,
          at: started
        })
        return answer
      })
    const signedBy = yield* (yield* OperatorWebhookVerifier).verifySignature(rawBody, signature)
    if (signedBy !== (tenant.mode === "live" ? "live" : "sandbox")) {
      const reason = "the request signature (X-Hub-Signature-256) is missing or wrong"
      return yield* record("unknown", refusal(432, "signature_invalid", reason), reason)
    }
    const privateKey = flow.privateKey === null ? Option.none() : crypto.open(flow.privateKey)
    const decrypted = Option.flatMap(privateKey, (pk) => crypto.decrypt(pk, request))
    if (Option.isNone(decrypted))
      return yield* record("unknown", refusal(421, "cannot_decrypt", "the request could not be decrypted"), "the request could not be decrypted")
    const payload = isObject(decrypted.value.payload) ? decrypted.value.payload : {}
    const action = typeof payload.action === "string" ? payload.action : "unknown"
    const url = flow.endpointUrl
    if (url === null) return yield* record(action, refusal(500, "endpoint_failed", "the flow has no endpoint URL"), "the flow has no endpoint URL")
    const reply = (body: unknown) => ({ status: 200, body: crypto.encrypt(decrypted.value, body) })
    const failed = (reason: string) => record(action, refusal(500, "endpoint_failed", reason), reason)
    const transport = yield* WebhookTransport
    if (action === "ping") {
      const checked = yield* Effect.either(transport.checkUrl(url))
      return checked._tag === "Right"
        ? yield* record(action, reply({ data: { status: "active" } }), null)
        : yield* failed(`the endpoint URL is refused: ${checked.left.reason}`)
    }
    const token = typeof payload.flow_token === "string" ? payload.flow_token : ""
    const send = yield* (yield* FlowResponseRepo).sendByToken(tenant, token)
    if (Option.isNone(send) || send.value.flowId !== flow.flowId) {
      return yield* record(action, refusal(427, "flow_token_invalid", "This flow token is no longer valid."), "unknown flow token")
    }
    const guard = yield* Effect.either(transport.checkUrl(url))
    if (guard._tag === "Left") return yield* failed(`the endpoint URL is refused: ${guard.left.reason}`)
    const answer = yield* Effect.either((yield* CallerEndpoint).exchange(url, secretOf(crypto, flow.flowId), { ...payload, flow_id: flow.flowId }))
    if (answer._tag === "Left") return yield* failed(`the endpoint did not answer: ${answer.left}`)
    if (answer.right.status < 200 || answer.right.status > 299) {
      return yield* failed(`the endpoint answered HTTP ${answer.right.status}`)
    }
    let body: unknown
    try {
      body = JSON.parse(answer.right.body)
    } catch {
      return yield* failed("the endpoint's answer is not JSON")
    }
    const problem = checkReply((yield* Screens).of(flow.json), body)
    if (problem !== undefined) return yield* failed(problem)
    return yield* record(action, reply(body), null)
  })
