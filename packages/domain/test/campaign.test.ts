/**
 * The campaign and recipient rules, without storage: the state machine of every status and
 * operation, status reports out of order and repeated, counters kept incrementally against
 * a recount, and how operator answers are classified.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  Campaign,
  CampaignLanes,
  CampaignRecipient,
  CampaignRecipients,
  CampaignRepo,
  Campaigns,
  Errors,
  JobQueue,
  MessagingRepo,
  Pagination,
  Store,
  TemplateRepo,
  Tenant,
  Time,
  Transactor,
  WebhookRepo
} from "@switchboard/domain"
import { Effect, Either, Layer, Schema, TestClock } from "effect"
import fc from "fast-check"

/** The time part of an id (10 Crockford base-32 characters after the prefix). */
const timeOf = (id: string): number => Array.from(id.slice(4, 14)).reduce((t, c) => t * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(c), 0)

const statuses = Campaign.Status.literals

describe("Campaign.transition", () => {
  const table: Record<Campaign.Operation, Partial<Record<Campaign.Status, Campaign.Status>>> = {
    update: { draft: "draft" },
    delete: { draft: "draft" },
    "add recipients to": { draft: "draft", scheduled: "scheduled" },
    "remove recipients from": { draft: "draft" },
    launch: { draft: "active" },
    activate: { scheduled: "active" },
    pause: { active: "paused" },
    "auto-pause": { active: "paused" },
    resume: { paused: "active" },
    complete: { active: "completed" },
    cancel: { draft: "cancelled", scheduled: "cancelled", active: "cancelled", paused: "cancelled" },
    retry: { completed: "active", paused: "active" }
  }

  for (const [operation, allowed] of Object.entries(table) as Array<[Campaign.Operation, Partial<Record<Campaign.Status, Campaign.Status>>]>) {
    it(`${operation}: allowed exactly from ${Object.keys(allowed).join(", ")}; refused elsewhere with InvalidState naming the status`, () => {
      for (const status of statuses) {
        const result = Campaign.transition(status, operation, { retryableFailures: true })
        if (allowed[status] !== undefined) {
          expect(result).toEqual(Either.right(allowed[status]))
        } else {
          expect(Either.isLeft(result)).toBe(true)
          const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
          expect(error).toBeInstanceOf(Errors.InvalidState)
          expect(error).toMatchObject({ resource: "campaign", status })
          expect(error.message).toContain(`'${status}'`)
        }
      }
      expect(Campaign.sources(operation)).toEqual(statuses.filter((s) => allowed[s] !== undefined))
    })
  }

  it("launch with scheduled_at in the future goes to scheduled", () => {
    expect(Campaign.transition("draft", "launch", { scheduledInFuture: true })).toEqual(Either.right("scheduled"))
  })

  it("retry without a retryable failure is refused, naming why", () => {
    const refused = Campaign.transition("completed", "retry", { retryableFailures: false })
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isLeft(refused)) expect(refused.left.message).toContain("no failed recipient can be retried")
  })
})

const progress = (
  status: CampaignRecipient.Status,
  sentAt: number | null = null,
  deliveredAt: number | null = null,
  readAt: number | null = null
): CampaignRecipient.Progress => ({
  status,
  sentAt,
  deliveredAt,
  readAt
})

describe("CampaignRecipient.advance", () => {
  it("moves forward only; a read before delivered sets all three times once", () => {
    const read = CampaignRecipient.advance(progress("accepted"), { status: "read", at: 30 })!
    expect(read).toMatchObject({ status: "read", sentAt: 30, deliveredAt: 30, readAt: 30 })
    expect(CampaignRecipient.advance(read, { status: "delivered", at: 20 })).toBeUndefined()
    expect(CampaignRecipient.advance(read, { status: "sent", at: 10 })).toBeUndefined()
    expect(CampaignRecipient.advance(read, { status: "read", at: 40 })).toBeUndefined()
    const sent = CampaignRecipient.advance(progress("sending"), { status: "sent", at: 5 })!
    expect(sent).toMatchObject({ status: "sent", sentAt: 5, deliveredAt: null })
  })

  it("failed is final; delivered or read messages never fail; skipped never changes", () => {
    const failed = CampaignRecipient.advance(progress("sent", 1), { status: "failed", at: 2, error: { code: 131026, title: "Undeliverable" } })!
    expect(failed).toMatchObject({ status: "failed", sentAt: 1, failure: { code: 131026, reason: "Undeliverable", retryable: false } })
    expect(CampaignRecipient.advance(failed, { status: "read", at: 3 })).toBeUndefined()
    expect(CampaignRecipient.advance(progress("delivered", 1, 2), { status: "failed", at: 3, error: { code: 131000, title: "x" } })).toBeUndefined()
    expect(CampaignRecipient.advance(progress("skipped"), { status: "sent", at: 1 })).toBeUndefined()
    expect(CampaignRecipient.advance(progress("sent", 1), { status: "played", at: 2 })).toBeUndefined()
  })

  it("a transient failure can be retried; 131050 cannot", () => {
    expect(
      CampaignRecipient.advance(progress("accepted"), { status: "failed", at: 1, error: { code: 131000, title: "x" } })!.failure?.retryable
    ).toBe(true)
    expect(
      CampaignRecipient.advance(progress("accepted"), { status: "failed", at: 1, error: { code: 131050, title: "x" } })!.failure?.retryable
    ).toBe(false)
  })

  it("a message that went out after a crash or a cancel still counts (pending, sending, cancelled move forward)", () => {
    for (const from of ["pending", "sending", "cancelled"] as const) {
      expect(CampaignRecipient.advance(progress(from), { status: "delivered", at: 9 })).toMatchObject({
        status: "delivered",
        sentAt: 9,
        deliveredAt: 9
      })
    }
  })

  it("property: whatever the order and repetition of reports, counters kept by deltas equal a recount and never go back", () => {
    const report = fc.record({
      status: fc.constantFrom("sent", "delivered", "read", "failed", "sent", "read"),
      at: fc.integer({ min: 1, max: 1000 }),
      code: fc.constantFrom(131026, 131000, 131050)
    })
    const start = fc.constantFrom<CampaignRecipient.Status>("pending", "sending", "accepted", "cancelled")
    fc.assert(
      fc.property(fc.array(fc.tuple(start, fc.array(report, { maxLength: 12 })), { minLength: 1, maxLength: 20 }), (recipients) => {
        const rows = recipients.map(([s]) => progress(s))
        let counters = CampaignRecipient.countAll(rows)
        const longest = Math.max(...recipients.map(([, r]) => r.length))
        for (let step = 0; step < longest; step++) {
          recipients.forEach(([, reports], i) => {
            const r = reports[step]
            if (r === undefined) return
            const next = CampaignRecipient.advance(rows[i], { status: r.status, at: r.at, error: { code: r.code, title: "t" } })
            if (next === undefined) return
            const before = counters
            counters = Campaign.addCounters(counters, CampaignRecipient.counterDelta(rows[i], next))
            rows[i] = next
            expect(counters.sent).toBeGreaterThanOrEqual(before.sent)
            expect(counters.delivered).toBeGreaterThanOrEqual(before.delivered)
            expect(counters.read).toBeGreaterThanOrEqual(before.read)
          })
          expect(counters).toEqual(CampaignRecipient.countAll(rows))
        }
        // cumulative: read implies delivered implies sent
        expect(counters.read).toBeLessThanOrEqual(counters.delivered)
        expect(counters.delivered).toBeLessThanOrEqual(counters.sent)
      }),
      { numRuns: 300 }
    )
  })
})

describe("operator answers", () => {
  it("classify refusals: template, throttled, opted out, retryable, permanent", () => {
    expect(CampaignRecipient.classifyRefusal(132015)).toBe("template")
    expect(CampaignRecipient.classifyRefusal(132016)).toBe("template")
    expect(CampaignRecipient.classifyRefusal(130429)).toBe("throttled")
    expect(CampaignRecipient.classifyRefusal(131056)).toBe("throttled")
    expect(CampaignRecipient.classifyRefusal(131050)).toBe("optedOut")
    expect(CampaignRecipient.classifyRefusal(131016)).toBe("retryable")
    expect(CampaignRecipient.classifyRefusal(131026)).toBe("permanent")
  })

  it("a rate limit is throttling; a 5xx or network failure leaves it unknown whether the operator took the message", () => {
    expect(
      CampaignLanes.sendResultOf(
        new Errors.OperatorUnavailable({ kind: "rate_limited", code: 130429, reason: "rate limited: throughput", retryAfterSeconds: 2 })
      )
    ).toEqual({
      _tag: "Throttled",
      scope: "number",
      retryAfterMs: 2000,
      code: 130429
    })
    expect(
      CampaignLanes.sendResultOf(
        new Errors.OperatorUnavailable({ kind: "rate_limited", code: 131056, reason: "rate limited: pair rate", retryAfterSeconds: 6 })
      )
    ).toMatchObject({ scope: "user" })
    expect(
      CampaignLanes.sendResultOf(
        new Errors.OperatorUnavailable({ kind: "rate_limited", code: 80007, reason: "rate limited: WABA", retryAfterSeconds: 60 })
      )
    ).toMatchObject({ scope: "account", retryAfterMs: 60_000 })
    expect(CampaignLanes.sendResultOf(new Errors.OperatorRejected({ code: 4, reason: "app limit" }))).toMatchObject({
      _tag: "Throttled",
      scope: "account"
    })
    // a bare HTTP 429 has no code: the whole account waits
    expect(CampaignLanes.sendResultOf(new Errors.OperatorUnavailable({ kind: "rate_limited", reason: "HTTP 429", retryAfterSeconds: 1 }))).toEqual({
      _tag: "Throttled",
      scope: "account",
      retryAfterMs: 1000
    })
    expect(
      CampaignLanes.sendResultOf(new Errors.OperatorUnavailable({ kind: "unreachable", code: 131016, reason: "HTTP 500: service unavailable" }))._tag
    ).toBe("Unknown")
    // a 5xx with a Retry-After header is still not a clear "not accepted"
    expect(
      CampaignLanes.sendResultOf(new Errors.OperatorUnavailable({ kind: "unreachable", reason: "HTTP 503: busy", retryAfterSeconds: 5 }))._tag
    ).toBe("Unknown")
    expect(CampaignLanes.sendResultOf(new Errors.OperatorRejected({ code: 131026, reason: "Undeliverable" }))).toEqual({
      _tag: "Refused",
      code: 131026,
      reason: "Undeliverable",
      refusal: "permanent"
    })
  })

  it.effect("recipient ids come in batches: unique, shaped as ids, in order, timed by the Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2031, 0, 2))
      const ids = yield* CampaignRecipients.recipientIds(10_000)
      expect(new Set(ids).size).toBe(10_000)
      expect(ids.every((id) => CampaignRecipient.RecipientId.is(id))).toBe(true)
      expect([...ids].sort()).toEqual(ids)
      // the time part is the Clock's: later batches sort after
      yield* TestClock.adjust("1 millis")
      const later = yield* CampaignRecipients.recipientIds(1)
      expect(later[0] > ids[ids.length - 1]).toBe(true)
      expect(timeOf(ids[0])).toBe(Date.UTC(2031, 0, 2))
      expect(timeOf(later[0])).toBe(Date.UTC(2031, 0, 2) + 1)
    })
  )

  it("a run of recipient ids is the start counted up by one, character for character, across every carry", () => {
    // the reference: each id written out in full, then the 16 digits incremented
    const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    const reference = (head: string, start: ReadonlyArray<number>, n: number) => {
      const digits = [...start]
      const ids: Array<string> = []
      for (let i = 0; i < n; i++) {
        ids.push(head + digits.map((d) => ALPHABET[d]).join(""))
        for (let k = 15; k >= 0; k--) {
          if (digits[k] < 31) {
            digits[k]++
            break
          }
          digits[k] = 0
        }
      }
      return { ids, digits }
    }
    let seed = 11
    const random = (m: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed % m
    }
    const starts = [
      Array.from({ length: 16 }, (_, i) => (i < 2 ? 15 : 31)), // carries all the way up
      [...Array.from({ length: 12 }, () => 3), 31, 31, 31, 30],
      Array.from({ length: 16 }, () => 0),
      ...Array.from({ length: 50 }, () => Array.from({ length: 16 }, (_, i) => (i > 12 ? 25 + random(7) : random(i < 2 ? 16 : 32))))
    ]
    for (const start of starts) {
      for (const n of [0, 1, 2, 33, 1_100]) {
        const digits = [...start]
        const expected = reference("rcp_01J0000000", start, n)
        expect(CampaignRecipients.idRun("rcp_01J0000000", digits, n)).toEqual(expected.ids)
        expect(digits).toEqual(expected.digits)
      }
    }
  })

  it("the frozen message: own parameters or the campaign's, callback data = recipient id", () => {
    const campaign = { templateName: "spring", templateLanguage: "en_US", parameters: ["A"] } as unknown as Campaign.Campaign
    expect(
      CampaignLanes.outboundFor(campaign, { id: "rcp_1" as CampaignRecipient.RecipientId, seq: 0, phone: "+15551230001", parameters: null })
    ).toEqual({
      type: "template",
      to: "+15551230001",
      template: { name: "spring", language: "en_US", parameters: ["A"] },
      callbackData: "rcp_1"
    })
    expect(
      CampaignLanes.outboundFor(campaign, { id: "rcp_2" as CampaignRecipient.RecipientId, seq: 1, phone: "+15551230002", parameters: ["B"] })
    ).toMatchObject({ template: { parameters: ["B"] } })
  })
})

const campaign = (overrides: Partial<Campaign.Campaign> = {}): Campaign.Campaign => ({
  id: Campaign.CampaignId.schema.pipe(Schema.decodeSync)("cmp_01JD0000000000000000000001"),
  storeId: "str_01JD0000000000000000000001" as Campaign.Campaign["storeId"],
  mode: "test",
  templateHeader: null,
  name: "Spring sale",
  templateName: "spring_sale",
  templateLanguage: "en_US",
  parameters: ["Ann"],
  headerParameters: [],
  buttonParameters: [],
  templateCategory: "MARKETING",
  templateComponents: [{ type: "BODY", text: "Hi {{1}}" }],
  messagesPerSecond: 50,
  status: "active",
  scheduledAt: null,
  phoneNumberId: "1234",
  pausedReason: null,
  limitedUntil: null,
  sendWindow: null,
  ...Campaign.zeroCounters,
  total: 3,
  pending: 1,
  sent: 2,
  launchedAt: Date.UTC(2030, 0, 1, 9),
  completedAt: null,
  cancelledAt: null,
  createdAt: Date.UTC(2030, 0, 1, 8),
  updatedAt: Date.UTC(2030, 0, 1, 9),
  ...overrides
})

describe("resources derived from the entities", () => {
  it("CampaignResource shows a campaign as the API always has: template nested, counters flat, ISO times, no tenant or send settings", () => {
    const json = Schema.encodeSync(Campaign.CampaignResource)(campaign())
    expect(Object.keys(json)).toEqual([
      "id",
      "name",
      "status",
      "template",
      "messages_per_second",
      "scheduled_at",
      "paused_reason",
      "limited_until",
      "send_window",
      "total",
      "pending",
      "skipped",
      "cancelled",
      "sent",
      "delivered",
      "read",
      "failed",
      "launched_at",
      "completed_at",
      "cancelled_at",
      "created_at",
      "updated_at"
    ])
    expect(json).toMatchObject({
      id: "cmp_01JD0000000000000000000001",
      template: { name: "spring_sale", language: "en_US", parameters: ["Ann"], header_parameters: [], buttons: [], category: "MARKETING" },
      messages_per_second: 50,
      total: 3,
      sent: 2,
      launched_at: "2030-01-01T09:00:00.000Z",
      completed_at: null
    })
    // and back: the public part of the entity
    const { storeId: _s, mode: _m, templateComponents: _c, phoneNumberId: _p, ...shown } = campaign()
    expect(Schema.decodeSync(Campaign.CampaignResource)(json)).toEqual(shown)
  })

  it("RecipientResource: snake_case keys, ISO times, failure nested; the add-recipients result sums its reasons", () => {
    const recipient: CampaignRecipient.Recipient = {
      id: CampaignRecipient.RecipientId.schema.pipe(Schema.decodeSync)("rcp_01JD0000000000000000000001"),
      campaignId: campaign().id,
      seq: 7,
      phone: "+15551230000",
      input: "+1 555 123 0000",
      customerId: null,
      parameters: null,
      status: "failed",
      nextAttemptAt: null,
      skipReason: null,
      failure: { code: 131026, reason: "Undeliverable", retryable: false },
      operatorMessageId: "wamid.1",
      sentAt: null,
      deliveredAt: null,
      readAt: null,
      updatedAt: Date.UTC(2030, 0, 1)
    }
    expect(Schema.encodeSync(CampaignRecipient.RecipientResource)(recipient)).toEqual({
      id: recipient.id,
      phone: "+15551230000",
      input: "+1 555 123 0000",
      customer_id: null,
      status: "failed",
      next_attempt_at: null,
      skip_reason: null,
      failure: { code: 131026, reason: "Undeliverable", retryable: false },
      operator_message_id: "wamid.1",
      parameters: null,
      sent_at: null,
      delivered_at: null,
      read_at: null,
      updated_at: "2030-01-01T00:00:00.000Z"
    })
    const added = { added: 5, total: 9, skipped: { opted_out: 1, duplicate: 2, invalid_number: 1, unknown_customer: 0 } }
    expect(Schema.encodeSync(CampaignRecipient.AddRecipientsResult)(added)).toEqual({
      added: 5,
      skipped: 4,
      total: 9,
      skipped_by_reason: { opted_out: 1, duplicate: 2, invalid_number: 1, unknown_customer: 0 }
    })
  })

  it("recipient pages have a typed cursor over seq: what we issue decodes, anything else is refused", () => {
    const cursor = Pagination.Cursor(CampaignRecipient.Position)
    const text = Schema.encodeSync(cursor)(41)
    expect(text).toBe(btoa("seq:41").replace(/=+$/, ""))
    expect(Schema.decodeSync(cursor)(text)).toBe(41)
    for (const bad of ["!!", btoa("seq:x"), btoa("cmp_01JD0000000000000000000001")])
      expect(Either.isLeft(Schema.decodeEither(cursor)(bad))).toBe(true)
  })
})

describe("time through Clock", () => {
  it.effect("a launch schedules only when scheduled_at lies ahead of the Clock", () =>
    Effect.gen(function* () {
      const at = Date.UTC(2030, 5, 1, 12)
      const c = campaign({ status: "draft", scheduledAt: at })
      yield* TestClock.setTime(at - 1)
      expect(Campaign.scheduledInFuture(c, yield* Time.now)).toBe(true)
      expect(Campaign.transition(c.status, "launch", { scheduledInFuture: Campaign.scheduledInFuture(c, yield* Time.now) })).toEqual(
        Either.right("scheduled")
      )
      yield* TestClock.adjust("1 millis")
      expect(Campaign.scheduledInFuture(c, yield* Time.now)).toBe(false)
      expect(Campaign.transition(c.status, "launch", { scheduledInFuture: Campaign.scheduledInFuture(c, yield* Time.now) })).toEqual(
        Either.right("active")
      )
      expect(Campaign.scheduledInFuture(campaign({ scheduledAt: null }), yield* Time.now)).toBe(false)
    })
  )

  it.effect("campaign ids are timed by the Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2032, 2, 3))
      const id = yield* Campaign.CampaignId.generate
      expect(Campaign.CampaignId.is(id)).toBe(true)
      expect(timeOf(id)).toBe(Date.UTC(2032, 2, 3))
    })
  )
})

describe("path ids", () => {
  /** A port every method of which fails the test: reaching it means a query was made. */
  const unreachable = <S>(tag: { readonly key: string }) =>
    new Proxy({}, { get: (_, name) => () => Effect.dieMessage(`${tag.key}.${String(name)} was reached`) }) as S
  const noStorage = Layer.mergeAll(
    Layer.succeed(CampaignRepo.CampaignRepo, unreachable(CampaignRepo.CampaignRepo)),
    Layer.succeed(TemplateRepo.TemplateRepo, unreachable(TemplateRepo.TemplateRepo)),
    Layer.succeed(MessagingRepo.CustomerRepo, unreachable(MessagingRepo.CustomerRepo)),
    Layer.succeed(MessagingRepo.OptOutRepo, unreachable(MessagingRepo.OptOutRepo)),
    Layer.succeed(WebhookRepo.WebhookRepo, unreachable(WebhookRepo.WebhookRepo)),
    Layer.succeed(JobQueue.JobQueue, unreachable(JobQueue.JobQueue)),
    Layer.succeed(Transactor.Transactor, unreachable(Transactor.Transactor))
  )

  it.effect("a malformed campaign id answers 404 resource_not_found on every route without a query", () =>
    Effect.gen(function* () {
      const { store } = yield* Store.make({ name: "Shop" })
      const caller: Tenant.Caller = { store, tenant: { storeId: store.id, mode: "test" } }
      for (const raw of ["nope", "cmp_short", "rcp_01JD0000000000000000000001", "CMP_01JD0000000000000000000001"]) {
        const routes: Array<Effect.Effect<unknown, unknown, any>> = [
          Campaigns.get(raw),
          Campaigns.update(raw, {}),
          Campaigns.remove(raw),
          Campaigns.launch(raw),
          Campaigns.pause(raw),
          Campaigns.resume(raw),
          Campaigns.cancel(raw),
          Campaigns.retry(raw),
          Campaigns.recalculate(raw),
          CampaignRecipients.addRecipients(raw, { phones: ["+15551230000"], customerIds: [] }),
          CampaignRecipients.listRecipients(raw, { limit: 10 })
        ]
        for (const route of routes) {
          const failed = yield* Effect.flip(Effect.provideService(route, Tenant.CurrentStore, caller))
          expect(failed).toEqual(new Errors.ResourceNotFound({ resource: "campaign", id: raw }))
        }
      }
    }).pipe(Effect.provide(noStorage))
  )
})
