/**
 * A catalog's items and its `items_batch` calls (GRAPH_API.md §8.2, §8.3, B.6): the
 * per-catalog call quota (a sliding window of accepted calls, configurable), each accepted
 * chunk processed asynchronously (`started` until `itemsBatchProcessMs` has passed, then
 * `finished`, computed when read), and the products it leaves. Outcomes are decided by the
 * input, as the README's sandbox outcomes say:
 * - an `image_url` whose host ends in `.invalid`: stored, rejected, `IMAGE_QUALITY`;
 * - a `name` containing `counterfeit`: stored, rejected, `POLICY_VIOLATION`;
 * - an UPDATE of an unknown item without `allow_upsert`, a DELETE of an unknown item:
 *   `ITEM_NOT_FOUND`, nothing stored;
 * - a new item without name, price, currency or image_url: `ATTRIBUTES_MISSING`;
 * - anything else: stored and approved.
 *
 * Every accepted chunk is fingerprinted (its catalog and requests), so tests can count a
 * chunk that reached the operator twice. Items live in memory only (not in the state file).
 */
import { createHash } from "node:crypto"

export interface ItemRequest {
  readonly method: "CREATE" | "UPDATE" | "DELETE"
  readonly data: Readonly<Record<string, unknown>> & { readonly id: string }
}

export interface ItemIssue {
  readonly line: number
  readonly id: string
  readonly type: string
  readonly message: string
}

export interface Item {
  readonly id: string
  readonly retailerId: string
  readonly fields: Readonly<Record<string, unknown>>
  readonly reviewStatus: "approved" | "rejected"
  readonly errors: ReadonlyArray<{ readonly type: string; readonly message: string }>
}

interface Chunk {
  readonly handle: string
  readonly catalogId: string
  readonly requests: ReadonlyArray<ItemRequest>
  readonly allowUpsert: boolean
  readonly doneAt: number
  issues: ReadonlyArray<ItemIssue> | undefined
}

const hostOf = (url: unknown): string => {
  if (typeof url !== "string") return ""
  try {
    return new URL(url).hostname
  } catch {
    return ""
  }
}

const reviewOf = (fields: Readonly<Record<string, unknown>>): Array<{ type: string; message: string }> => {
  const problems: Array<{ type: string; message: string }> = []
  if (hostOf(fields.image_url).endsWith(".invalid")) problems.push({ type: "IMAGE_QUALITY", message: "The product image could not be downloaded." })
  if (typeof fields.name === "string" && /counterfeit/i.test(fields.name))
    problems.push({ type: "POLICY_VIOLATION", message: "This item doesn't comply with our Commerce Policies (counterfeit goods)." })
  return problems
}

const REQUIRED = ["name", "price", "currency", "image_url"] as const

export interface CatalogStats {
  calls: number
  refused: number
  duplicates: number
  requests: number
}

export class ItemsBatches {
  private readonly items = new Map<string, Map<string, Item>>()
  private readonly chunks = new Map<string, Chunk>()
  private readonly calls = new Map<string, Array<number>>()
  private readonly fingerprints = new Set<string>()
  private readonly stats = new Map<string, CatalogStats>()
  /** Operator item id → where the item is. */
  private readonly byItemId = new Map<string, { readonly catalogId: string; readonly retailerId: string }>()
  private nextHandle = 1
  /** Item ids look like the operator's (16 digits): past 2^53, so counted as a bigint (a number would repeat one id). */
  private nextItem = 9_100_000_000_000_000n

  constructor(private readonly now: () => number) {}

  private statsOf(catalogId: string): CatalogStats {
    let s = this.stats.get(catalogId)
    if (s === undefined) {
      s = { calls: 0, refused: 0, duplicates: 0, requests: 0 }
      this.stats.set(catalogId, s)
    }
    return s
  }

  /**
   * Takes a call under the catalog's quota: the accepted calls of the last `windowMs`.
   * Answers how long until a slot frees when the quota is used up (nothing recorded then).
   */
  admit(catalogId: string, quota: number, windowMs: number): { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number } {
    const now = this.now()
    const recent = (this.calls.get(catalogId) ?? []).filter((t) => t > now - windowMs)
    this.calls.set(catalogId, recent)
    if (recent.length >= quota) {
      this.statsOf(catalogId).refused++
      return { ok: false, retryAfterMs: recent[recent.length - quota] + windowMs - now }
    }
    recent.push(now)
    return { ok: true }
  }

  /** Records an accepted chunk; answers its handle. */
  submit(catalogId: string, requests: ReadonlyArray<ItemRequest>, allowUpsert: boolean, processMs: number): string {
    const handle = `${catalogId}:${this.nextHandle++}`
    const fingerprint = createHash("sha256").update(catalogId).update(JSON.stringify(requests)).digest("hex")
    const s = this.statsOf(catalogId)
    s.calls++
    s.requests += requests.length
    if (this.fingerprints.has(fingerprint)) s.duplicates++
    this.fingerprints.add(fingerprint)
    this.chunks.set(handle, { handle, catalogId, requests, allowUpsert, doneAt: this.now() + processMs, issues: undefined })
    return handle
  }

  /** The chunk's status (`started` or `finished` with its issues); undefined for an unknown handle of the catalog. */
  status(catalogId: string, handle: string): { readonly status: "started" | "finished"; readonly issues: ReadonlyArray<ItemIssue> } | undefined {
    const chunk = this.chunks.get(handle)
    if (chunk === undefined || chunk.catalogId !== catalogId) return undefined
    if (chunk.issues === undefined) {
      if (this.now() < chunk.doneAt) return { status: "started", issues: [] }
      this.settle(catalogId)
    }
    return { status: "finished", issues: chunk.issues ?? [] }
  }

  /**
   * Applies the chunks of the catalog that are due, in the order they were accepted (before
   * a read of a status or of its items), so a later chunk never lands before an earlier one.
   */
  private settle(catalogId: string): void {
    for (const chunk of this.chunks.values())
      if (chunk.catalogId === catalogId && chunk.issues === undefined && this.now() >= chunk.doneAt) chunk.issues = this.apply(chunk)
  }

  private apply(chunk: Chunk): ReadonlyArray<ItemIssue> {
    let items = this.items.get(chunk.catalogId)
    if (items === undefined) {
      items = new Map()
      this.items.set(chunk.catalogId, items)
    }
    const issues: Array<ItemIssue> = []
    chunk.requests.forEach((request, line) => {
      const { id: retailerId, ...fields } = request.data
      const before = items.get(retailerId)
      const refuse = (type: string, message: string) => issues.push({ line, id: retailerId, type, message })
      if (request.method === "DELETE") {
        if (before === undefined) refuse("ITEM_NOT_FOUND", `No item with retailer id ${retailerId} in this catalog.`)
        else {
          items.delete(retailerId)
          this.byItemId.delete(before.id)
        }
        return
      }
      if (before === undefined && request.method === "UPDATE" && !chunk.allowUpsert) {
        refuse("ITEM_NOT_FOUND", `No item with retailer id ${retailerId} in this catalog (allow_upsert is false).`)
        return
      }
      const merged = { ...(before?.fields ?? {}), ...fields }
      const missing = REQUIRED.filter((f) => merged[f] === undefined || merged[f] === null || merged[f] === "")
      if (missing.length > 0) {
        refuse("ATTRIBUTES_MISSING", `Missing required fields: ${missing.join(", ")}.`)
        return
      }
      const review = reviewOf(merged)
      for (const problem of review) refuse(problem.type, problem.message)
      const id = before?.id ?? String(this.nextItem++)
      this.byItemId.set(id, { catalogId: chunk.catalogId, retailerId })
      items.set(retailerId, {
        id,
        retailerId,
        fields: merged,
        reviewStatus: review.length > 0 ? "rejected" : "approved",
        errors: review
      })
    })
    return issues
  }

  /** The catalog's items in insertion order, `after` an item id when given. */
  list(catalogId: string, after: string | undefined, limit: number): { readonly items: ReadonlyArray<Item>; readonly more: boolean } {
    this.settle(catalogId)
    const all = [...(this.items.get(catalogId)?.values() ?? [])]
    const start = after === undefined ? 0 : all.findIndex((i) => i.id === after) + 1
    return { items: all.slice(start, start + limit), more: start + limit < all.length }
  }

  /**
   * An item by its operator id (`GET /{PRODUCT_ITEM_ID}`), with its catalog. One map lookup
   * (the node route asks here before phone numbers and WABAs); an id is known only once its
   * chunk was applied, and the catalog's due chunks are applied before it is answered.
   */
  find(itemId: string): { readonly catalogId: string; readonly item: Item } | undefined {
    const ref = this.byItemId.get(itemId)
    if (ref === undefined) return undefined
    this.settle(ref.catalogId)
    const item = this.items.get(ref.catalogId)?.get(ref.retailerId)
    return item === undefined || item.id !== itemId ? undefined : { catalogId: ref.catalogId, item }
  }

  /** Whether the catalog has an item with this retailer id (its due chunks applied first). */
  hasRetailerId(catalogId: string, retailerId: string): boolean {
    this.settle(catalogId)
    return this.items.get(catalogId)?.has(retailerId) ?? false
  }

  count(catalogId: string): number {
    this.settle(catalogId)
    return this.items.get(catalogId)?.size ?? 0
  }

  /** What the catalog's `items_batch` calls came to (all catalogs when none is given). */
  statsFor(catalogId: string | undefined): CatalogStats {
    if (catalogId !== undefined) return { ...this.statsOf(catalogId) }
    const total: CatalogStats = { calls: 0, refused: 0, duplicates: 0, requests: 0 }
    for (const s of this.stats.values()) {
      total.calls += s.calls
      total.refused += s.refused
      total.duplicates += s.duplicates
      total.requests += s.requests
    }
    return total
  }

  /** Forgets a deleted catalog's items and chunks (its counters stay, for tests). */
  forget(catalogId: string): void {
    for (const item of this.items.get(catalogId)?.values() ?? []) this.byItemId.delete(item.id)
    this.items.delete(catalogId)
    for (const [handle, chunk] of this.chunks) if (chunk.catalogId === catalogId) this.chunks.delete(handle)
  }
}
