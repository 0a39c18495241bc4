/**
 * The operator's checks of an interactive send's content, beyond its shape (`SendRequest.ts`):
 *
 * - `product` (single-product message) and `product_list` (multi-product message): the
 *   `catalog_id` must be a catalog connected to the sender's WABA, and every
 *   `product_retailer_id` must be an item of it (131009 otherwise). A `product_list` needs its
 *   `header` of type `text` and a body, 1 to 10 `sections`, each with 1 or more
 *   `product_items`, at most 30 items in all, and a `title` on each section when there are
 *   several (Meta's "Share products with customers" guide; GRAPH_API.md §8).
 * - `flow`: `flow_cta` (the button's text) 1 to 30 characters (GRAPH_API.md §5.4).
 * - `voice_call`: `ttl_minutes`, when given, a whole number from 1 to 43,200; `display_text` at
 *   most 20 characters (GRAPH_API.md §6.5).
 *
 * A missing required parameter is 131008, a value out of its range 131009, as the send edge
 * answers them (GRAPH_API.md §10).
 */
import type { CatalogStore } from "./Catalogs.js"
import { GraphErrors } from "./GraphError.js"
import type { ItemsBatches } from "./ItemsBatch.js"
import { asObject } from "./SendRequest.js"

/** Limits of the checked interactive types (the operator's). */
export const InteractiveLimits = {
  productListSections: 10,
  productListItems: 30,
  flowCta: 30,
  callButtonText: 20,
  ttlMinutesMin: 1,
  ttlMinutesMax: 43_200
} as const

export interface InteractiveCheckDeps {
  readonly catalogs: CatalogStore
  readonly items: ItemsBatches
}

const missing = GraphErrors.missingParameter
const invalid = GraphErrors.invalidValue

const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0
const idOf = (value: unknown): string | undefined =>
  nonEmptyString(value) ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : undefined

/** The catalog a commerce message names: connected to the sender's WABA, else 131009. */
const connectedCatalog = (deps: InteractiveCheckDeps, wabaId: string, action: Record<string, unknown>): string => {
  const catalogId = idOf(action.catalog_id)
  if (catalogId === undefined) throw missing("The parameter interactive['action']['catalog_id'] is required.")
  const catalog = deps.catalogs.get(catalogId)
  if (catalog === undefined || !catalog.wabas.includes(wabaId)) {
    throw invalid(`Catalog ${catalogId} is not connected to the WhatsApp Business Account ${wabaId}.`)
  }
  return catalogId
}

const checkProducts = (deps: InteractiveCheckDeps, catalogId: string, retailerIds: ReadonlyArray<string>): void => {
  const unknown = retailerIds.filter((id) => !deps.items.hasRetailerId(catalogId, id))
  if (unknown.length > 0) throw invalid(`Products not found in catalog ${catalogId}: ${unknown.join(", ")}.`)
}

const checkProduct = (deps: InteractiveCheckDeps, wabaId: string, action: Record<string, unknown>): void => {
  const catalogId = connectedCatalog(deps, wabaId, action)
  const retailerId = idOf(action.product_retailer_id)
  if (retailerId === undefined) throw missing("The parameter interactive['action']['product_retailer_id'] is required.")
  checkProducts(deps, catalogId, [retailerId])
}

const checkProductList = (deps: InteractiveCheckDeps, wabaId: string, interactive: Record<string, unknown>, action: Record<string, unknown>) => {
  const header = asObject(interactive.header)
  if (header === undefined) throw missing("The parameter interactive['header'] is required for a product_list message.")
  if (header.type !== "text" || !nonEmptyString(header.text)) {
    throw invalid("interactive['header'] of a product_list message must be of type text, with its text.")
  }
  if (!nonEmptyString(asObject(interactive.body)?.text)) throw missing("The parameter interactive['body']['text'] is required.")
  const catalogId = connectedCatalog(deps, wabaId, action)
  const sections = action.sections
  if (!Array.isArray(sections) || sections.length === 0) throw missing("The parameter interactive['action']['sections'] is required.")
  if (sections.length > InteractiveLimits.productListSections) {
    throw invalid(`interactive['action']['sections'] has ${sections.length} sections: at most ${InteractiveLimits.productListSections}.`)
  }
  const retailerIds: string[] = []
  sections.forEach((raw: unknown, i: number) => {
    const section = asObject(raw)
    if (sections.length > 1 && !nonEmptyString(section?.title)) {
      throw missing(`The parameter interactive['action']['sections'][${i}]['title'] is required when there are several sections.`)
    }
    const items = section?.product_items
    if (!Array.isArray(items) || items.length === 0) {
      throw missing(`The parameter interactive['action']['sections'][${i}]['product_items'] is required.`)
    }
    items.forEach((item: unknown, j: number) => {
      const id = idOf(asObject(item)?.product_retailer_id)
      if (id === undefined) {
        throw missing(`The parameter interactive['action']['sections'][${i}]['product_items'][${j}]['product_retailer_id'] is required.`)
      }
      retailerIds.push(id)
    })
  })
  if (retailerIds.length > InteractiveLimits.productListItems) {
    throw invalid(`interactive['action']['sections'] hold ${retailerIds.length} products: at most ${InteractiveLimits.productListItems} in all.`)
  }
  checkProducts(deps, catalogId, retailerIds)
}

const checkFlow = (action: Record<string, unknown>): void => {
  const cta = asObject(action.parameters)?.flow_cta
  if (!nonEmptyString(cta)) throw missing("The parameter interactive['action']['parameters']['flow_cta'] is required.")
  if (cta.length > InteractiveLimits.flowCta) {
    throw invalid(`interactive['action']['parameters']['flow_cta'] must be at most ${InteractiveLimits.flowCta} characters.`)
  }
}

const checkVoiceCall = (action: Record<string, unknown>): void => {
  const parameters = asObject(action.parameters) ?? {}
  const ttl = parameters.ttl_minutes
  if (ttl !== undefined) {
    const n = typeof ttl === "string" && ttl.trim() !== "" ? Number(ttl) : ttl
    if (typeof n !== "number" || !Number.isInteger(n) || n < InteractiveLimits.ttlMinutesMin || n > InteractiveLimits.ttlMinutesMax) {
      throw invalid(
        `interactive['action']['parameters']['ttl_minutes'] must be a whole number from ${InteractiveLimits.ttlMinutesMin} to ${InteractiveLimits.ttlMinutesMax}.`
      )
    }
  }
  const text = parameters.display_text
  if (text !== undefined && (typeof text !== "string" || text.length > InteractiveLimits.callButtonText)) {
    throw invalid(`interactive['action']['parameters']['display_text'] must be at most ${InteractiveLimits.callButtonText} characters.`)
  }
}

/** Checks an interactive send's content from `wabaId`; throws the operator's refusal. */
export const checkInteractive = (deps: InteractiveCheckDeps, wabaId: string, interactive: Record<string, unknown>): void => {
  const action = asObject(interactive.action) ?? {}
  const checks: Record<string, () => void> = {
    product: () => checkProduct(deps, wabaId, action),
    product_list: () => checkProductList(deps, wabaId, interactive, action),
    flow: () => checkFlow(action),
    voice_call: () => checkVoiceCall(action)
  }
  if (typeof interactive.type === "string") checks[interactive.type]?.()
}
