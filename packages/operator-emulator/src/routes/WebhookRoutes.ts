/**
 * Webhooks: the control API's `POST /webhook` posts an arbitrary payload to the business's
 * webhook URL, signed as asked (valid, invalid or none), and reports the receiver's answer.
 * Signing and delivery with retries live in `Webhooks.ts`.
 */
import { ControlError } from "../Requests.js"
import type { Answer, ControlEdge, EmulatorContext } from "../Router.js"
import type { SignatureMode } from "../Webhooks.js"

const forward = async (ctx: EmulatorContext, body: Record<string, unknown>): Promise<Answer> => {
  const payload = body.payload
  if (typeof payload !== "object" || payload === null) throw new ControlError(400, "payload must be an object")
  const mode = (body.signature ?? "valid") as SignatureMode
  if (mode !== "valid" && mode !== "invalid" && mode !== "none") throw new ControlError(400, "signature must be valid, invalid or none")
  try {
    const result = await ctx.webhooks.post(JSON.stringify(payload), mode)
    return {
      status: 200,
      body: { delivered: result.status >= 200 && result.status < 300, status: result.status, body: result.body }
    }
  } catch (error) {
    return { status: 502, body: { delivered: false, status: null, error: error instanceof Error ? error.message : String(error) } }
  }
}

export const controlEdges: ReadonlyArray<ControlEdge> = [{ method: "POST", path: "/webhook", handle: (ctx, request) => forward(ctx, request.body()) }]
