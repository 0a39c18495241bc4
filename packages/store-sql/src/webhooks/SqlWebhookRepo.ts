/**
 * The WebhookRepo port over `webhook_endpoints`, `webhook_events` and `webhook_deliveries`.
 * Endpoints and events are scoped by (store id, mode); deliveries belong to an endpoint and
 * are only listed through an endpoint of the caller's scope.
 *
 * Deleting an endpoint deletes its deliveries in the same transaction (the foreign key
 * cascades too). An attempt recorded for an endpoint deleted meanwhile is dropped instead
 * of failing on the foreign key: the insert selects from the endpoint it belongs to.
 *
 * `subscribers` runs on every emitted event and is compiled once. It selects the scope's
 * enabled endpoints (a store has few) and filters the event types in memory, which is exact
 * where a LIKE on the JSON text would only approximate.
 */
import { Pagination, type Tenant, type WebhookEndpoint, WebhookRepo } from "@switchboard/domain"
import { Clock, Effect, Layer, Option } from "effect"
import type { Selectable } from "kysely"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"
import type { WebhookEndpointsTable } from "./Tables.js"

type EndpointRow = Selectable<WebhookEndpointsTable>

const endpointColumns = [
  "id",
  "store_id",
  "mode",
  "url",
  "events",
  "secret",
  "status",
  "disabled_reason",
  "created_at",
  "updated_at"
] as const

export const toEndpoint = (row: EndpointRow): WebhookEndpoint.WebhookEndpoint => ({
  id: row.id,
  storeId: row.store_id,
  mode: row.mode,
  url: row.url,
  events: JSON.parse(row.events) as ReadonlyArray<WebhookEndpoint.EventType>,
  secret: row.secret,
  status: row.status as WebhookEndpoint.EndpointStatus,
  disabledReason: row.disabled_reason,
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at))
})

export const make: Effect.Effect<WebhookRepo.WebhookRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const enabledOfScope = prepare((p: { storeId: string; mode: Tenant.Mode }) =>
    db.kysely
      .selectFrom("webhook_endpoints")
      .select(endpointColumns)
      .where("store_id", "=", p.storeId)
      .where("mode", "=", p.mode)
      .where("status", "=", "enabled")
      .orderBy("id")
  )

  const firstEndpoint = (row: EndpointRow | undefined) => Option.map(Option.fromNullable(row), toEndpoint)

  return WebhookRepo.WebhookRepo.of({
    insertEndpoint: (endpoint) =>
      db
        .query((k) =>
          k
            .insertInto("webhook_endpoints")
            .values({
              id: endpoint.id,
              store_id: endpoint.storeId,
              mode: endpoint.mode,
              url: endpoint.url,
              events: JSON.stringify(endpoint.events),
              secret: endpoint.secret,
              status: endpoint.status,
              disabled_reason: endpoint.disabledReason,
              created_at: endpoint.createdAt.getTime(),
              updated_at: endpoint.updatedAt.getTime()
            })
            .execute()
        )
        .pipe(Effect.asVoid),

    findEndpoint: (scope, id) =>
      db
        .query((k) =>
          k
            .selectFrom("webhook_endpoints")
            .select(endpointColumns)
            .where("store_id", "=", scope.storeId)
            .where("mode", "=", scope.mode)
            .where("id", "=", id)
            .executeTakeFirst()
        )
        .pipe(Effect.map(firstEndpoint)),

    getEndpoint: (id) =>
      db
        .query((k) => k.selectFrom("webhook_endpoints").select(endpointColumns).where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map(firstEndpoint)),

    listEndpoints: (scope, page) =>
      db
        .query((k) =>
          k
            .selectFrom("webhook_endpoints")
            .select(endpointColumns)
            .where("store_id", "=", scope.storeId)
            .where("mode", "=", scope.mode)
            .$if(page.after !== undefined, (q) => q.where("id", "<", page.after!))
            .orderBy("id", "desc")
            .limit(page.limit + 1)
            .execute()
        )
        .pipe(Effect.map((rows) => Pagination.sliceOf(rows.map(toEndpoint), page.limit))),

    updateEndpoint: (scope, id, patch) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const row = yield* db.query((k) =>
          k
            .updateTable("webhook_endpoints")
            .set({
              ...(patch.url !== undefined ? { url: patch.url } : {}),
              ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
              ...(patch.status !== undefined ? { status: patch.status } : {}),
              ...(patch.disabledReason !== undefined ? { disabled_reason: patch.disabledReason } : {}),
              updated_at: now
            })
            .where("store_id", "=", scope.storeId)
            .where("mode", "=", scope.mode)
            .where("id", "=", id)
            .returning(endpointColumns)
            .executeTakeFirst()
        )
        return firstEndpoint(row)
      }),

    deleteEndpoint: (scope, id) =>
      db.withTransaction(
        Effect.gen(function* () {
          yield* db.query((k) =>
            k
              .deleteFrom("webhook_deliveries")
              .where("endpoint_id", "in", (eb) =>
                eb
                  .selectFrom("webhook_endpoints")
                  .select("id")
                  .where("store_id", "=", scope.storeId)
                  .where("mode", "=", scope.mode)
                  .where("id", "=", id)
              )
              .execute()
          )
          const deleted = yield* db.query((k) =>
            k
              .deleteFrom("webhook_endpoints")
              .where("store_id", "=", scope.storeId)
              .where("mode", "=", scope.mode)
              .where("id", "=", id)
              .executeTakeFirst()
          )
          return deleted.numDeletedRows > 0n
        })
      ),

    subscribers: (scope, type) =>
      db
        .execute(enabledOfScope({ storeId: scope.storeId, mode: scope.mode }))
        .pipe(Effect.map(({ rows }) => rows.map(toEndpoint).filter((endpoint) => endpoint.events.includes(type)))),

    insertEvent: (event) =>
      db
        .query((k) =>
          k
            .insertInto("webhook_events")
            .values({
              id: event.id,
              store_id: event.storeId,
              mode: event.mode,
              type: event.type,
              data: JSON.stringify(event.data ?? null),
              created_at: event.createdAt.getTime()
            })
            .execute()
        )
        .pipe(Effect.asVoid),

    getEvent: (id) =>
      db
        .query((k) =>
          k
            .selectFrom("webhook_events")
            .select(["id", "store_id", "mode", "type", "data", "created_at"])
            .where("id", "=", id)
            .executeTakeFirst()
        )
        .pipe(
          Effect.map((row) =>
            Option.map(
              Option.fromNullable(row),
              (r): WebhookEndpoint.Event => ({
                id: r.id,
                storeId: r.store_id,
                mode: r.mode,
                type: r.type as WebhookEndpoint.EventType,
                data: JSON.parse(r.data),
                createdAt: new Date(Number(r.created_at))
              })
            )
          )
        ),

    recordAttempt: (attempt) =>
      db
        .query((k) =>
          k
            .insertInto("webhook_deliveries")
            .columns(["id", "endpoint_id", "event_id", "attempt", "status_code", "error", "duration_ms", "created_at"])
            .expression((eb) =>
              eb
                .selectFrom("webhook_endpoints")
                .select((s) => [
                  s.val(attempt.id).as("id"),
                  "webhook_endpoints.id as endpoint_id",
                  s.val(attempt.eventId).as("event_id"),
                  s.val(attempt.attempt).as("attempt"),
                  s.val(attempt.statusCode).as("status_code"),
                  s.val(attempt.error).as("error"),
                  s.val(Math.round(attempt.durationMs)).as("duration_ms"),
                  s.val(attempt.createdAt.getTime()).as("created_at")
                ])
                .where("webhook_endpoints.id", "=", attempt.endpointId)
            )
            .execute()
        )
        .pipe(Effect.asVoid),

    listAttempts: (scope, endpointId, page) =>
      db
        .query((k) =>
          k
            .selectFrom("webhook_deliveries as d")
            .innerJoin("webhook_endpoints as ep", "ep.id", "d.endpoint_id")
            .innerJoin("webhook_events as ev", "ev.id", "d.event_id")
            .select([
              "d.id",
              "d.endpoint_id",
              "d.event_id",
              "d.attempt",
              "d.status_code",
              "d.error",
              "d.duration_ms",
              "d.created_at",
              "ev.type as event_type"
            ])
            .where("d.endpoint_id", "=", endpointId)
            .where("ep.store_id", "=", scope.storeId)
            .where("ep.mode", "=", scope.mode)
            .$if(page.after !== undefined, (q) => q.where("d.id", "<", page.after!))
            .orderBy("d.id", "desc")
            .limit(page.limit + 1)
            .execute()
        )
        .pipe(
          Effect.map((rows) =>
            Pagination.sliceOf(
              rows.map((r) => ({
                id: r.id,
                endpointId: r.endpoint_id,
                eventId: r.event_id,
                attempt: Number(r.attempt),
                statusCode: r.status_code === null ? null : Number(r.status_code),
                error: r.error,
                durationMs: Number(r.duration_ms),
                createdAt: new Date(Number(r.created_at)),
                eventType: r.event_type
              })),
              page.limit
            )
          )
        )
  })
})

export const layer: Layer.Layer<WebhookRepo.WebhookRepo, never, Database> = Layer.effect(WebhookRepo.WebhookRepo, make)
