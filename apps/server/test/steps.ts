/**
 * Steps the end-to-end tests take the same way against `harness.ts`'s server: a template
 * approved through the API, a server killed between the steps of a mirrored write.
 */
import { Webhook } from "standardwebhooks"
import { existsSync, readFileSync } from "node:fs"
import { expect } from "vitest"
import type { Forwarded } from "./fixtures/flowEndpoint.js"
import { eventually, type Harness, startReceiver } from "./harness.js"

/** An HTTP API call answering status, text and JSON (the harness's `request`, or a test's own). */
export type Request = (
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers?: Record<string, string>
) => Promise<{ status: number; text: string; json: any }>

/**
 * Creates the MARKETING template `name` (one body placeholder, as campaigns fill it) and
 * waits, syncing, until the store lists it APPROVED.
 */
export const approvedTemplate = async (
  request: Request,
  key: string,
  name: string,
  options: { readonly headers?: Record<string, string>; readonly timeoutMs?: number } = {}
): Promise<void> => {
  const template = await request(
    "POST",
    "/chat/templates",
    key,
    {
      templateData: {
        name,
        category: "MARKETING",
        language: "en_US",
        components: [{ type: "BODY", text: "Hello {{1}}, our sale starts today.", example: { body_text: [["Ann"]] } }]
      }
    },
    options.headers
  )
  expect(template.status, template.text).toBe(201)
  await eventually(
    async () => {
      await request("POST", "/chat/templates/sync", key)
      const list = await request("GET", "/chat/templates?status=APPROVED", key)
      return list.json?.data?.some((t: { name: string }) => t.name === name)
    },
    "template approved",
    options.timeoutMs ?? 20_000
  )
}

/**
 * Restarts the server set to halt at `halt` (`SWITCHBOARD_TEST_MIRROR_HALT`), sends `request`,
 * waits for the halt (and for `taken`, the operator's state showing the call, when given),
 * kills the server there and starts it again without the halt; the request's connection was lost.
 */
export const crashAt = async (
  h: Harness,
  halt: string,
  request: () => Promise<unknown>,
  options: { readonly haltTimeoutMs?: number; readonly taken?: () => boolean } = {}
): Promise<void> => {
  await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: halt })
  const answered = request().catch(() => "connection lost")
  await eventually(async () => h.stderr().includes(`mirror halted at ${halt}`), "the server halts between the steps", options.haltTimeoutMs ?? 20_000)
  const taken = options.taken
  if (taken) await eventually(async () => taken(), "the operator's state shows the call", 5_000)
  await h.restart({ SWITCHBOARD_TEST_MIRROR_HALT: "" })
  expect(await answered).toBe("connection lost")
}

/** The flow token of a "Book" flow message of `flowId` sent to `customer`, who writes first (the customer window). */
export const bookingFlowToken = async (h: Harness, key: string, flowId: string, customer: string): Promise<string> => {
  await h.request("POST", "/chat/sandbox/inbound-messages", key, { from: customer, text: "hi" })
  const sent = await h.request("POST", "/chat/messages", key, { type: "flow", to: customer, flow: { id: flowId, cta: "Book", body: "Book a visit" } })
  return sent.json.flow_token
}

/**
 * The caller's endpoint got START's `data_exchange` of the name "Ana" (with `token` and our
 * `flowId`, and `more`) as plain JSON, signed with the flow's endpoint `secret` (Standard Webhooks).
 */
export const expectForwardedExchange = (forwarded: Forwarded, secret: string, token: string, flowId: string, more: Record<string, unknown> = {}) => {
  expect(JSON.parse(forwarded.body)).toMatchObject({
    ...more,
    action: "data_exchange",
    screen: "START",
    data: { name: "Ana" },
    flow_token: token,
    flow_id: flowId
  })
  expect(() => new Webhook(secret).verify(forwarded.body, forwarded.headers as Record<string, string>)).not.toThrow()
}

/** A local receiver (`startReceiver`) subscribed to `events` of the store of `key`; with the subscription's signing secret. */
export const subscribedReceiver = async (h: Harness, key: string, events: ReadonlyArray<string>) => {
  const receiver = await startReceiver()
  const hook = await h.request("POST", "/chat/webhooks", key, { url: receiver.url, events })
  expect(hook.status, hook.text).toBe(201)
  return { ...receiver, secret: hook.json.secret as string }
}

/** The customer `phone` submits the sign-up flow sent with `token` (email ana@example.com) through the sandbox: accepted, 202. */
export const submittedSignUp = async (h: Harness, key: string, phone: string, token: string): Promise<void> => {
  const submitted = await h.request("POST", "/chat/sandbox/flow-responses", key, { phone, flow_token: token, response: { email: "ana@example.com" } })
  expect(submitted.status).toBe(202)
}

/** GET on the emulator's Graph API as the sandbox token, answered 200 (its JSON). */
export const graphGet = async (emulatorUrl: string, path: string) => {
  const res = await fetch(`${emulatorUrl}/v23.0${path}`, { headers: { authorization: "Bearer sandbox" } })
  const json = (await res.json()) as any
  expect(res.status, JSON.stringify(json)).toBe(200)
  return json
}

/** The business public key the server registered at the emulator (its state file), once it is there. */
export const businessPublicKey = (h: Harness): Promise<string> =>
  eventually(
    async () => {
      if (!existsSync(h.env.SWITCHBOARD_EMULATOR_STATE)) return undefined
      const keys = JSON.parse(readFileSync(h.env.SWITCHBOARD_EMULATOR_STATE, "utf8")).flows?.keys ?? {}
      return Object.values(keys)[0] as string | undefined
    },
    "the emulator has the business public key",
    5_000
  )
