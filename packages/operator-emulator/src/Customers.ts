/**
 * The simulated customers on the other end of a business number: the 24-hour customer
 * service window each opens by writing (GRAPH_API.md §3.1), and the `messages` webhook value
 * of what they send (Appendix A.1).
 */
import type { PhoneNumber } from "./Accounts.js"

/** Length of the customer service window. */
export const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000

/** Last inbound message per (phone number id, user): the customer service windows. */
export class CustomerWindows {
  private readonly lastInbound = new Map<string, number>()

  /** Opens (or resets) the window of this pair at `now`. */
  open(phoneNumberId: string, waId: string, now: number): void {
    this.lastInbound.set(`${phoneNumberId}|${waId}`, now)
  }

  /** Whether the user wrote to this number within the last 24 hours. */
  isOpen(phoneNumberId: string, waId: string, now: number): boolean {
    const at = this.lastInbound.get(`${phoneNumberId}|${waId}`)
    return at !== undefined && now - at < CUSTOMER_WINDOW_MS
  }

  /** The open windows as `{"<phone_number_id>|<wa_id>": lastInboundMs}`. */
  snapshot(now: number): Record<string, number> {
    const open: Record<string, number> = {}
    for (const [key, at] of this.lastInbound) if (now - at < CUSTOMER_WINDOW_MS) open[key] = at
    return open
  }

  restore(snapshot: Record<string, number>): void {
    for (const [key, at] of Object.entries(snapshot)) if (typeof at === "number") this.lastInbound.set(key, at)
  }
}

/** The message a simulated user sends: text, or a raw message object (order, interactive, ...). */
export interface InboundMessage {
  readonly text?: string
  readonly message?: Record<string, unknown>
}

/**
 * The `messages` webhook value of an inbound message (Appendix A.1): contacts with the profile
 * name, and the message with `from`, `id` and `timestamp` filled in.
 */
export const inboundValue = (
  phone: PhoneNumber,
  from: string,
  profileName: string,
  inbound: InboundMessage,
  id: string,
  now: number
): Record<string, unknown> => {
  const base = { from, id, timestamp: String(Math.floor(now / 1000)) }
  const message = inbound.message !== undefined ? { ...inbound.message, ...base } : { ...base, type: "text", text: { body: inbound.text ?? "" } }
  return {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: phone.displayPhoneNumber, phone_number_id: phone.id },
    contacts: [{ profile: { name: profileName }, wa_id: from }],
    messages: [message]
  }
}
