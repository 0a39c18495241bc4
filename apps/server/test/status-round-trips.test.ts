/**
 * Database round trips of status webhooks, counted at the store's one choke point
 * (`Database.query`/`execute`: one statement each; BEGIN and COMMIT aside). A batch of the
 * inbox (`MessageStatusBatches.onMessageStatuses`, which writes its caller events as one
 * batch) costs a few statements whatever its size: the messages read (and locked), advanced
 * in one UPDATE, one subscribers lookup, the events in one INSERT, their deliveries in one.
 * Applied one report at a time (`MessagingEvents.onMessageStatus`), each status costs
 * several. Printed for the record; asserted as bounds that a statement per status breaks.
 * SQLite advances each changed row by a statement of its own, compiled once
 * (`SqlDialect.updateFromValues`: its UPDATE … FROM reads the whole table), on the connection
 * in this process: no round trip, and at most one statement per changed row, not per status.
 */
import { it } from "@effect/vitest"
import {
  CampaignStatusReports,
  Message,
  MessageStatusBatches,
  MessagingEvents,
  MessagingRepo,
  Store,
  StoreRepo,
  type Tenant,
  Transactor,
  type WebhookEvent,
  WebhookEndpoint,
  WebhookRepo
} from "@switchboard/domain"
import { Database, Repositories, SqlDialect } from "@switchboard/store-sql"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { postgresAvailable, testDatabase } from "@switchboard/testing"
import { activeCampaign, campaignReport, laneRepo } from "@switchboard/testing/contracts"
import { Effect, Layer, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"

const MESSAGES = 100

/** Statements issued through the Database service since the last reset. */
const statements = { n: 0 }

/** The Database service of `base`, counting each statement it runs. */
const counted = (base: Layer.Layer<Database.Database | SqlDialect.SqlDialect, unknown>) => {
  const database = Layer.effect(
    Database.Database,
    Effect.map(Database.Database, (db) => {
      const tick = Effect.sync(() => void statements.n++)
      return {
        ...db,
        query: (f) => Effect.zipRight(tick, db.query(f)),
        queryUnique: (f) => Effect.zipRight(tick, db.queryUnique(f)),
        execute: (q) => Effect.zipRight(tick, db.execute(q))
      } satisfies Database.DatabaseShape
    })
  )
  // merged, the counting service replaces the base's (same tag); `base` is built once
  return Repositories.layer.pipe(Layer.provide(Layer.merge(base, Layer.provide(database, base))))
}

const sqliteLayer = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "sb-round-trips-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ),
    (dir) => counted(StoreSqlite.layerDatabase({ filename: join(dir, "store.sqlite") }))
  )
)
const postgresLayer = Layer.unwrapScoped(Effect.map(testDatabase, (url) => counted(StorePostgres.layerDatabase({ url }))))

/** A store with a `message.status` endpoint on its test side and `MESSAGES` accepted messages, twice over. */
const setUp = Effect.gen(function* () {
  const { store, keys } = yield* Store.make({ name: "Round trips", live: null })
  yield* (yield* StoreRepo.StoreRepo).create(store, keys)
  const tenant: Tenant.Tenant = { storeId: store.id, mode: "test" }
  const now = Date.now()
  yield* (yield* WebhookRepo.WebhookRepo).insertEndpoint(tenant, {
    id: yield* WebhookEndpoint.WebhookEndpointId.generate,
    storeId: store.id,
    mode: "test",
    url: "https://example.com/hooks",
    events: ["message.status"],
    secret: WebhookEndpoint.newSecret(),
    status: "enabled",
    disabledReason: null,
    createdAt: now,
    updatedAt: now
  })
  const messages = (label: string) =>
    Effect.forEach(
      Array.from({ length: MESSAGES }, (_, i) => i),
      (i) =>
        Effect.gen(function* () {
          const message: Message.Message = {
            id: yield* Message.MessageId.generate,
            storeId: store.id,
            mode: "test",
            to: `+1555${String(i).padStart(7, "0")}`,
            type: "text",
            content: { text: { body: "hi" } },
            status: "accepted",
            operatorMessageId: `wamid.${label}.${store.id}.${i}`,
            error: null,
            flowToken: null,
            createdAt: now,
            updatedAt: now
          }
          yield* (yield* MessagingRepo.MessageRepo).insert(tenant, message)
          return message
        })
    )
  return { store, tenant, oneByOne: yield* messages("one"), batched: yield* messages("batch") }
})

/** sent, delivered and read for every message, and a duplicate of each read: 4 statuses a message. */
const reportsOf = (store: Store.Store, messages: ReadonlyArray<Message.Message>) =>
  ["sent", "delivered", "read", "read"].flatMap((status, n) =>
    messages.map(
      (m): WebhookEvent.MessageStatus => ({
        _tag: "MessageStatus",
        phoneNumberId: store.sandbox.phoneNumberId,
        messageId: m.operatorMessageId!,
        status,
        timestamp: 1_700_000_000_000 + n,
        recipientId: m.to.slice(1),
        callbackData: m.id,
        error: null
      })
    )
  )

/** The statements the one advance of a batch takes on `dialect`: one, or one per changed row where UPDATE … FROM VALUES is not used. */
const advanceStatements = (dialect: SqlDialect.SqlDialectShape, rows: number) => (dialect.updateFromValues ? 1 : rows)

const roundTrips = (dialect: string) =>
  Effect.gen(function* () {
    const { store, oneByOne, batched } = yield* setUp
    const tx = yield* Transactor.Transactor

    statements.n = 0
    for (const event of reportsOf(store, oneByOne)) yield* tx.withTransaction(MessagingEvents.onMessageStatus(store, event))
    const single = statements.n

    const items = reportsOf(store, batched).map((event) => ({ store, kind: "sandbox" as const, event }))
    statements.n = 0
    yield* tx.withTransaction(MessageStatusBatches.onMessageStatuses(items))
    const batch = statements.n

    const repo = yield* MessagingRepo.MessageRepo
    for (const m of [...oneByOne, ...batched]) {
      const row = yield* repo.findById({ storeId: store.id, mode: "test" }, m.id)
      expect(row._tag === "Some" && row.value.status).toBe("read")
    }
    const perStatus = (n: number) => (n / items.length).toFixed(3)
    process.stdout.write(
      `${dialect}: ${items.length} statuses of ${MESSAGES} messages: one report at a time ${single} statements (${perStatus(single)} a status), as one batch ${batch} (${perStatus(batch)} a status)\n`
    )
    // the batch: read, advance, one subscribers lookup, the events, their deliveries
    expect(batch).toBeLessThanOrEqual(4 + advanceStatements(dialect === "sqlite" ? SqlDialect.sqlite : SqlDialect.postgres, MESSAGES))
    expect(single).toBeGreaterThanOrEqual(items.length * 2)
  })

/** The same for campaign sends: sent, delivered, read and a duplicate read of each of `MESSAGES` claimed recipients. */
const recipientRoundTrips = (dialect: string) =>
  Effect.gen(function* () {
    const tx = yield* Transactor.Transactor
    const claimed = Effect.gen(function* () {
      const made = yield* activeCampaign(MESSAGES)
      const ids = (yield* (yield* laneRepo).claim(made.campaign, { laneAttempt: "job_r:1", limit: MESSAGES, now: Date.now() })).recipients.map(
        (r) => r.id
      )
      return { ...made, reports: ["sent", "delivered", "read", "read"].flatMap((status) => ids.map((id) => campaignReport(made.store, id, status))) }
    })
    const one = yield* claimed
    statements.n = 0
    for (const event of one.reports) yield* tx.withTransaction(CampaignStatusReports.onRecipientStatus(one.store, event))
    const single = statements.n
    const batched = yield* claimed
    statements.n = 0
    yield* tx.withTransaction(
      CampaignStatusReports.onRecipientStatuses(batched.reports.map((event) => ({ store: batched.store, kind: "sandbox" as const, event })))
    )
    const batch = statements.n
    const counters = Option.getOrThrow(yield* (yield* laneRepo).get(batched.campaign.id))
    expect(counters.read).toBe(MESSAGES)
    const perStatus = (n: number) => (n / one.reports.length).toFixed(3)
    process.stdout.write(
      `${dialect}: ${one.reports.length} campaign statuses of ${MESSAGES} recipients: one report at a time ${single} statements (${perStatus(single)} a status), as one batch ${batch} (${perStatus(batch)} a status)\n`
    )
    // the batch: read, advance, one counter delta
    expect(batch).toBeLessThanOrEqual(2 + advanceStatements(dialect === "sqlite" ? SqlDialect.sqlite : SqlDialect.postgres, MESSAGES))
    expect(single).toBeGreaterThanOrEqual(one.reports.length)
  })

describe("status webhook round trips", () => {
  it.effect("SQLite: a batch of statuses costs a few statements and one per changed message, not some per status", () =>
    Effect.provide(roundTrips("sqlite"), sqliteLayer)
  )
  it.effect("SQLite: a batch of campaign statuses costs a few statements and one per changed recipient", () =>
    Effect.provide(recipientRoundTrips("sqlite"), sqliteLayer)
  )
  it.effect.skipIf(!postgresAvailable)("PostgreSQL: a batch of campaign statuses costs a few statements", () =>
    Effect.provide(recipientRoundTrips("postgres"), postgresLayer)
  )
  it.effect.skipIf(!postgresAvailable)("PostgreSQL: a batch of statuses costs a few statements, not some per status", () =>
    Effect.provide(roundTrips("postgres"), postgresLayer)
  )
})
