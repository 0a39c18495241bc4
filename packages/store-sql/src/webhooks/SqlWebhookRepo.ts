/**
 * The WebhookRepo and WebhookDeliveryRepo ports over `webhook_endpoints`, `webhook_events`
 * and `webhook_deliveries`. Endpoints and events are scoped by the tenant (store id, mode);
 * deliveries belong to an endpoint and are only listed through an endpoint of the caller's
 * tenant.
 *
 * Deleting an endpoint deletes its deliveries in the same transaction (the foreign key
 * cascades too). An attempt recorded for an endpoint deleted meanwhile is dropped instead
 * of failing on the foreign key: the insert selects from the endpoint it belongs to.
 *
 * `subscribers` runs once per tenant and event type of a batch of emitted events (once per
 * event outside a batch) and is compiled once; `insertEvents` writes a batch's events in one
 * multi-row INSERT, compiled once per row count. It selects the tenant's
 * enabled endpoints (a store has few) and filters the event types in memory, which is exact
 * where a LIKE on the JSON text would only approximate.
 */
import { type Tenant, type WebhookEndpoint, WebhookRepo } from "@switchboard/domain"
import { Clock, Effect, Layer } from "effect"
import type { Kysely } from "kysely"
import { Database } from "../Database.js"
import { findOne, findPage, scoped, scopedDelete, scopedUpdate, ownedBy } from "../internal/Scoped.js"
import * as Chunks from "../internal/Chunks.js"
import { multiRow, prepare } from "../internal/Prepared.js"
import type { Tables } from "../Tables.js"
import { deliveryColumns, endpointColumns, endpointSelect as columns, eventColumns, type WebhookDeliveriesTable } from "./Tables.js"

const toEndpoint = endpointColumns.fromRow

/** Delivery attempts to the tenant's endpoints, with their event's type. */
const attempts = (k: Kysely<Tables>, tenant: Tenant.Tenant) =>
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
    .where(ownedBy("ep", tenant))

const toAttempt = (row: WebhookDeliveriesTable & { readonly event_type: string }): WebhookEndpoint.ListedAttempt => ({
  ...deliveryColumns.fromRow(row),
  eventType: row.event_type
})

export const make: Effect.Effect<WebhookRepo.WebhookRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const enabledOfTenant = prepare((p: { storeId: string; mode: Tenant.Mode }) =>
    scoped(db.kysely, "webhook_endpoints", p).select(columns).where("status", "=", "enabled").orderBy("id")
  )

  /** Events, one row per (id, store_id, mode, type, data, created_at). */
  const insertEvents = multiRow(6, (rows) =>
    db.kysely
      .insertInto("webhook_events")
      .values(rows.map(([id, store_id, mode, type, data, created_at]) => ({ id, store_id, mode, type, data, created_at })))
  )

  return WebhookRepo.WebhookRepo.of({
    insertEndpoint: (tenant, endpoint) =>
      db
        .query((k) =>
          k
            .insertInto("webhook_endpoints")
            .values({ ...endpointColumns.toRow(endpoint), store_id: tenant.storeId, mode: tenant.mode })
            .execute()
        )
        .pipe(Effect.asVoid),

    findEndpoint: (tenant, id) => findOne(db, (k) => scoped(k, "webhook_endpoints", tenant).select(columns).where("id", "=", id), toEndpoint),

    listEndpoints: (tenant, page) => findPage(db, page, (k) => scoped(k, "webhook_endpoints", tenant).select(columns), toEndpoint),

    updateEndpoint: (tenant, id, patch) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        findOne(
          db,
          (k) =>
            scopedUpdate(k, "webhook_endpoints", tenant)
              .set({
                ...(patch.url !== undefined ? { url: patch.url } : {}),
                ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
                ...(patch.status !== undefined ? { status: patch.status } : {}),
                ...(patch.disabledReason !== undefined ? { disabled_reason: patch.disabledReason } : {}),
                updated_at: now
              })
              .where("id", "=", id)
              .returning(columns),
          toEndpoint
        )
      ),

    deleteEndpoint: (tenant, id) =>
      db.withTransaction(
        Effect.gen(function* () {
          yield* db.query((k) =>
            k
              .deleteFrom("webhook_deliveries")
              .where("endpoint_id", "in", scoped(k, "webhook_endpoints", tenant).select("id").where("id", "=", id))
              .execute()
          )
          const deleted = yield* db.query((k) => scopedDelete(k, "webhook_endpoints", tenant).where("id", "=", id).executeTakeFirst())
          return deleted.numDeletedRows > 0n
        })
      ),

    subscribers: (tenant, type) =>
      db
        .execute(enabledOfTenant({ storeId: tenant.storeId, mode: tenant.mode }))
        .pipe(Effect.map(({ rows }) => rows.map(toEndpoint).filter((endpoint) => endpoint.events.includes(type)))),

    insertEvents: (tenant, events) =>
      Chunks.forEach(events, 500, (group) =>
        db.execute(
          insertEvents(group.map((event) => [event.id, tenant.storeId, tenant.mode, event.type, eventColumns.toRow(event).data, event.createdAt]))
        )
      ).pipe(Effect.asVoid),

    listAttempts: (tenant, filter, page) =>
      findPage(
        db,
        page,
        (k) => {
          let q = attempts(k, tenant)
          if (filter.endpointId !== undefined) q = q.where("d.endpoint_id", "=", filter.endpointId)
          if (filter.eventId !== undefined) q = q.where("d.event_id", "=", filter.eventId)
          if (filter.outcome === "succeeded") q = q.where("d.status_code", ">=", 200).where("d.status_code", "<", 300)
          if (filter.outcome === "failed")
            q = q.where((eb) => eb.or([eb("d.status_code", "is", null), eb("d.status_code", "<", 200), eb("d.status_code", ">=", 300)]))
          return q
        },
        toAttempt,
        { by: "d.id", direction: "desc" }
      ),

    findAttempt: (tenant, id) => findOne(db, (k) => attempts(k, tenant).where("d.id", "=", id), toAttempt)
  })
})

export const makeDelivery: Effect.Effect<WebhookRepo.WebhookDeliveryRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return WebhookRepo.WebhookDeliveryRepo.of({
    getEndpoint: (id) => findOne(db, (k) => k.selectFrom("webhook_endpoints").select(columns).where("id", "=", id), toEndpoint),

    getEvent: (id) =>
      findOne(
        db,
        (k) => k.selectFrom("webhook_events").select(["id", "store_id", "mode", "type", "data", "created_at"]).where("id", "=", id),
        eventColumns.fromRow
      ),

    recordAttempt: (attempt) => {
      const row = deliveryColumns.toRow(attempt)
      return db
        .query((k) =>
          k
            .insertInto("webhook_deliveries")
            .columns(["id", "endpoint_id", "event_id", "attempt", "status_code", "error", "duration_ms", "created_at"])
            .expression((eb) =>
              eb
                .selectFrom("webhook_endpoints")
                .select((s) => [
                  s.val(row.id).as("id"),
                  "webhook_endpoints.id as endpoint_id",
                  s.val(row.event_id).as("event_id"),
                  s.val(row.attempt).as("attempt"),
                  s.val(row.status_code).as("status_code"),
                  s.val(row.error).as("error"),
                  s.val(row.duration_ms).as("duration_ms"),
                  s.val(row.created_at).as("created_at")
                ])
                .where("webhook_endpoints.id", "=", row.endpoint_id)
            )
            .execute()
        )
        .pipe(Effect.asVoid)
    }
  })
})

export const layer: Layer.Layer<WebhookRepo.WebhookRepo | WebhookRepo.WebhookDeliveryRepo, never, Database> = Layer.merge(
  Layer.effect(WebhookRepo.WebhookRepo, make),
  Layer.effect(WebhookRepo.WebhookDeliveryRepo, makeDelivery)
)
