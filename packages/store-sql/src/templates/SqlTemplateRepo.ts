/**
 * The TemplateRepo and TemplateStatusRepo ports over the `templates` table. Every statement
 * is scoped by the tenant's store (templates belong to the store, not to a mode). Listing
 * runs on every list request, so each of its four shapes (with or without a cursor, with or
 * without a status) is compiled once (`preparedPage`).
 */
import { Errors, type Template, TemplateRepo, type Tenant } from "@switchboard/domain"
import { Clock, Effect, Layer } from "effect"
import { sql } from "kysely"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import { prepare, prepareSql } from "../internal/Prepared.js"
import { SqlDialect } from "../SqlDialect.js"
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

  /** A template's languages: read on every request of `GET /chat/templates/{name}`, compiled once. */
  const byName = prepare((p: { storeId: string; name: string }) =>
    scoped(db.kysely, "templates", { storeId: p.storeId }).select(columns).where("name", "=", p.name).orderBy("language")
  )
  const selectByName = (tenant: Tenant.Tenant, name: string) =>
    Effect.map(db.execute(byName({ storeId: tenant.storeId, name })), (result) => result.rows)

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

/** Rows read or written at once: an IN list stays short, a VALUES list under the bound-value limits. */
const CHUNK = 500

/** One UPDATE … FROM a VALUES list: each row's status, reason, category and quality, by id within the store. */
const writeMany = (storeId: string, rows: ReadonlyArray<TemplateRepo.TemplateDetails>, now: number) => {
  const text = (v: string | null) => sql`cast(${v} as text)`
  const values = rows.map((r) => sql`(${sql.join([text(r.id), text(r.status), text(r.rejectedReason), text(r.category), text(r.qualityScore)])})`)
  return sql`with v (id, status, rejected_reason, category, quality_score) as (values ${sql.join(values)})
    update templates set
      status = v.status,
      rejected_reason = v.rejected_reason,
      category = v.category,
      quality_score = v.quality_score,
      updated_at = ${now}
    from v
    where templates.id = v.id and templates.store_id = ${storeId}`
}

export const makeStatus: Effect.Effect<TemplateRepo.TemplateStatusRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect
  /** One row of `writeMany`, compiled once: where UPDATE … FROM reads the whole table (`SqlDialect.updateFromValues`). */
  const writeOne = prepareSql(
    db.kysely,
    (p: Record<string, unknown>) =>
      sql`update templates set
        status = ${p.status},
        rejected_reason = ${p.rejectedReason},
        category = ${p.category},
        quality_score = ${p.qualityScore},
        updated_at = ${p.now}
      where id = ${p.id} and store_id = ${p.storeId}`
  )
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
      }),

    detailsOf: (storeId, keys) =>
      Effect.gen(function* () {
        const wanted = new Set(keys.map((k) => keyOf(k.name, k.language)))
        const found: Array<TemplateRepo.TemplateDetails> = []
        for (const names of Chunks.chunks([...new Set(keys.map((k) => k.name))].sort(), CHUNK)) {
          const rows = yield* db.query((k) =>
            scoped(k, "templates", { storeId })
              .select(["id", "name", "language", "status", "rejected_reason", "category", "quality_score"])
              .where("name", "in", names)
              .orderBy("id")
              .$if(dialect.lockRows, (q) => q.forUpdate())
              .execute()
          )
          for (const r of rows)
            if (wanted.has(keyOf(r.name, r.language)))
              found.push({
                id: r.id as Template.TemplateId,
                name: r.name,
                language: r.language,
                status: r.status as Template.Status,
                rejectedReason: r.rejected_reason,
                category: r.category as Template.Category,
                qualityScore: r.quality_score as Template.QualityScore | null
              })
        }
        return found
      }),

    writeDetails: (storeId, rows) =>
      Effect.gen(function* () {
        if (rows.length === 0) return
        const now = yield* Clock.currentTimeMillis
        if (dialect.updateFromValues) yield* Chunks.forEach(rows, CHUNK, (chunk) => db.query((k) => writeMany(storeId, chunk, now).execute(k)))
        else
          for (const r of rows)
            yield* db.execute(
              writeOne({
                storeId,
                id: r.id,
                status: r.status,
                rejectedReason: r.rejectedReason,
                category: r.category,
                qualityScore: r.qualityScore,
                now
              })
            )
      })
  })
})

export const layer: Layer.Layer<TemplateRepo.TemplateRepo | TemplateRepo.TemplateStatusRepo, never, Database | SqlDialect> = Layer.merge(
  Layer.effect(TemplateRepo.TemplateRepo, make),
  Layer.effect(TemplateRepo.TemplateStatusRepo, makeStatus)
)
