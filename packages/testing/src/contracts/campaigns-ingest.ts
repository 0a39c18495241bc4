/**
 * Ingestion of campaign recipients, as each store writes it (multi-row VALUES on SQLite; on
 * PostgreSQL one array per column, a column null in every row sent as a null array; the time
 * zones as the id of their list, `campaign_zone_lists`): every kind of row is stored as
 * given, with each pending phone's time zones; a request that fails stores none of its rows;
 * and the opt-out filter of a whole request (one statement, the phones as one parameter)
 * answers what the per-phone check answers, for any text.
 */
import { type CampaignRecipient, MessagingRepo, Time } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { expectCountersExact, pending, repo, storedDraft } from "./campaigns-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

const NEW_YORK = "America/New_York"
const LOS_ANGELES = "America/Los_Angeles"
const NOVOSIBIRSK = "Asia/Novosibirsk"
const LONDON = "Europe/Guernsey&Europe/Isle_of_Man&Europe/London"

/** A number of +1 without a known area code: every zone of the country, a long list. */
const everyUsZone = (zone: string | null) => zone?.startsWith("America/Adak&") === true && zone.endsWith("&Pacific/Saipan")

export const ingestTests = (it: ContractIt): void => {
  describe("Recipient ingestion", () => {
    it.effect("stores every kind of row as given, each pending phone with its time zones, across statements", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { tenant, campaign: c } = yield* storedDraft()
        const now = yield* Time.now
        // zones interleaved (the order of first appearance differs from phone order), a number
        // with no known zone, and rows whose optional columns are null throughout but one
        const phones = Array.from({ length: 600 }, (_, i) => {
          const n = String(i).padStart(4, "0")
          return [`+1201555${n}`, `+1213555${n}`, `+7383555${n}`, `+44770090${n}`, `+1200555${n}`, `+999555${n}`][i % 6]
        })
        const rows = [
          ...phones.map((p, i) => pending(p, i === 7 ? { input: ` ${p.slice(0, 5)} ${p.slice(5)} ` } : {})),
          pending(null, { input: "not a number", status: "skipped", skipReason: "invalid_number" }),
          pending(null, { input: 'a "quoted", {braced}\\ back\nline\tNULL', status: "skipped", skipReason: "invalid_number" }),
          pending(null, { input: "NULL", status: "skipped", skipReason: "invalid_number" }),
          pending(null, { input: "", status: "skipped", skipReason: "invalid_number" }),
          pending(null, { input: "cus_unknown", customerId: "cus_unknown", status: "skipped", skipReason: "unknown_customer" }),
          pending("+12015559999", { input: "cus_known", customerId: "cus_known", parameters: ['Zoe, "the" {first}\\'] }),
          pending(null, { input: "+12015550000", status: "skipped", skipReason: "duplicate" })
        ]
        const added = Option.getOrThrow(yield* r.addRecipients(tenant, c.id, ["draft"], rows, now))
        expect(added).toEqual({ added: 601, skipped: { opted_out: 0, duplicate: 1, invalid_number: 4, unknown_customer: 1 }, total: 607 })
        // again: the phones the campaign has are stored as skipped duplicates, without the phone
        const second = [pending(phones[3]), pending("+12135551234")]
        const again = Option.getOrThrow(yield* r.addRecipients(tenant, c.id, ["draft"], second, now))
        expect(again).toEqual({ added: 1, skipped: { opted_out: 0, duplicate: 1, invalid_number: 0, unknown_customer: 0 }, total: 609 })
        expect(yield* expectCountersExact(c)).toMatchObject({ total: 609, pending: 602, skipped: 7 })

        const stored = (yield* r.listRecipients(tenant, c.id, { limit: 1_000 })).items
        const given = [...rows, { ...second[0], phone: null, status: "skipped", skipReason: "duplicate" }, second[1]]
        expect(stored.map((x) => x.seq)).toEqual(given.map((_, i) => i))
        expect(
          stored.map(({ id, phone, input, customerId, parameters, status, skipReason, failure, updatedAt }) => ({
            id,
            phone,
            input,
            customerId,
            parameters,
            status,
            skipReason,
            failure,
            updatedAt
          }))
        ).toEqual(
          given.map((g) => ({
            id: g.id,
            phone: g.phone,
            input: g.input,
            customerId: g.customerId,
            parameters: g.parameters,
            status: g.status,
            skipReason: g.skipReason,
            failure: null,
            updatedAt: now
          }))
        )

        // each pending phone's zones, as the audience groups them
        const audience = yield* r.audience(tenant, c.id, now)
        const byZone = new Map<string | null, number>()
        for (const g of audience.groups) {
          const key = everyUsZone(g.timeZone) ? "every US zone" : g.timeZone
          byZone.set(key, (byZone.get(key) ?? 0) + g.count)
        }
        expect(Object.fromEntries([...byZone].map(([k, n]) => [String(k), n]))).toEqual({
          [NEW_YORK]: 101,
          [LOS_ANGELES]: 101,
          [NOVOSIBIRSK]: 100,
          [LONDON]: 100,
          "every US zone": 100,
          null: 100
        })
      })
    )

    it.effect("a request of several full statements stores each row with its own values (SQLite binds one array for every full chunk)", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { tenant, campaign: c } = yield* storedDraft()
        const now = yield* Time.now
        const rows = Array.from({ length: 2_650 }, (_, i) => {
          const phone = `+1201777${String(i).padStart(4, "0")}`
          if (i % 5 === 0) return pending(null, { input: `bad ${i}`, status: "skipped", skipReason: "invalid_number" })
          return pending(phone, { ...(i % 3 === 0 ? { input: ` ${phone}` } : {}), ...(i % 7 === 0 ? { parameters: [`p${i}`] } : {}) })
        })
        const added = Option.getOrThrow(yield* r.addRecipients(tenant, c.id, ["draft"], rows, now))
        expect(added).toEqual({ added: 2_120, skipped: { opted_out: 0, duplicate: 0, invalid_number: 530, unknown_customer: 0 }, total: 2_650 })
        const stored: Array<CampaignRecipient.Recipient> = []
        for (let afterSeq: number | undefined = undefined; ; ) {
          const page: ReadonlyArray<CampaignRecipient.Recipient> = (yield* r.listRecipients(tenant, c.id, { limit: 1_000, afterSeq })).items
          if (page.length === 0) break
          stored.push(...page)
          afterSeq = page[page.length - 1].seq
        }
        expect(
          stored.map(({ id, seq, phone, input, parameters, status, skipReason }) => ({ id, seq, phone, input, parameters, status, skipReason }))
        ).toEqual(
          rows.map((g, i) => ({
            id: g.id,
            seq: i,
            phone: g.phone,
            input: g.input,
            parameters: g.parameters,
            status: g.status,
            skipReason: g.skipReason
          }))
        )
      })
    )

    it.effect("a request that fails stores nothing of its rows, and the next one goes in", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { tenant, campaign: c } = yield* storedDraft()
        const now = yield* Time.now
        const rows = Array.from({ length: 1_200 }, (_, i) => pending(`+1201666${String(i).padStart(4, "0")}`))
        // a recipient id already stored (in another campaign): the insert fails inside the rows'
        // transaction, after a first statement of rows (SQLite inserts 1,000 a statement)
        const { tenant: otherTenant, campaign: other } = yield* storedDraft()
        yield* r.addRecipients(otherTenant, other.id, ["draft"], [rows[1_100]], now)
        const failed = yield* Effect.exit(r.addRecipients(tenant, c.id, ["draft"], rows, now))
        expect(failed._tag).toBe("Failure")
        expect((yield* r.listRecipients(tenant, c.id, { limit: 10 })).items).toEqual([])
        expect(yield* expectCountersExact(c)).toMatchObject({ total: 0, pending: 0, skipped: 0 })
        const fresh = rows.map((row) => ({ ...row, id: pending(null).id }))
        const added = Option.getOrThrow(yield* r.addRecipients(tenant, c.id, ["draft"], fresh, now))
        expect(added).toMatchObject({ added: 1_200, total: 1_200 })
        expect((yield* r.listRecipients(tenant, c.id, { limit: 2_000 })).items.map((x) => x.id)).toEqual(fresh.map((x) => x.id))
      })
    )

    it.effect("filterOptedOut of a whole list answers what isOptedOut answers phone by phone, for any text", () =>
      Effect.gen(function* () {
        const optOuts = yield* MessagingRepo.OptOutRepo
        const { tenant } = yield* storedDraft()
        const other = { ...tenant, mode: tenant.mode === "test" ? ("live" as const) : ("test" as const) }
        const odd = [
          "+15550001111",
          'with "quotes"',
          "back\\slash",
          "a,b",
          "{braces}",
          "NULL",
          "null",
          "",
          " spaced ",
          "ünïcödé ☎",
          "[1,2]",
          "it's",
          "+15550002222"
        ]
        for (const p of odd.filter((_, i) => i % 2 === 1)) yield* optOuts.add(tenant, p, "api")
        yield* optOuts.add(other, odd[0], "api")
        const asked = [...odd, ...odd.slice(0, 4), "+15550003333"]
        const found = yield* optOuts.filterOptedOut(tenant, asked)
        const oneByOne = new Set<string>()
        for (const p of asked) if (yield* optOuts.isOptedOut(tenant, p)) oneByOne.add(p)
        expect([...found].sort()).toEqual([...oneByOne].sort())
        expect([...found].sort()).toEqual(odd.filter((_, i) => i % 2 === 1).sort())
        expect(yield* optOuts.filterOptedOut(other, asked)).toEqual(new Set([odd[0]]))
        expect(yield* optOuts.filterOptedOut(tenant, [])).toEqual(new Set())
      })
    )
  })
}
