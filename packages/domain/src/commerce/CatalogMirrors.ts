/**
 * The catalog routes' changes at the operator, as mirrored writes (`shared/Mirror.ts`): each
 * is prepared here (an outbox row, in a transaction), made at the operator outside any
 * transaction, and recorded in the settle's transaction. The pending record of a create or a
 * connect is the outbox row itself: the catalog row is written once the operator took it.
 * A refusal (or an unreachable operator) leaves nothing here.
 */
import { Effect, Option, Schema } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { OperatorAccount } from "../stores/Store.js"
import { BatchRepo } from "./BatchRepo.js"
import * as Catalog from "./Catalog.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { type CatalogItem, CommerceOperator } from "./CommerceOperator.js"
import { FeedRepo } from "./FeedRepo.js"
import * as Product from "./Product.js"
import { ProductRepo } from "./ProductRepo.js"
import * as ProductRules from "./ProductRules.js"

const RESOURCE = "catalog"

const gone = (id: string) => new Errors.ResourceNotFound({ resource: RESOURCE, id })

/** The one answer for an operator catalog this tenant may not connect (see `Catalogs.connect`). */
export const unknownOperatorCatalog = (operatorCatalogId: string) =>
  new Errors.ResourceNotFound({ resource: "operator catalog", id: operatorCatalogId })

const operator = CommerceOperator

const record = (tenant: Tenant, id: Catalog.CatalogId, fields: Pick<Catalog.Catalog, "name" | "operatorCatalogId" | "origin">) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const catalog: Catalog.Catalog = { id, storeId: tenant.storeId, mode: tenant.mode, ...fields, connected: true, createdAt: now, updatedAt: now }
    yield* (yield* CatalogRepo).insert(tenant, catalog)
    return catalog
  })

const change = (tenant: Tenant, id: Catalog.CatalogId, patch: Partial<Pick<Catalog.Catalog, "name" | "connected">>) =>
  Effect.gen(function* () {
    const updated = yield* (yield* CatalogRepo).update(tenant, id, patch, yield* Time.now)
    return yield* Option.match(updated, { onNone: () => Effect.fail(gone(id)), onSome: Effect.succeed })
  })

/** `POST /chat/catalogs`: created at the operator, then recorded. */
export const create = Mirror.kind({
  kind: "catalogs.create",
  payload: Schema.Struct({ id: Catalog.CatalogId.schema, name: Schema.String }),
  call: (p: { readonly id: Catalog.CatalogId; readonly name: string }, { account }) =>
    Effect.flatMap(operator, (op) => op.createCatalog(account, p.name)),
  // the operator's new catalog cannot be another store's
  settle: (p, operatorCatalogId: string, { tenant }) =>
    record(tenant, p.id, { name: p.name, operatorCatalogId, origin: "created" }).pipe(Effect.catchTag("ResourceNotFound", Effect.die)),
  /**
   * The operator's catalog create takes no idempotency key: before a sweep creates again, it
   * looks for the one a crashed call made (the business's newest catalog of that name that
   * no store holds) and connects it (the crash may have come between create and connect).
   */
  recover: (p, { account }) =>
    Effect.gen(function* () {
      const op = yield* operator
      const repo = yield* CatalogRepo
      const named = yield* op.findOwnedCatalogs(account, p.name)
      const free = yield* Effect.filter(named, (id) => Effect.map(repo.claimed(id), (held) => !held))
      const found = free.at(-1)
      if (found === undefined) return Option.none()
      yield* op.connectCatalog(account, found, true)
      return Option.some(found)
    })
})

/** The items of a connected catalog, page by page (reads, outside any transaction). */
const readItems = (account: OperatorAccount, operatorCatalogId: string) =>
  Effect.gen(function* () {
    const op = yield* operator
    const items: Array<CatalogItem> = []
    let after: string | undefined
    do {
      const page = yield* op.listItems(account, operatorCatalogId, after)
      items.push(...page.items)
      after = page.next
    } while (after !== undefined)
    return items
  })

/**
 * `POST /chat/catalogs/connect`: the operator catalog found, connected to the tenant's
 * account and its items read; then, in the settle, recorded with its items. An item our
 * rules refuse is left out and logged: the catalog's next sync or batch fixes it there.
 */
export const connect = Mirror.kind({
  kind: "catalogs.connect",
  payload: Schema.Struct({ id: Catalog.CatalogId.schema, operatorCatalogId: Schema.String, name: Schema.optional(Schema.String) }),
  call: (p: { readonly id: Catalog.CatalogId; readonly operatorCatalogId: string; readonly name?: string | undefined }, { account }) =>
    Effect.gen(function* () {
      const op = yield* operator
      const found = yield* op.findCatalog(account, p.operatorCatalogId)
      if (Option.isNone(found)) return yield* Effect.fail(unknownOperatorCatalog(p.operatorCatalogId))
      // the operator refuses (error 100) a catalog its business does not own, as it does an unknown one
      yield* op.connectCatalog(account, p.operatorCatalogId, true).pipe(
        Effect.catchIf(
          (e) => e._tag === "OperatorRejected" && e.code === 100,
          () => Effect.fail(unknownOperatorCatalog(p.operatorCatalogId))
        )
      )
      return { name: found.value.name, items: yield* readItems(account, p.operatorCatalogId) }
    }),
  settle: (p, answer, { tenant }) =>
    Effect.gen(function* () {
      const catalog = yield* record(tenant, p.id, { name: p.name ?? answer.name, operatorCatalogId: p.operatorCatalogId, origin: "connected" })
      const now = yield* Time.now
      const upserts: Array<Product.Product> = []
      for (const item of answer.items) {
        const checked = ProductRules.check("CREATE", { ...item.fields, retailer_id: item.retailerId })
        if (!checked.ok) continue
        upserts.push({
          id: yield* Product.ProductId.generate,
          storeId: tenant.storeId,
          mode: tenant.mode,
          catalogId: catalog.id,
          ...Product.fieldsOf(ProductRules.complete(checked.data)),
          reviewStatus: item.reviewStatus,
          errors: item.errors.map((e) => ({ type: e.type, severity: "MUST_FIX" as const, code: e.type.toLowerCase(), message: e.message })),
          createdAt: now,
          updatedAt: now
        })
      }
      yield* (yield* ProductRepo).apply(tenant, catalog.id, { upserts, deletes: [] })
      const skipped = answer.items.length - upserts.length
      if (skipped > 0) yield* Effect.logWarning("connected catalog: items our rules refuse were not imported", { catalog: catalog.id, skipped })
      return catalog
    })
})

const Target = Schema.Struct({ id: Catalog.CatalogId.schema, operatorCatalogId: Schema.String })

/** `PATCH /chat/catalogs/{id}`: the new name given to the operator's catalog, then here. */
export const rename = Mirror.kind({
  kind: "catalogs.rename",
  payload: Schema.extend(Target, Schema.Struct({ name: Schema.String })),
  call: (p: typeof Target.Type & { readonly name: string }, { account }) =>
    Effect.flatMap(operator, (op) => op.renameCatalog(account, p.operatorCatalogId, p.name)),
  settle: (p, _answer, { tenant }) => change(tenant, p.id, { name: p.name })
})

/** `POST /chat/catalogs/{id}/connect` and `/disconnect`. */
export const setConnected = Mirror.kind({
  kind: "catalogs.set_connected",
  payload: Schema.extend(Target, Schema.Struct({ connected: Schema.Boolean })),
  call: (p: typeof Target.Type & { readonly connected: boolean }, { account }) =>
    Effect.flatMap(operator, (op) => op.connectCatalog(account, p.operatorCatalogId, p.connected)),
  settle: (p, _answer, { tenant }) => change(tenant, p.id, { connected: p.connected })
})

/** `DELETE /chat/catalogs/{id}`: deleted at the operator (a created one) or disconnected (a connected one), then here with its products, feeds and batches. */
export const remove = Mirror.kind({
  kind: "catalogs.delete",
  payload: Schema.extend(Target, Schema.Struct({ origin: Schema.Literal("created", "connected"), connected: Schema.Boolean })),
  call: (p: typeof Target.Type & { readonly origin: "created" | "connected"; readonly connected: boolean }, { account }) =>
    Effect.flatMap(operator, (op) =>
      p.origin === "created"
        ? op.deleteCatalog(account, p.operatorCatalogId)
        : p.connected
          ? op.connectCatalog(account, p.operatorCatalogId, false)
          : Effect.void
    ),
  settle: (p, _answer, { tenant }) =>
    Effect.gen(function* () {
      yield* (yield* ProductRepo).removeCatalog(tenant, p.id)
      yield* (yield* FeedRepo).removeCatalog(tenant, p.id)
      yield* (yield* BatchRepo).removeCatalog(tenant, p.id)
      if (!(yield* (yield* CatalogRepo).remove(tenant, p.id))) return yield* Effect.fail(gone(p.id))
      return { id: p.id, deleted: true as const }
    })
})

/** Every catalog mirror kind (the commerce module registers them). */
export const kinds = [create, connect, rename, setConnected, remove] as const
