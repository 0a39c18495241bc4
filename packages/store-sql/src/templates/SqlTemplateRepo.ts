/**
 * The TemplateRepo port over the `templates` table. Every statement is scoped by store id.
 * Listing runs on every list request, so its four shapes (with or without a cursor, with or
 * without a status) are compiled once when the layer is built.
 */
import { Errors, Pagination, type Template, TemplateRepo } from "@switchboard/domain"
import { Clock, Effect, Layer, Option } from "effect"
import type { Selectable } from "kysely"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"
import type { TemplatesTable } from "./Tables.js"

type TemplateRow = Selectable<TemplatesTable>

const columns = [
  "id",
  "store_id",
  "name",
  "language",
  "category",
  "status",
  "components",
  "rejected_reason",
  "operator_id",
  "created_at",
  "updated_at"
] as const

export const toTemplate = (row: TemplateRow): Template.Template => ({
  id: row.id,
  storeId: row.store_id,
  name: row.name,
  language: row.language,
  category: row.category as Template.Category,
  status: row.status as Template.Status,
  components: JSON.parse(row.components) as ReadonlyArray<Template.Component>,
  rejectedReason: row.rejected_reason,
  operatorId: row.operator_id,
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at))
})

const keyOf = (name: string, language: string): string => `${name}\u0000${language}`

export const make: Effect.Effect<TemplateRepo.TemplateRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  type ListParams = { storeId: string; after: string; status: string; limit: number }
  const listQuery = (withAfter: boolean, withStatus: boolean) =>
    prepare((p: ListParams) =>
      db.kysely
        .selectFrom("templates")
        .select(columns)
        .where("store_id", "=", p.storeId)
        .$if(withStatus, (q) => q.where("status", "=", p.status))
        .$if(withAfter, (q) => q.where("id", "<", p.after))
        .orderBy("id", "desc")
        .limit(p.limit)
    )
  const list = {
    plain: listQuery(false, false),
    after: listQuery(true, false),
    status: listQuery(false, true),
    afterStatus: listQuery(true, true)
  }

  const selectByName = (storeId: string, name: string) =>
    db.query((k) =>
      k.selectFrom("templates").select(columns).where("store_id", "=", storeId).where("name", "=", name).orderBy("language").execute()
    )

  return TemplateRepo.TemplateRepo.of({
    list: (storeId, query) => {
      const hasAfter = query.after !== undefined
      const hasStatus = query.status !== undefined
      const compiled = (hasAfter ? (hasStatus ? list.afterStatus : list.after) : hasStatus ? list.status : list.plain)({
        storeId,
        after: query.after ?? "",
        status: query.status ?? "",
        limit: query.limit + 1
      })
      return db.execute(compiled).pipe(Effect.map(({ rows }) => Pagination.sliceOf(rows.map(toTemplate), query.limit)))
    },

    findByName: (storeId, name) => selectByName(storeId, name).pipe(Effect.map((rows) => rows.map(toTemplate))),

    find: (storeId, name, language) =>
      db
        .query((k) =>
          k
            .selectFrom("templates")
            .select(columns)
            .where("store_id", "=", storeId)
            .where("name", "=", name)
            .where("language", "=", language)
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), toTemplate))),

    insert: (template) =>
      db
        .queryUnique((k) =>
          k
            .insertInto("templates")
            .values({
              id: template.id,
              store_id: template.storeId,
              name: template.name,
              language: template.language,
              category: template.category,
              status: template.status,
              components: JSON.stringify(template.components),
              rejected_reason: template.rejectedReason,
              operator_id: template.operatorId,
              created_at: template.createdAt.getTime(),
              updated_at: template.updatedAt.getTime()
            })
            .execute()
        )
        .pipe(
          Effect.asVoid,
          Effect.catchTag("UniqueViolation", () =>
            Effect.fail(new Errors.ResourceAlreadyExists({ resource: "template", id: `${template.name} (${template.language})` }))
          )
        ),

    replaceAll: (storeId, states, newId) =>
      db.withTransaction(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const existing = yield* db.query((k) =>
            k.selectFrom("templates").select(columns).where("store_id", "=", storeId).execute()
          )
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
              yield* db.query((k) =>
                k
                  .insertInto("templates")
                  .values({
                    id: newId(),
                    store_id: storeId,
                    name: state.name,
                    language: state.language,
                    category: state.category,
                    status: state.status,
                    components,
                    rejected_reason: state.rejectedReason,
                    operator_id: state.operatorId,
                    created_at: now,
                    updated_at: now
                  })
                  .execute()
              )
              changed++
              continue
            }
            const operatorId = state.operatorId ?? row.operator_id
            if (
              row.status === state.status &&
              row.category === state.category &&
              row.components === components &&
              row.rejected_reason === state.rejectedReason &&
              row.operator_id === operatorId
            ) {
              continue
            }
            yield* db.query((k) =>
              k
                .updateTable("templates")
                .set({
                  status: state.status,
                  category: state.category,
                  components,
                  rejected_reason: state.rejectedReason,
                  operator_id: operatorId,
                  updated_at: now
                })
                .where("id", "=", row.id)
                .where("store_id", "=", storeId)
                .execute()
            )
            changed++
          }
          const gone = existing.filter((row) => !reported.has(keyOf(row.name, row.language))).map((row) => row.id)
          if (gone.length > 0) {
            yield* db.query((k) => k.deleteFrom("templates").where("store_id", "=", storeId).where("id", "in", gone).execute())
            changed += gone.length
          }
          return changed
        })
      ),

    updateStatus: (storeId, name, language, update) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.query((k) =>
          k
            .updateTable("templates")
            .set({
              status: update.status,
              rejected_reason: update.rejectedReason,
              updated_at: now,
              ...(update.category !== undefined ? { category: update.category } : {})
            })
            .where("store_id", "=", storeId)
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

    deleteByName: (storeId, name) =>
      db
        .query((k) => k.deleteFrom("templates").where("store_id", "=", storeId).where("name", "=", name).executeTakeFirst())
        .pipe(Effect.map((result) => Number(result.numDeletedRows)))
  })
})

export const layer: Layer.Layer<TemplateRepo.TemplateRepo, never, Database> = Layer.effect(TemplateRepo.TemplateRepo, make)
