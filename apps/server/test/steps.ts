/**
 * Steps the end-to-end tests take the same way against `harness.ts`'s server: a template
 * approved through the API, a server killed between the steps of a mirrored write.
 */
import { expect } from "vitest"
import { eventually, type Harness } from "./harness.js"

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
