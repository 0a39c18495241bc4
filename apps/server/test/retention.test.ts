/**
 * Retention (README, "Retention"), on SQLite and PostgreSQL.
 *
 * 1. The store's pruning, on rows written with known times: only finished rows older than
 *    the cut go (processed inbox entries, done and dead jobs, delivery attempts, completed
 *    idempotency keys); an unprocessed entry, a queued or running job and a key in progress
 *    stay however old; a batch deletes at most its limit, and `Retention.prune` goes on
 *    until a batch comes back short.
 * 2. The server with short periods: after a sandbox campaign, its status webhooks and their
 *    caller webhook deliveries, the four tables shrink to what is younger than their periods,
 *    and the campaign's own records stay.
 */
import { Retention } from "@switchboard/domain"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { DIALECTS, eventually } from "@switchboard/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, startReceiver, startServer } from "./harness.js"
import { approvedTemplate } from "./steps.js"
import { run as execSql } from "./migrationHarness.js"

const DAY = 86_400_000

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`retention (${dialect.name})`, () => {
    it("prunes only finished rows older than the cut, a batch at a time; unfinished rows stay however old", async () => {
      const database = await dialect.createDatabase()
      try {
        const layer = dialect.id === "postgres" ? StorePostgres.layer({ url: database.url }) : StoreSqlite.layer({ filename: database.url })
        const runWith = <A>(effect: Effect.Effect<A, never, Retention.RetentionStore>) => Effect.runPromise(Effect.provide(effect, layer))
        await runWith(Effect.void) // migrations
        const now = Date.now()
        const old = now - 10 * DAY
        const young = now - 60_000
        const jobs = (prefix: string, status: string, at: number, n: number) =>
          Array.from(
            { length: n },
            (_, i) =>
              `INSERT INTO jobs (id, kind, payload, status, run_at, attempt, created_at, updated_at) VALUES ('${prefix}${i}', 'k', '{}', '${status}', ${at}, 1, ${at}, ${at})`
          )
        await execSql(dialect, database.url, [
          "INSERT INTO stores (id, name, created_at, sandbox_waba_id, sandbox_phone_number_id, sandbox_display_phone) VALUES ('str_r', 'R', 1, '100000000000001', '200000000000001', '15550000001')",
          `INSERT INTO webhook_endpoints (id, store_id, mode, url, events, secret, status, disabled_reason, created_at, updated_at) VALUES ('whe_x', 'str_r', 'test', 'https://example.com/hook', '[]', 's', 'enabled', NULL, ${old}, ${old})`,
          `INSERT INTO webhook_events (id, store_id, mode, type, data, created_at) VALUES ('evt_x', 'str_r', 'test', 'message.status', '{}', ${old})`,
          `INSERT INTO inbox (id, kind, body, received_at, processed_at, outcome) VALUES ('in_old', 'sandbox', '{}', ${old}, ${old}, 'applied')`,
          `INSERT INTO inbox (id, kind, body, received_at, processed_at, outcome) VALUES ('in_young', 'sandbox', '{}', ${young}, ${young}, 'applied')`,
          `INSERT INTO inbox (id, kind, body, received_at, processed_at, outcome) VALUES ('in_pending', 'sandbox', '{}', ${old}, NULL, NULL)`,
          ...jobs("done_old_", "done", old, 1200),
          ...jobs("dead_old_", "dead", old, 3),
          ...jobs("done_young_", "done", young, 2),
          ...jobs("queued_old_", "queued", old, 2),
          ...jobs("running_old_", "running", old, 2),
          `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, attempt, status_code, error, duration_ms, created_at) VALUES ('d_old', 'whe_x', 'evt_x', 1, 500, NULL, 3, ${old})`,
          `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, attempt, status_code, error, duration_ms, created_at) VALUES ('d_young', 'whe_x', 'evt_x', 2, 200, NULL, 3, ${young})`,
          `INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status, response_body, created_at, updated_at) VALUES ('s', 'k_old', 'h', 'completed', 201, '{}', ${old}, ${old})`,
          `INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status, response_body, created_at, updated_at) VALUES ('s', 'k_young', 'h', 'completed', 201, '{}', ${young}, ${young})`,
          `INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status, response_body, created_at, updated_at) VALUES ('s', 'k_busy', 'h', 'in_progress', NULL, NULL, ${old}, ${old})`
        ])

        // one batch deletes at most its limit
        const first = await runWith(Effect.flatMap(Retention.RetentionStore, (s) => s.prune("jobs", now - DAY, Retention.BATCH)))
        expect(first).toBe(Retention.BATCH)

        const deleted = await runWith(Retention.prune({ inbox: DAY, jobs: DAY, webhook_deliveries: DAY, idempotency_keys: DAY }))
        expect(deleted).toEqual({ inbox: 1, jobs: 1203 - Retention.BATCH, webhook_deliveries: 1, idempotency_keys: 1 })

        const ids = async (sql: string) => (await execSql(dialect, database.url, [sql])).map((r) => r.id ?? r.key).sort()
        expect(await ids("SELECT id FROM inbox")).toEqual(["in_pending", "in_young"])
        expect(await ids("SELECT id FROM jobs")).toEqual([
          "done_young_0",
          "done_young_1",
          "queued_old_0",
          "queued_old_1",
          "running_old_0",
          "running_old_1"
        ])
        expect(await ids("SELECT id FROM webhook_deliveries")).toEqual(["d_young"])
        expect(await ids("SELECT key FROM idempotency_keys")).toEqual(["k_busy", "k_young"])
        const counts = await runWith(Effect.flatMap(Retention.RetentionStore, (s) => Effect.all(Retention.TABLES.map((t) => s.count(t)))))
        expect(counts).toEqual([2, 6, 1, 2])
      } finally {
        await database.drop()
      }
    }, 120_000)

    describe("a server with periods of 2 s", () => {
      let h: Harness
      let shop: CreatedStore
      let receiver: Awaited<ReturnType<typeof startReceiver>>
      const PERIOD = 2000
      beforeAll(async () => {
        receiver = await startReceiver()
        h = await startServer(
          {
            SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
            SWITCHBOARD_RETAIN_INBOX: "2s",
            SWITCHBOARD_RETAIN_JOBS: "2s",
            SWITCHBOARD_RETAIN_DELIVERIES: "2s",
            SWITCHBOARD_RETAIN_IDEMPOTENCY: "2s",
            SWITCHBOARD_RETENTION_INTERVAL: "1s"
          },
          { dialect }
        )
        shop = h.createStore("Retained")
      }, 120_000)
      afterAll(async () => {
        await h?.stop()
        receiver?.server.close()
      })

      it("after a sandbox campaign and its webhooks, the operational tables keep only what is younger than 2 s; the campaign's records stay", async () => {
        const key = shop.test_key
        const hook = await h.request("POST", "/chat/webhooks", key, {
          url: receiver.url,
          events: ["campaign.launched", "campaign.progress", "campaign.completed", "template.status"]
        })
        expect(hook.status, hook.text).toBe(201)
        await approvedTemplate(h.request, key, "kept_short", { headers: { "idempotency-key": "template-1" } })
        const campaign = (
          await h.request("POST", "/chat/campaigns", key, {
            name: "Short-lived",
            template: { name: "kept_short", language: "en_US", parameters: ["x"] }
          })
        ).json
        const phones = ["+15557010011", "+15557010012", "+15557010013", "+15557010014"]
        expect((await h.request("POST", `/chat/campaigns/${campaign.id}/recipients`, key, { phones })).status).toBe(201)
        expect((await h.request("POST", `/chat/campaigns/${campaign.id}/launch`, key, {}, { "idempotency-key": "launch-1" })).status).toBe(200)
        await eventually(
          async () => {
            const c = (await h.request("GET", `/chat/campaigns/${campaign.id}`, key)).json
            return c.status === "completed" && c.read === phones.length ? c : undefined
          },
          "campaign read by everyone",
          30_000
        )
        await eventually(async () => receiver.received.length >= 2, "caller webhook deliveries", 20_000)
        const delivered = receiver.received.length

        const count = async (sql: string) => Number((await h.query<{ n: number | string }>(sql))[0].n)
        // what the campaign wrote is there now: status webhooks, their jobs, deliveries, the keys
        expect(await count("SELECT count(*) AS n FROM inbox")).toBeGreaterThan(0)
        expect(await count("SELECT count(*) AS n FROM webhook_deliveries")).toBeGreaterThan(0)

        // a few passes later: the campaign's inbox entries, deliveries and keys outlived 2 s and are
        // gone (nothing new came meanwhile), and no finished job is older than its period
        const processedInbox = "SELECT count(*) AS n FROM inbox WHERE processed_at IS NOT NULL"
        await eventually(
          async () =>
            (await count(processedInbox)) === 0 &&
            (await count("SELECT count(*) AS n FROM webhook_deliveries")) === 0 &&
            (await count("SELECT count(*) AS n FROM idempotency_keys")) === 0,
          "the campaign's operational rows pruned",
          20_000
        )
        const cut = Date.now() - PERIOD - 2500
        expect(await count(`SELECT count(*) AS n FROM jobs WHERE status IN ('done', 'dead') AND updated_at < ${cut}`)).toBe(0)

        // business records stay: the campaign, its recipients, the caller events
        const kept = (await h.request("GET", `/chat/campaigns/${campaign.id}`, key)).json
        expect(kept).toMatchObject({ status: "completed", read: phones.length })
        expect((await h.request("GET", `/chat/campaigns/${campaign.id}/recipients?limit=100`, key)).json.data).toHaveLength(phones.length)
        expect(await count(`SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = '${campaign.id}' AND status = 'read'`)).toBe(
          phones.length
        )
        expect(await count("SELECT count(*) AS n FROM webhook_events")).toBeGreaterThanOrEqual(delivered)
        // a replay after the key's period runs again rather than answering the stored response
        const replay = await h.request("POST", `/chat/campaigns/${campaign.id}/launch`, key, {}, { "idempotency-key": "launch-1" })
        expect(replay.headers.get("idempotent-replayed")).toBeNull()
        expect(replay.status).toBe(409)
      }, 120_000)
    })
  })
