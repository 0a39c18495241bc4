/**
 * The commerce order API's side of the emulator (GRAPH_API.md §7): each sandbox cart is an
 * order named by the cart message's wamid, with its lines, what was captured (the payment
 * the emulator sent), refunded, shipped and cancelled. Amounts are hundredths of the major
 * unit (the cart's `item_price` × 100, as the payment's `value` with offset 100).
 *
 * A refund above captured − refunded is refused with code 100, as the real operator does
 * (§7.5); a cancellation refunds the paid value of what it cancels; a shipment or a
 * cancellation takes at most what is unshipped. Each write is idempotent by its
 * `idempotency_key` per order and edge. An order the emulator does not know (carts posted
 * by hand, or books lost with a restart) is accepted without checks.
 */
import type { EmulatorContext } from "./Router.js"

export interface Line {
  readonly price: number
  readonly quantity: number
  shipped: number
  cancelled: number
}

export interface OrderBook {
  readonly currency: string
  readonly lines: Map<string, Line>
  captured: number
  refunded: number
  acknowledged: boolean
  readonly keys: Set<string>
}

const books = new WeakMap<object, Map<string, OrderBook>>()

/** The books of one emulator. */
export const booksOf = (ctx: EmulatorContext): Map<string, OrderBook> => {
  let found = books.get(ctx.accounts)
  if (found === undefined) {
    found = new Map()
    books.set(ctx.accounts, found)
  }
  return found
}

/** Opens the book of a cart message (its `order` object's product items). */
export const openBook = (ctx: EmulatorContext, ref: string, items: ReadonlyArray<Record<string, unknown>>): OrderBook => {
  const lines = new Map<string, Line>()
  for (const item of items) {
    const rid = String(item.product_retailer_id)
    const prior = lines.get(rid)
    const quantity = Number(item.quantity) + (prior?.quantity ?? 0)
    lines.set(rid, { price: Math.round(Number(item.item_price) * 100), quantity, shipped: 0, cancelled: 0 })
  }
  const book: OrderBook = {
    currency: typeof items[0]?.currency === "string" ? items[0].currency : "USD",
    lines,
    captured: 0,
    refunded: 0,
    acknowledged: false,
    keys: new Set()
  }
  booksOf(ctx).set(ref, book)
  return book
}

/** Hundredths of a decimal amount text (or number); NaN when unreadable. */
export const hundredths = (money: unknown): number => {
  const amount = typeof money === "object" && money !== null ? (money as { amount?: unknown }).amount : undefined
  return Math.round(Number(amount) * 100)
}

export const refundable = (book: OrderBook): number => Math.max(0, book.captured - book.refunded)

export const unshipped = (line: Line): number => Math.max(0, line.quantity - line.shipped - line.cancelled)
