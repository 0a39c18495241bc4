/**
 * The call rules, without storage: the call state machine for every status, operation and
 * direction (table and properties), the permission and its request budget across the 24-hour
 * and 7-day boundaries on `TestClock`, the budget's compare-and-set under 100 concurrent
 * requests, and the SDP checks.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  Call,
  CallInsights,
  CallPermission,
  CallPermissions,
  CallRepo,
  CallSettings,
  Errors,
  JobQueue,
  Sdp,
  type Tenant,
  Time,
  WebhookRepo
} from "@switchboard/domain"
import { Effect, Either, Layer, Option, Schema, TestClock } from "effect"
import fc from "fast-check"

const statuses = Call.Status.literals
const operations: ReadonlyArray<Call.Operation> = ["pre_accept", "accept", "reject", "terminate", "ring", "answered", "declined", "end"]

describe("Call.transition", () => {
  const userInitiated: Record<Call.Operation, Partial<Record<Call.Status, Call.Status>>> = {
    pre_accept: { ringing: "pre_accepted" },
    accept: { ringing: "accepted", pre_accepted: "accepted" },
    reject: { ringing: "rejected", pre_accepted: "rejected" },
    terminate: { calling: "ended", ringing: "ended", pre_accepted: "ended", accepted: "ended" },
    ring: {},
    answered: {},
    declined: {},
    end: { calling: "ended", ringing: "ended", pre_accepted: "ended", accepted: "ended", rejected: "rejected", failed: "failed", ended: "ended" }
  }
  const businessInitiated: Record<Call.Operation, Partial<Record<Call.Status, Call.Status>>> = {
    pre_accept: {},
    accept: {},
    reject: {},
    terminate: { calling: "ended", ringing: "ended", pre_accepted: "ended", accepted: "ended" },
    ring: { calling: "ringing" },
    answered: { calling: "accepted", ringing: "accepted" },
    declined: { calling: "rejected", ringing: "rejected", failed: "rejected" },
    end: { calling: "failed", ringing: "failed", pre_accepted: "ended", accepted: "ended", rejected: "rejected", failed: "failed", ended: "ended" }
  }
  for (const [direction, table] of [
    ["user_initiated", userInitiated],
    ["business_initiated", businessInitiated]
  ] as const) {
    for (const operation of operations) {
      for (const status of statuses) {
        const expected = table[operation][status]
        it(`${direction}: ${operation} in ${status} -> ${expected ?? "invalid_state"}`, () => {
          const result = Call.transition(status, operation, direction)
          if (expected === undefined) {
            expect(Either.isLeft(result)).toBe(true)
            if (Either.isLeft(result)) {
              expect(result.left).toBeInstanceOf(Errors.InvalidState)
              expect(result.left.status).toBe(status)
            }
          } else {
            expect(result).toEqual(Either.right(expected))
          }
        })
      }
    }
  }

  it("sources lists exactly the statuses the table allows", () => {
    expect(Call.sources("accept", "user_initiated")).toEqual(["ringing", "pre_accepted"])
    expect(Call.sources("accept", "business_initiated")).toEqual([])
    expect(Call.sources("terminate", "business_initiated")).toEqual(["calling", "ringing", "pre_accepted", "accepted"])
  })

  it("property: any sequence of operations never leaves ended or rejected (failed only for a late REJECTED), and refusals name the status they saw", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Call.Direction>("user_initiated", "business_initiated"),
        fc.array(fc.constantFrom(...operations), { maxLength: 30 }),
        (direction, ops) => {
          let status: Call.Status = direction === "user_initiated" ? "ringing" : "calling"
          for (const op of ops) {
            const before = status
            const result = Call.transition(status, op, direction)
            if (Either.isRight(result)) {
              status = result.right
              if (before === "ended" || before === "rejected") expect(status).toBe(before)
              if (before === "failed") expect(["failed", "rejected"]).toContain(status)
              if (op === "pre_accept" || op === "accept" || op === "reject") expect(direction).toBe("user_initiated")
            } else {
              expect(result.left.status).toBe(before)
            }
          }
        }
      )
    )
  })

  it("a terminate webhook before any answer fails a business-initiated call and ends any other", () => {
    expect(Call.endOutcome({ status: "ringing", direction: "business_initiated" })).toBe("failed")
    expect(Call.endOutcome({ status: "accepted", direction: "business_initiated" })).toBe("ended")
    expect(Call.endOutcome({ status: "ringing", direction: "user_initiated" })).toBe("ended")
  })
})

// ---------------------------------------------------------------------------------------
// permissions on TestClock

const tenant: Tenant.Tenant = { storeId: "str_01JD0000000000000000000000" as Tenant.StoreId, mode: "test" }
const phone = "+15551230007"

/** A CallPermissionRepo in memory, with the port's compare-and-set on the version. */
const memoryRepo = () => {
  const rows = new Map<string, CallPermission.Permission>()
  return Layer.succeed(
    CallRepo.CallPermissionRepo,
    CallRepo.CallPermissionRepo.of({
      find: (_t, p) => Effect.sync(() => Option.fromNullable(rows.get(p))),
      compareAndSet: (_t, read, patch) =>
        Effect.sync(() => {
          const stored = rows.get(read.phone)
          if ((stored?.version ?? 0) !== read.version) return Option.none()
          const next = { ...read, ...patch, version: read.version + 1 }
          rows.set(read.phone, next)
          return Option.some(next)
        }).pipe(Effect.zipLeft(Effect.yieldNow()))
    })
  )
}

/** One request through the budget, as the route takes it: refused with the next allowed time, or counted. */
const requestNow = CallPermissions.modify(tenant, phone, (p, now) => {
  const next = CallPermission.nextRequestAllowedAt(p, now)
  return next === null ? Effect.succeed(Option.some({ requestTimes: CallPermission.withRequest(p, now) })) : Effect.fail(next)
})

describe("call permission budget and expiry (TestClock)", () => {
  it.effect("1 per 24 h and 2 per 7 days, each freed exactly at its boundary", () =>
    Effect.gen(function* () {
      const t0 = yield* Time.now
      yield* requestNow
      const refused = yield* Effect.flip(requestNow)
      expect(refused).toBe(t0 + Time.DAY)
      yield* TestClock.adjust(Time.DAY - 1)
      expect(yield* Effect.flip(requestNow)).toBe(t0 + Time.DAY)
      yield* TestClock.adjust(1)
      const second = yield* requestNow
      expect(CallPermission.limitsAt(second, yield* Time.now).map((l) => [l.period, l.used, l.max])).toEqual([
        ["PT24H", 1, 1],
        ["P7D", 2, 2]
      ])
      // 24 h later the daily limit has room again, the weekly one does not until t0 + 7 d
      yield* TestClock.adjust(Time.DAY)
      expect(yield* Effect.flip(requestNow)).toBe(t0 + 7 * Time.DAY)
      yield* TestClock.adjust(7 * Time.DAY - 2 * Time.DAY - 1)
      expect(yield* Effect.flip(requestNow)).toBe(t0 + 7 * Time.DAY)
      yield* TestClock.adjust(1)
      const third = yield* requestNow
      expect(CallPermission.view(third, yield* Time.now).limits.map((l) => l.used)).toEqual([1, 2])
    }).pipe(Effect.provide(memoryRepo()))
  )

  it.effect("a connected call resets the budget", () =>
    Effect.gen(function* () {
      yield* requestNow
      yield* TestClock.adjust(Time.HOUR)
      expect(Either.isLeft(yield* Effect.either(requestNow))).toBe(true)
      yield* CallPermissions.resetBudget(tenant, phone, yield* Time.now)
      yield* TestClock.adjust(1)
      const after = yield* requestNow
      expect(CallPermission.limitsAt(after, yield* Time.now).map((l) => l.used)).toEqual([1, 1])
    }).pipe(Effect.provide(memoryRepo()))
  )

  it.effect("a temporary permission lapses at its expiry, with no job", () =>
    Effect.gen(function* () {
      const t0 = yield* Time.now
      yield* CallPermissions.applyReply(tenant, phone, { response: "accept", expiresAt: null, permanent: false, at: t0 }).pipe(
        Effect.provide(
          Layer.merge(Layer.succeed(WebhookRepoStub.tag, WebhookRepoStub.none), Layer.succeed(JobQueue.JobQueue, {} as JobQueue.JobQueue["Type"]))
        )
      )
      const granted = yield* CallPermissions.current(tenant, phone)
      expect(CallPermission.view(granted, yield* Time.now)).toMatchObject({ status: "temporary", expiresAt: t0 + 7 * Time.DAY, canStartCall: true })
      yield* TestClock.adjust(7 * Time.DAY - 1)
      expect(CallPermission.mayCall(granted, yield* Time.now)).toBe(true)
      yield* TestClock.adjust(1)
      expect(CallPermission.view(granted, yield* Time.now)).toMatchObject({ status: "no_permission", expiresAt: null, canStartCall: false })
    }).pipe(Effect.provide(memoryRepo()))
  )

  it.effect("100 concurrent requests for one customer: exactly one is counted", () =>
    Effect.gen(function* () {
      const results = yield* Effect.all(
        Array.from({ length: 100 }, () => Effect.either(requestNow)),
        { concurrency: "unbounded" }
      )
      expect(results.filter(Either.isRight)).toHaveLength(1)
      const p = yield* CallPermissions.current(tenant, phone)
      expect(p.requestTimes).toHaveLength(1)
    }).pipe(Effect.provide(memoryRepo()))
  )
})

/** No caller webhook subscribers: events go nowhere. */
const WebhookRepoStub = {
  tag: WebhookRepo.WebhookRepo,
  none: { subscribers: () => Effect.succeed([]) } as unknown as WebhookRepo.WebhookRepo["Type"]
}

// ---------------------------------------------------------------------------------------
// SDP

describe("Sdp.check", () => {
  const without = (prefix: string) =>
    Sdp.EXAMPLE_OFFER.split("\r\n")
      .filter((l) => !l.startsWith(prefix))
      .join("\r\n")
  const issues = (text: string, keyExchange: Sdp.KeyExchange = "DTLS") =>
    Effect.runSync(Effect.flip(Sdp.check(text, "sdp.sdp", keyExchange))).details.map((d) => d.message)

  it("a browser-style offer passes, with its codecs, direction and fingerprint algorithm", () => {
    const parsed = Effect.runSync(Sdp.check(Sdp.EXAMPLE_OFFER, "sdp.sdp"))
    expect(parsed.media[0].codecs.map((c) => c.name)).toEqual(["opus", "G722", "PCMU", "PCMA"])
    expect(Sdp.summaryOf(Sdp.EXAMPLE_OFFER)).toMatchObject({ direction: "sendrecv", fingerprint_algorithm: "sha-256", key_exchange: "DTLS" })
  })

  it("each missing part is named", () => {
    expect(issues(without("a=fingerprint"))).toEqual(["has no DTLS fingerprint (a=fingerprint)"])
    expect(issues(without("a=ice-ufrag"))).toEqual(["has no ICE username fragment (a=ice-ufrag)"])
    expect(issues(without("a=ice-pwd"))).toEqual(["has no ICE password (a=ice-pwd)"])
    expect(issues(Sdp.EXAMPLE_OFFER.replace("m=audio 9 UDP/TLS/RTP/SAVPF 111 9 0 8", "m=video 9 UDP/TLS/RTP/SAVPF 96"))[0]).toContain("m=audio")
    const vp8Only = Sdp.EXAMPLE_OFFER.replace("m=audio 9 UDP/TLS/RTP/SAVPF 111 9 0 8", "m=audio 9 UDP/TLS/RTP/SAVPF 97").concat(
      "a=rtpmap:97 iLBC/8000\r\n"
    )
    expect(issues(vp8Only)[0]).toContain("Opus, G722, PCMU, PCMA")
    expect(issues("hello")[0]).toContain("line 1")
  })

  it("SDES mode asks for a=crypto instead of a fingerprint", () => {
    expect(issues(Sdp.EXAMPLE_OFFER, "SDES")).toEqual(["has no SDES key (a=crypto)"])
    const sdes = `${without("a=fingerprint")}a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz\r\n`
    expect(Effect.runSync(Effect.either(Sdp.check(sdes, "sdp.sdp", "SDES")))._tag).toBe("Right")
  })
})

// ---------------------------------------------------------------------------------------
// settings and analytics

describe("CallSettings", () => {
  const decode = Schema.decodeUnknownEither(CallSettings.UpdateCallSettings)
  const settings = (calling: Partial<CallSettings.Calling>): CallSettings.CallSettings => ({
    storeId: tenant.storeId,
    mode: "test",
    calling: { ...CallSettings.DEFAULTS, ...calling },
    sipSecrets: {},
    updatedAt: null
  })

  it("either casing in, upper case kept; left-out fields stay; SIP passwords become secrets", () => {
    const patch = Either.getOrThrow(
      decode({ status: "disabled", sip: { status: "enabled", servers: [{ hostname: "sip.example.com", password: "pw" }] } })
    )
    const next = CallSettings.apply(settings({}), patch)
    expect(next.calling).toMatchObject({
      status: "DISABLED",
      call_icon_visibility: "DEFAULT",
      sip: { status: "ENABLED", servers: [{ hostname: "sip.example.com", password_set: true }] }
    })
    expect(JSON.stringify(next.calling)).not.toContain('"pw"')
    expect(next.sipSecrets).toEqual({ "sip.example.com": "pw" })
    expect(CallSettings.toOperator(next.calling, next.sipSecrets)).toMatchObject({
      sip: { servers: [{ hostname: "sip.example.com", password: "pw" }] }
    })
  })

  it("refuses overlapping ranges, more than two a day, closing before opening, unknown zones", () => {
    const hours = (weekly: Array<object>, zone = "Europe/Lisbon") => decode({ call_hours: { timezone_id: zone, weekly_operating_hours: weekly } })
    const monday = (...ranges: Array<[open_time: string, close_time: string]>) =>
      hours(ranges.map(([open_time, close_time]) => ({ day_of_week: "MONDAY", open_time, close_time })))
    expect(Either.isRight(monday(["0900", "1200"], ["1200", "1300"]))).toBe(true)
    expect(Either.isLeft(monday(["0900", "1201"], ["1200", "1300"]))).toBe(true)
    expect(Either.isLeft(hours([{ day_of_week: "MONDAY", open_time: "1300", close_time: "1300" }]))).toBe(true)
    expect(Either.isLeft(hours([], "Europe/Atlantis"))).toBe(true)
  })

  it("hours open now, in the settings' time zone, closed on a holiday", () => {
    const monday10Lisbon = Date.parse("2026-11-23T10:00:00Z") // Lisbon is UTC+0 in November
    const calling = {
      call_hours: {
        status: "ENABLED" as const,
        timezone_id: "Europe/Lisbon",
        weekly_operating_hours: [{ day_of_week: "MONDAY" as const, open_time: "0900", close_time: "1200" }],
        holiday_schedule: []
      }
    }
    expect(CallSettings.hoursOpenAt(settings(calling).calling, monday10Lisbon)).toBe(true)
    expect(CallSettings.hoursOpenAt(settings(calling).calling, monday10Lisbon + 3 * Time.HOUR)).toBe(false)
    const holiday = { call_hours: { ...calling.call_hours, holiday_schedule: [{ date: "2026-11-23" }] } }
    expect(CallSettings.hoursOpenAt(settings(holiday).calling, monday10Lisbon)).toBe(false)
    expect(CallSettings.hoursOpenAt(CallSettings.DEFAULTS, monday10Lisbon)).toBe(true)
  })
})

describe("CallInsights.countsOf", () => {
  const base = {
    storeId: tenant.storeId,
    mode: "test" as const,
    phone,
    operatorCallId: null,
    offerSdp: "",
    answerSdp: null,
    payload: null,
    endStatus: null,
    endedAt: null,
    error: null,
    createdAt: 0,
    updatedAt: 0
  }
  const call = (i: number, c: Partial<Call.Call>): Call.Call => ({
    ...base,
    id: `call_${String(i).padStart(26, "0")}` as Call.CallId,
    direction: "business_initiated",
    status: "ended",
    startedAt: null,
    durationSeconds: null,
    ...c
  })

  it("counts by direction and outcome, the connected rate and the duration percentiles", () => {
    const calls = [
      call(1, { startedAt: 1, durationSeconds: 10 }),
      call(2, { startedAt: 1, durationSeconds: 20, direction: "user_initiated" }),
      call(3, { startedAt: 1, durationSeconds: 30 }),
      call(4, { startedAt: 1, durationSeconds: 100 }),
      call(5, { status: "rejected" }),
      call(6, { status: "failed" }),
      call(7, { status: "ringing" })
    ]
    expect(CallInsights.countsOf(calls)).toEqual({
      total: 7,
      business_initiated: 6,
      user_initiated: 1,
      connected: 4,
      rejected: 1,
      failed: 1,
      unanswered: 0,
      in_progress: 1,
      connected_rate: 4 / 6,
      duration_seconds: { total: 160, average: 40, p50: 20, p90: 100 }
    })
  })
})
