/**
 * Product catalogs (GRAPH_API.md §8.1): owned by a business, connected to WhatsApp business
 * accounts. A WABA's owning business is derived from its id (`owner_business_info`), so a
 * sandbox account needs no registration step to create catalogs. Kept in the state file.
 */

export interface CatalogRecord {
  readonly id: string
  readonly businessId: string
  readonly name: string
  readonly vertical: string
  /** The WABAs it is connected to. */
  readonly wabas: ReadonlyArray<string>
  /** Other businesses the owner shared it with (absent: none); they may connect it to their WABAs. */
  readonly sharedWith?: ReadonlyArray<string>
  readonly createdAt: number
}

export interface CatalogsSnapshot {
  readonly catalogs: ReadonlyArray<CatalogRecord>
}

/** The business that owns a WABA (the emulator's convention: `8` followed by the WABA id's other digits). */
export const businessOf = (wabaId: string): string => `8${wabaId.slice(1)}`

export class CatalogStore {
  private readonly byId = new Map<string, CatalogRecord>()
  private nextId = 700_000_000_000_000 + Math.floor(Math.random() * 200_000_000_000_000)

  constructor(
    private readonly now: () => number,
    private readonly onChange: () => void
  ) {}

  create(businessId: string, name: string, vertical: string): CatalogRecord {
    const record: CatalogRecord = { id: String(this.nextId++), businessId, name, vertical, wabas: [], createdAt: this.now() }
    this.byId.set(record.id, record)
    this.onChange()
    return record
  }

  get(id: string): CatalogRecord | undefined {
    return this.byId.get(id)
  }

  ownedBy(businessId: string): ReadonlyArray<CatalogRecord> {
    return [...this.byId.values()].filter((c) => c.businessId === businessId)
  }

  connectedTo(wabaId: string): ReadonlyArray<CatalogRecord> {
    return [...this.byId.values()].filter((c) => c.wabas.includes(wabaId))
  }

  /** Whether a WABA's business may connect the catalog: it owns it, or the owner shared it with that business. */
  mayConnect(catalog: CatalogRecord, wabaId: string): boolean {
    const business = businessOf(wabaId)
    return catalog.businessId === business || (catalog.sharedWith ?? []).includes(business)
  }

  update(id: string, patch: Partial<Pick<CatalogRecord, "name" | "wabas" | "sharedWith">>): CatalogRecord | undefined {
    const record = this.byId.get(id)
    if (record === undefined) return undefined
    const next = { ...record, ...patch }
    this.byId.set(id, next)
    this.onChange()
    return next
  }

  delete(id: string): boolean {
    const had = this.byId.delete(id)
    if (had) this.onChange()
    return had
  }

  snapshot(): CatalogsSnapshot {
    return { catalogs: [...this.byId.values()] }
  }

  restore(snapshot: CatalogsSnapshot): void {
    for (const c of snapshot.catalogs) this.byId.set(c.id, c)
  }
}
