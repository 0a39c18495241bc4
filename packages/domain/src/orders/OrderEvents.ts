/**
 * What the operator's webhooks do to orders (run by the inbox, never by a route):
 *
 * - a customer's `order` message (a cart sent from a catalog, GRAPH_API.md §2.6) becomes an
 *   order of the tenant, once per message: a duplicate delivery, even concurrent, finds the
 *   order it made (unique on the cart message's wamid) and changes nothing;
 * - payment statuses are matched by our payment request's reference (`OrderPayments.ts`).
 *
 * A live number's events are live data, the sandbox number's are test data (as messaging's).
 */
import { Clock, Effect, Option } from "effect"
import * as Id from "../shared/Id.js"
import { parseDecimal, ISO_4217 } from "../shared/Money.js"
import * as Phone from "../shared/Phone.js"
import type { Mode, Tenant } from "../shared/Tenant.js"
import type { Product } from "../commerce/Product.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { CatalogId } from "../commerce/Catalog.js"
import * as Order from "./Order.js"
import * as OrderPayments from "./OrderPayments.js"
import * as OrderMoney from "./OrderMoney.js"
import { OrderRepo } from "./OrderRepo.js"
import { eventData } from "./OrderSupport.js"
import { ProductRepo } from "../commerce/ProductRepo.js"

const modeOf = (kind: AccountKind): Mode => (kind === "live" ? "live" : "test")

const obj = (u: unknown): Record<string, unknown> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : undefined

export interface CartLine {
  readonly retailerId: string
  readonly quantity: number
  readonly unitPrice: number
  readonly currency: string
}

/**
 * The lines of a cart message's `order` object, prices in minor units; a reason when the
 * cart cannot be an order (no items, a bad quantity or price, several currencies).
 */
export const cartLines = (order: Record<string, unknown>): { readonly lines: ReadonlyArray<CartLine> } | { readonly refused: string } => {
  const items = Array.isArray(order.product_items) ? order.product_items : []
  if (items.length === 0) return { refused: "the cart has no product_items" }
  const lines: Array<CartLine> = []
  for (const [i, raw] of items.entries()) {
    const item = obj(raw)
    const retailerId = typeof item?.product_retailer_id === "string" ? item.product_retailer_id : undefined
    const quantity = Number(item?.quantity)
    const currency = typeof item?.currency === "string" ? item.currency.toUpperCase() : ""
    if (!retailerId) return { refused: `product_items[${i}] has no product_retailer_id` }
    if (!Number.isSafeInteger(quantity) || quantity <= 0) return { refused: `product_items[${i}].quantity is not a positive integer` }
    if (!ISO_4217.has(currency)) return { refused: `product_items[${i}].currency is not an ISO 4217 code` }
    const price =
      typeof item?.item_price === "number"
        ? parseDecimal(String(item.item_price), currency)
        : typeof item?.item_price === "string"
          ? parseDecimal(item.item_price, currency)
          : undefined
    if (price === undefined) return { refused: `product_items[${i}].item_price is not an amount of ${currency}` }
    lines.push({ retailerId, quantity, unitPrice: price, currency })
  }
  if (new Set(lines.map((l) => l.currency)).size > 1) return { refused: "the cart mixes currencies; an order has one" }
  return { lines }
}

/** A cart message as the orders module takes it: its tenant, sender, `order` object and lines. */
export interface Cart {
  readonly tenant: Tenant
  readonly event: WebhookEvent.InboundMessage
  readonly phone: Phone.E164
  readonly cart: Record<string, unknown>
  readonly lines: ReadonlyArray<CartLine>
  readonly operatorCatalogId: string
}

/**
 * The cart of an `order` message, or why it cannot be an order (to be logged), or `undefined`
 * for another type: `cartOf` without an effect, for a batch's loop.
 */
export const parseCart = (
  store: Store,
  kind: AccountKind,
  event: WebhookEvent.InboundMessage
): { readonly cart: Cart } | { readonly warning: string } | undefined => {
  if (event.type !== "order") return undefined
  const cart = obj(event.raw.order)
  const phone = Phone.fromWaId(event.from)
  if (cart === undefined || phone === undefined) return { warning: "order message without a cart or a valid sender" }
  const parsed = cartLines(cart)
  if ("refused" in parsed) return { warning: `order message refused: ${parsed.refused}` }
  const operatorCatalogId = typeof cart.catalog_id === "string" ? cart.catalog_id : String(cart.catalog_id ?? "")
  return { cart: { tenant: { storeId: store.id, mode: modeOf(kind) }, event, phone, cart, lines: parsed.lines, operatorCatalogId } }
}

/** The cart of an `order` message, or `undefined`: another type, or a cart that cannot be an order (logged). */
export const cartOf = (store: Store, kind: AccountKind, event: WebhookEvent.InboundMessage): Effect.Effect<Cart | undefined> => {
  const parsed = parseCart(store, kind, event)
  if (parsed === undefined) return Effect.succeed(undefined)
  if ("warning" in parsed) return Effect.as(Effect.logWarning(parsed.warning, { id: event.messageId }), undefined)
  return Effect.succeed(parsed.cart)
}

/** The products of our catalog `catalogId` (when it is one) that the lines name. */
export const productsOf = (tenant: Tenant, catalogId: string | undefined, retailerIds: ReadonlyArray<string>) =>
  catalogId !== undefined && CatalogId.is(catalogId)
    ? Effect.flatMap(ProductRepo, (products) => products.findByRetailerIds(tenant, catalogId, retailerIds))
    : Effect.succeed<ReadonlyArray<Product>>([])

/**
 * The order a cart makes, its ids new at `now` (epoch ms), its items matched by retailer id
 * with our catalog's `products`: `orderOf` without an effect, for a batch's loop.
 */
export const buildOrder = (cart: Cart, catalogId: string | undefined, products: ReadonlyArray<Product>, now: number): Order.Order => {
  const byRetailerId = new Map(products.map((p) => [p.retailerId, p]))
  const items: Array<Order.OrderItem> = []
  for (const line of cart.lines) {
    const product = byRetailerId.get(line.retailerId)
    const catalogPrice = product === undefined || product.currency !== line.currency ? null : (product.salePrice ?? product.price)
    items.push({
      id: Id.unsafeMake(Order.OrderItemId.prefix, now) as Order.OrderItemId,
      retailerId: line.retailerId,
      productId: product?.id ?? null,
      name: product?.name ?? null,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      catalogPrice,
      priceMismatch: catalogPrice !== line.unitPrice,
      shipped: 0,
      cancelled: 0,
      returned: 0
    })
  }
  const at = cart.event.timestamp
  return {
    id: Id.unsafeMake(Order.OrderId.prefix, now) as Order.OrderId,
    storeId: cart.tenant.storeId,
    mode: cart.tenant.mode,
    catalogId: catalogId ?? null,
    operatorCatalogId: cart.operatorCatalogId,
    sourceMessageId: cart.event.messageId,
    customerPhone: cart.phone,
    note: typeof cart.cart.text === "string" && cart.cart.text.length > 0 ? cart.cart.text : null,
    status: "pending",
    paymentStatus: "unpaid",
    currency: cart.lines[0].currency,
    total: OrderMoney.totalOf(items),
    captured: 0,
    refunded: 0,
    items,
    cart: cart.cart,
    acknowledgedAt: null,
    paymentReferenceId: null,
    requestedAmount: null,
    customerUpdates: [],
    createdAt: at,
    updatedAt: at
  }
}

/** The order a cart makes (new ids), its items matched by retailer id with our catalog's `products`. */
export const orderOf = (cart: Cart, catalogId: string | undefined, products: ReadonlyArray<Product>) =>
  Effect.map(Clock.currentTimeMillis, (now) => buildOrder(cart, catalogId, products, now))

/** The caller's `order.created` of a new order. */
export const emitCreated = (tenant: Tenant, order: Order.Order) =>
  Webhooks.emit(tenant, "order.created", { ...eventData(order), customer_phone: order.customerPhone })

/** A customer's cart message: one order per message. */
export const onInboundMessage = (store: Store, kind: AccountKind, event: WebhookEvent.InboundMessage) =>
  Effect.gen(function* () {
    const cart = yield* cartOf(store, kind, event)
    if (cart === undefined) return
    const { tenant } = cart
    const repo = yield* OrderRepo
    if (Option.isSome(yield* repo.findBySourceMessage(tenant, event.messageId))) return
    const catalogId = Option.getOrUndefined(yield* repo.catalogByOperatorId(tenant, cart.operatorCatalogId))
    const products = yield* productsOf(
      tenant,
      catalogId,
      cart.lines.map((l) => l.retailerId)
    )
    const { order, created } = yield* repo.insertFromCart(tenant, yield* orderOf(cart, catalogId, products))
    if (created) {
      yield* emitCreated(tenant, order)
      yield* OrderPayments.requestOnCart(tenant, order)
    }
  })
