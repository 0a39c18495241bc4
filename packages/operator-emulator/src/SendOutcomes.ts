/**
 * What becomes of an accepted send: the deterministic delivery outcomes of the sandbox (the
 * README's sandbox outcomes, by the recipient number's ending) and the status webhooks that
 * tell them, with the per-message pricing of a successful status (GRAPH_API.md §2.7).
 * `Messaging.ts` schedules them.
 */
import { ErrorCode, errorDocsUrl } from "./GraphError.js"

/** `pricing` of a successful status (per-message pricing, §2.7). */
export const pricingOf = (category: string, windowOpen: boolean) => {
  if (category === "marketing" || category === "authentication") {
    return { billable: true, pricing_model: "PMP", type: "regular", category }
  }
  if (category === "utility" && !windowOpen) return { billable: true, pricing_model: "PMP", type: "regular", category }
  return { billable: false, pricing_model: "PMP", type: "free_customer_service", category }
}

export type Pricing = ReturnType<typeof pricingOf>

export type Step =
  | { readonly status: "sent" | "delivered" | "read" }
  | { readonly status: "failed"; readonly code: number; readonly title: string; readonly details: string }

const failed = (code: number, title: string, details: string): ReadonlyArray<Step> => [{ status: "failed", code, title, details }]

/**
 * The deterministic outcome of a send by the recipient number's ending:
 * `0000` fails as undeliverable (131026); `0001` is sent and delivered, never read;
 * `0002` fails because the user stopped marketing messages (131050); `0006` fails with
 * the operator's temporary error (131000, "Something went wrong", which a sender may retry)
 * on every send; anything else is sent, delivered and read.
 */
export const outcomeFor = (waId: string): ReadonlyArray<Step> => {
  if (waId.endsWith("0000")) return failed(ErrorCode.UNDELIVERABLE, "Message undeliverable", "Message Undeliverable.")
  if (waId.endsWith("0002")) {
    return failed(
      ErrorCode.USER_STOPPED_MARKETING,
      "User has stopped marketing messages",
      "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business."
    )
  }
  if (waId.endsWith("0006")) {
    return failed(
      ErrorCode.SOMETHING_WENT_WRONG,
      "Something went wrong",
      "Message failed to send because of an unknown error. Please try again later."
    )
  }
  if (waId.endsWith("0001")) return [{ status: "sent" }, { status: "delivered" }]
  return [{ status: "sent" }, { status: "delivered" }, { status: "read" }]
}

/** The status webhook's entry of one step of a message's outcome, dated `now` (epoch ms). */
export const statusOf = (
  message: { readonly id: string; readonly to: string; readonly biz_opaque_callback_data?: string },
  step: Step,
  pricing: Pricing,
  now: number
): Record<string, unknown> => {
  const status: Record<string, unknown> = {
    id: message.id,
    status: step.status,
    timestamp: String(Math.floor(now / 1000)),
    recipient_id: message.to
  }
  if (message.biz_opaque_callback_data !== undefined) status.biz_opaque_callback_data = message.biz_opaque_callback_data
  if (step.status === "failed") {
    status.errors = [{ code: step.code, title: step.title, message: step.title, error_data: { details: step.details }, href: errorDocsUrl }]
  } else {
    status.pricing = pricing
  }
  return status
}
