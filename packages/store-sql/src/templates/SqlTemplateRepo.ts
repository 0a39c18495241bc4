/**
 * The TemplateRepo and TemplateStatusRepo ports over the `templates` table. Every statement
 * is scoped by the tenant's store (templates belong to the store, not to a mode). Listing
 * runs on every list request, so each of its four shapes (with or without a cursor, with or
 * without a status) is compiled once (`preparedPage`).
 */
import { Errors, type Template, TemplateRepo, type Tenant } from "@switchboard/domain"
import { Clock, Effect, Layer } from "effect"
import { Database } from "../Database.js"
import { findOne, scoped, scopedDelete, scopedUpdate, preparedPage, type TenantScope } from "../internal/Scoped.js"
import { templateColumns, templateSelect as columns } from "./Tables.js"

const keyOf = (name: string, language: string): string => `${name}\u0000${language}`

const toTemplate = templateColumns.fromRow

export const make: Effect.Effect<TemplateRepo.TemplateRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const list = preparedPage(
    db,
    (p: TenantScope & { status: string }, given) =>
      scoped(db.kysely, "templates", { storeId: p.storeId })
        .select(columns)
        .$if(given("status"), (q) => q.where("status", "=", p.status)),
    toTemplate
  )

  const selectByName = (tenant: Tenant.Tenant, name: string) =>
    db.query((k) => scoped(k, "templates", { storeId: tenant.storeId }).select(columns).where("name", "=", name).orderBy("language").execute())

  return TemplateRepo.TemplateRepo.of({
    list: (tenant, query) => list({ storeId: tenant.storeId }, query, { status: query.status }),

    findByName: (tenant, name) => selectByName(tenant, name).pipe(Effect.map((rows) => rows.map(toTemplate))),

    find: (tenant, name, language) =>
      findOne(
        db,
        (k) => scoped(k, "templates", { storeId: tenant.storeId }).select(columns).where("name", "=", name).where("language", "=", language),
        toTemplate
      ),

    insert: (tenant, template) =>
      db
        .queryUnique((k) =>
          k
            .insertInto("templates")
            .values({ ...templateColumns.toRow(template), store_id: tenant.storeId })
            .execute()
        )
        .pipe(
          Effect.asVoid,
          Effect.catchTag("UniqueViolation", () =>
            Effect.fail(new Errors.ResourceAlreadyExists({ resource: "template", id: `${template.name} (${template.language})` }))
          )
        ),

    replaceAll: (tenant, states, newId) =>
      db.withTransaction(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const existing = yield* db.query((k) => scoped(k, "templates", { storeId: tenant.storeId }).select(columns).execute())
          const known = new Map(existing.map((row) => [keyOf(row.name, row.language), row]))
          const reported = new Set<string>()
          let changed = 0
          for (const state of states) {
            const key = keyOf(state.name, state.language)
            if (reported.has(key)) continue
            reported.add(key)
            const components = JSON.stringify(state.components)
            const row = known.get(key)
            if (row === undefined) {
              const template: Template.Template = {
                id: yield* newId,
                storeId: tenant.storeId,
                ...state,
                qualityScore: state.qualityScore ?? null,
                createdAt: now,
                updatedAt: now
              }
              yield* db.query((k) => k.insertInto("templates").values(templateColumns.toRow(template)).execute())
              changed++
              continue
            }
            const operatorId = state.operatorId ?? row.operator_id
            const qualityScore = state.qualityScore ?? row.quality_score
            if (
              row.status === state.status &&
              row.category === state.category &&
              row.components === components &&
              row.rejected_reason === state.rejectedReason &&
              row.operator_id === operatorId &&
              row.quality_score === qualityScore
            ) {
              continue
            }
            yield* db.query((k) =>
              scopedUpdate(k, "templates", { storeId: tenant.storeId })
                .set({
                  status: state.status,
                  category: state.category,
                  components,
                  rejected_reason: state.rejectedReason,
                  quality_score: qualityScore,
                  operator_id: operatorId,
                  updated_at: now
                })
                .where("id", "=", row.id)
                .execute()
            )
            changed++
          }
          const gone = existing.filter((row) => !reported.has(keyOf(row.name, row.language))).map((row) => row.id)
          if (gone.length > 0) {
            yield* db.query((k) => scopedDelete(k, "templates", { storeId: tenant.storeId }).where("id", "in", gone).execute())
            changed += gone.length
          }
          return changed
        })
      ),

    deleteByName: (tenant, name) =>
      db
        .query((k) => scopedDelete(k, "templates", { storeId: tenant.storeId }).where("name", "=", name).executeTakeFirst())
        .pipe(Effect.map((result) => Number(result.numDeletedRows)))
  })
})

export const makeStatus: Effect.Effect<TemplateRepo.TemplateStatusRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return TemplateRepo.TemplateStatusRepo.of({
    updateStatus: (storeId, name, language, update) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.query((k) =>
          scopedUpdate(k, "templates", { storeId })
            .set({
              status: update.status,
              rejected_reason: update.rejectedReason,
              updated_at: now,
              ...(update.category !== undefined ? { category: update.category } : {})
            })
            .where("name", "=", name)
            .where("language", "=", language)
            .where((eb) =>
              eb.or([
                eb("status", "<>", update.status),
                eb(eb.fn.coalesce("rejected_reason", eb.val("")), "<>", update.rejectedReason ?? ""),
                ...(update.category !== undefined ? [eb("category", "<>", update.category)] : [])
              ])
            )
            .executeTakeFirst()
        )
        return result.numUpdatedRows > 0n
      }),

    updateDetails: (storeId, name, language, update) =>
      Effect.gen(function* () {
        const set = {
          ...(update.category !== undefined ? { category: update.category } : {}),
          ...(update.qualityScore !== undefined ? { quality_score: update.qualityScore } : {})
        }
        if (Object.keys(set).length === 0) return false
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.query((k) =>
          scopedUpdate(k, "templates", { storeId })
            .set({ ...set, updated_at: now })
            .where("name", "=", name)
            .where("language", "=", language)
            .where((eb) =>
              eb.or([
                ...(update.category !== undefined ? [eb("category", "<>", update.category)] : []),
                ...(update.qualityScore !== undefined ? [eb(eb.fn.coalesce("quality_score", eb.val("")), "<>", update.qualityScore)] : [])
              ])
            )
            .executeTakeFirst()
        )
        return result.numUpdatedRows > 0n
      })
  })
})

export const layer: Layer.Layer<TemplateRepo.TemplateRepo | TemplateRepo.TemplateStatusRepo, never, Database> = Layer.merge(
  Layer.effect(TemplateRepo.TemplateRepo, make),
  Layer.effect(TemplateRepo.TemplateStatusRepo, makeStatus)
)
