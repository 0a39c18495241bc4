/**
 * The commerce order write edges (GRAPH_API.md §7.3, Appendix B.7), on the books of
 * `Orders.ts`: `POST /{ORDER_ID}/acknowledge_order | refunds | cancellations | shipments |
 * update_shipment`, each `{ success: true }` and idempotent by `idempotency_key` (required,
 * code 100 without it). Control `GET /_emulator/orders?ref=<wamid>` shows a book (tests
 * compare its refundable figure with ours).
 */
import { GraphErrors } from "../GraphError.js"
import { booksOf, hundredths, type OrderBook, refundable, unshipped } from "../Orders.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"
import { ControlError } from "../Requests.js"

const bodyOf = (request: GraphRequest): Record<string, unknown> => {
  const body = request.body()
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
}

/** Runs `apply` once per (order, edge, idempotency key); an unknown order is accepted unchecked. */
const write = (edge: string, apply: (book: OrderBook, body: Record<string, unknown>) => void) => (ctx: EmulatorContext, request: GraphRequest) => {
  const body = bodyOf(request)
  const key = body.idempotency_key
  if (typeof key !== "string" || key.length === 0) throw GraphErrors.invalidParameter("The parameter idempotency_key is required.")
  const book = booksOf(ctx).get(request.params.orderId)
  if (book === undefined || book.keys.has(`${edge}:${key}`)) return ok({ success: true })
  apply(book, body)
  book.keys.add(`${edge}:${key}`)
  return ok({ success: true })
}

const itemsOf = (body: Record<string, unknown>): Array<Record<string, unknown>> =>
  Array.isArray(body.items) ? body.items.filter((i): i is Record<string, unknown> => typeof i === "object" && i !== null) : []

const lineOf = (book: OrderBook, item: Record<string, unknown>) => {
  const line = book.lines.get(String(item.retailer_id))
  if (line === undefined) throw GraphErrors.invalidParameter(`The item ${String(item.retailer_id)} is not in the order.`)
  return line
}

/** Checks every item's quantity against what is unshipped, then applies `take`. */
const unshippedItems = (
  book: OrderBook,
  items: Array<Record<string, unknown>>,
  take: (line: OrderBook["lines"] extends Map<string, infer L> ? L : never, q: number) => void
) => {
  const checked = items.map((item) => {
    const line = lineOf(book, item)
    const quantity = Number(item.quantity)
    if (!Number.isInteger(quantity) || quantity <= 0 || quantity > unshipped(line)) {
      throw GraphErrors.invalidParameter(`The quantity of ${String(item.retailer_id)} is more than its unshipped quantity.`)
    }
    return [line, quantity] as const
  })
  for (const [line, quantity] of checked) take(line, quantity)
}

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:orderId/acknowledge_order",
    handle: write("acknowledge", (book) => {
      if (book.acknowledged) throw GraphErrors.invalidParameter("The order was already acknowledged.")
      book.acknowledged = true
    })
  },
  {
    method: "POST",
    path: "/:orderId/refunds",
    handle: write("refunds", (book, body) => {
      const items = itemsOf(body).reduce((sum, i) => sum + hundredths(i.item_refund_amount), 0)
      const shipping =
        typeof body.shipping === "object" && body.shipping !== null ? hundredths((body.shipping as Record<string, unknown>).shipping_refund) : 0
      const adjustment = body.adjustment_amount === undefined ? 0 : hundredths(body.adjustment_amount)
      const amount = items + shipping + adjustment
      if (!Number.isFinite(amount) || amount <= 0) throw GraphErrors.invalidParameter("The refund names no amount.")
      if (amount > refundable(book)) throw GraphErrors.invalidParameter("The refund amount exceeds the refundable amount of the order.")
      book.refunded += amount
    })
  },
  {
    method: "POST",
    path: "/:orderId/cancellations",
    handle: write("cancellations", (book, body) => {
      const items = itemsOf(body)
      const named =
        items.length > 0
          ? items
          : [...book.lines].map(([rid, line]) => ({ retailer_id: rid, quantity: unshipped(line) })).filter((i) => i.quantity > 0)
      let value = 0
      unshippedItems(book, named, (line, q) => {
        line.cancelled += q
        value += line.price * q
      })
      book.refunded += Math.min(value, refundable(book))
    })
  },
  {
    method: "POST",
    path: "/:orderId/shipments",
    handle: write("shipments", (book, body) => {
      const tracking = body.tracking_info as Record<string, unknown> | undefined
      if (typeof tracking?.carrier !== "string" || typeof tracking?.tracking_number !== "string") {
        throw GraphErrors.invalidParameter("tracking_info with carrier and tracking_number is required.")
      }
      unshippedItems(book, itemsOf(body), (line, q) => {
        line.shipped += q
      })
    })
  },
  {
    method: "POST",
    path: "/:orderId/update_shipment",
    handle: write("update_shipment", (_book, body) => {
      if (typeof body.tracking_info !== "object" || body.tracking_info === null) throw GraphErrors.invalidParameter("tracking_info is required.")
    })
  }
]

export const controlEdges: ReadonlyArray<ControlEdge> = [
  {
    method: "GET",
    path: "/orders",
    handle: (ctx, request) => {
      const ref = request.query.get("ref") ?? ""
      const book = booksOf(ctx).get(ref)
      if (book === undefined) throw new ControlError(404, `no order ${ref}`)
      return ok({
        ref,
        currency: book.currency,
        captured: book.captured,
        refunded: book.refunded,
        refundable: refundable(book),
        acknowledged: book.acknowledged,
        lines: Object.fromEntries([...book.lines].map(([rid, l]) => [rid, { ...l }]))
      })
    }
  }
]
