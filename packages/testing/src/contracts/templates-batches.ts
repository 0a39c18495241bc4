/**
 * The operator's template webhooks applied a batch at a time (`TemplateBatches.applyUpdates`,
 * the inbox's way) have the effect of applying each in turn (`Templates.applyStatusUpdate`,
 * `applyCategoryUpdate`, `applyQualityUpdate`): two copies of the same stores (one with live
 * credentials, one without; endpoints in both modes), one fed event by event and one in
 * batches of random sizes, the same random stream of status, category and quality events
 * (replays, several events of one template in a batch, PAUSED then APPROVED, reasons and
 * NONE, an unknown status, impending and completed category changes, unknown templates),
 * end with the same templates (each touched or not) and the same caller events in the same
 * order (each store's). Also the storage side: `detailsOf` and `writeDetails`.
 */
import { type Template, TemplateBatches, TemplateRepo, Templates, type Store, type WebhookEvent, WebhookRepo } from "@switchboard/domain"
import { Effect, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { sameInBatches, sideLabels, type Written } from "./batch-fixtures.js"
import { createStore, insertTemplate, template, tenantOf } from "./foundation-fixtures.js"
import { endpoint } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

/** When the events are applied: a template written by them has this `updatedAt`, one left alone its creation's (0). */
const AT = 1_700_000_000_000
const EVENTS = ["template.status", "template.category", "template.quality"]

/** One store of a copy (`live` credentials or not), its three templates, endpoints of both modes. */
const storeWithTemplates = (live: boolean) =>
  Effect.gen(function* () {
    const { store } = yield* createStore({ live })
    for (const mode of ["live", "test"] as const)
      yield* (yield* WebhookRepo.WebhookRepo).insertEndpoint(tenantOf(store.id, mode), yield* endpoint(tenantOf(store.id, mode), EVENTS))
    yield* insertTemplate(yield* template(store.id, "promo", { status: "APPROVED", qualityScore: "GREEN" }))
    yield* insertTemplate(yield* template(store.id, "promo", { language: "es_ES", status: "PAUSED", category: "MARKETING" }))
    yield* insertTemplate(yield* template(store.id, "welcome", { status: "REJECTED", rejectedReason: "INVALID_FORMAT" }))
    return { store }
  }).pipe(Effect.orDie)

type Side = Effect.Effect.Success<ReturnType<typeof storeWithTemplates>>
type Copy = { readonly a: Side; readonly b: Side }

type Event = WebhookEvent.TemplateStatus | WebhookEvent.TemplateCategoryUpdate | WebhookEvent.TemplateQualityUpdate

const status = (name: string, language: string, event: string, reason: string | null = null, category?: Template.Category): Event => ({
  _tag: "TemplateStatus",
  wabaId: "waba",
  name,
  language,
  event,
  reason,
  category
})

const category = (name: string, language: string, to: Template.Category, upcoming: Template.Category | null = null): Event => ({
  _tag: "TemplateCategoryUpdate",
  wabaId: "waba",
  name,
  language,
  category: to,
  previousCategory: "UTILITY",
  upcomingCategory: upcoming,
  effectiveAt: upcoming === null ? null : ((AT + 86_400_000) as never)
})

const quality = (name: string, language: string, score: Template.QualityScore): Event => ({
  _tag: "TemplateQualityUpdate",
  wabaId: "waba",
  name,
  language,
  score,
  previousScore: "GREEN"
})

const pool = (): ReadonlyArray<Event> => [
  status("promo", "en_US", "PAUSED"),
  status("promo", "en_US", "APPROVED"),
  status("promo", "en_US", "REINSTATED", "NONE"),
  status("promo", "en_US", "APPROVED", ""),
  status("promo", "es_ES", "APPROVED", null, "UTILITY"),
  status("promo", "es_ES", "FLAGGED"),
  status("welcome", "en_US", "REJECTED", "INVALID_FORMAT"),
  status("welcome", "en_US", "REJECTED", "TAG_CONTENT_MISMATCH"),
  status("welcome", "en_US", "APPROVED", "NONE", "MARKETING"),
  status("welcome", "en_US", "SOMETHING_NEW"),
  status("ghost", "en_US", "APPROVED"),
  category("promo", "en_US", "MARKETING"),
  category("promo", "en_US", "UTILITY"),
  category("promo", "es_ES", "MARKETING", "UTILITY"),
  category("ghost", "en_US", "MARKETING"),
  category("ghost", "en_US", "UTILITY", "MARKETING"),
  quality("promo", "en_US", "RED"),
  quality("promo", "en_US", "GREEN"),
  quality("promo", "es_ES", "YELLOW"),
  quality("welcome", "en_US", "UNKNOWN"),
  quality("ghost", "en_US", "RED")
]

/** The templates a copy's stores hold (ids and operator ids left out, `updatedAt` as touched or not) and the caller events, by store. */
const state = (copy: Copy, written: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const repo = yield* TemplateRepo.TemplateRepo
    const labels = sideLabels(copy, () => undefined)
    const templates: Record<string, unknown> = {}
    for (const [name, side] of [
      ["a", copy.a],
      ["b", copy.b]
    ] as const)
      templates[name] = (yield* repo.list(tenantOf(side.store.id), { limit: 100 })).items
        .map(({ id: _id, operatorId: _op, storeId: _s, createdAt: _c, updatedAt, ...t }) => ({ ...t, touched: updatedAt === AT }))
        .sort((x, y) => `${x.name}/${x.language}`.localeCompare(`${y.name}/${y.language}`))
    return {
      templates,
      events: ["a", "b"].map((store) => written.filter((e) => labels.get(e.storeId) === store).map((e) => ({ type: e.type, data: e.data })))
    }
  })

/** The per-event path: the module's handler of the event's tag. */
const one = (store: Store.Store, event: Event) => {
  switch (event._tag) {
    case "TemplateStatus":
      return Templates.applyStatusUpdate(store.id, event)
    case "TemplateCategoryUpdate":
      return Templates.applyCategoryUpdate(store.id, event)
    case "TemplateQualityUpdate":
      return Templates.applyQualityUpdate(store.id, event)
  }
}

export const templateBatchTests = (it: ContractIt): void => {
  describe("TemplateBatches", () => {
    it.effect(
      "a batch of template events has the effect of each in turn: same templates, same caller events in the same order",
      () =>
        Effect.gen(function* () {
          const seen = { status: 0, category: 0, quality: 0, touched: 0 }
          for (const seed of [1, 2, 3, 4, 5, 6]) {
            const byOne = yield* sameInBatches({
              seed,
              length: 40,
              pool,
              one,
              batch: TemplateBatches.applyUpdates,
              side: (label) => storeWithTemplates(label === "a"),
              state,
              // every path writes at the same time, so `updatedAt` tells which templates it wrote
              observe: (effect) => Effect.zipRight(TestClock.setTime(AT), effect)
            })
            for (const e of byOne.events.flat()) seen[e.type.slice("template.".length) as "status"]++
            for (const ts of Object.values(byOne.templates)) seen.touched += (ts as Array<{ touched: boolean }>).filter((t) => t.touched).length
          }
          // the streams did exercise what they are about
          expect(seen.status).toBeGreaterThan(0)
          expect(seen.category).toBeGreaterThan(0)
          expect(seen.quality).toBeGreaterThan(0)
          expect(seen.touched).toBeGreaterThan(0)
        }),
      120_000
    )
  })

  describe("TemplateStatusRepo.detailsOf and writeDetails", () => {
    it.effect("reads the store's templates among the keys, writes each by id within its store, stamping updatedAt", () =>
      Effect.gen(function* () {
        const statuses = yield* TemplateRepo.TemplateStatusRepo
        const repo = yield* TemplateRepo.TemplateRepo
        const a = (yield* createStore()).store
        const b = (yield* createStore()).store
        const promo = yield* template(a.id, "promo", { status: "APPROVED" })
        const promoEs = yield* template(a.id, "promo", { language: "es_ES", qualityScore: "RED" })
        const other = yield* template(b.id, "promo", { status: "APPROVED" })
        for (const t of [promo, promoEs, other]) yield* insertTemplate(t)
        const detailsOf = (t: Template.Template): TemplateRepo.TemplateDetails => ({
          id: t.id,
          name: t.name,
          language: t.language,
          status: t.status,
          rejectedReason: t.rejectedReason,
          category: t.category,
          qualityScore: t.qualityScore
        })
        const found = yield* statuses.detailsOf(a.id, [
          { name: "promo", language: "en_US" },
          { name: "promo", language: "en_US" },
          { name: "promo", language: "es_ES" },
          { name: "promo", language: "fr_FR" },
          { name: "ghost", language: "en_US" }
        ])
        expect([...found].sort((x, y) => x.language.localeCompare(y.language))).toEqual([detailsOf(promo), detailsOf(promoEs)])
        expect(yield* statuses.detailsOf(a.id, [])).toEqual([])

        yield* TestClock.setTime(AT)
        const next = {
          ...detailsOf(promo),
          status: "PAUSED" as const,
          rejectedReason: "LOW_QUALITY",
          category: "MARKETING" as const,
          qualityScore: "RED" as const
        }
        // another store's row named by id stays as it is
        yield* statuses.writeDetails(a.id, [next, { ...detailsOf(other), status: "DISABLED" }])
        expect(yield* repo.find(tenantOf(a.id), "promo", "en_US")).toEqual(
          Option.some({ ...promo, status: "PAUSED", rejectedReason: "LOW_QUALITY", category: "MARKETING", qualityScore: "RED", updatedAt: AT })
        )
        expect(yield* repo.find(tenantOf(a.id), "promo", "es_ES")).toEqual(Option.some(promoEs))
        expect(yield* repo.find(tenantOf(b.id), "promo", "en_US")).toEqual(Option.some(other))
        // back to nulls
        yield* statuses.writeDetails(a.id, [{ ...next, rejectedReason: null, qualityScore: null }])
        expect(yield* statuses.detailsOf(a.id, [{ name: "promo", language: "en_US" }])).toEqual([
          { ...next, rejectedReason: null, qualityScore: null }
        ])
        yield* statuses.writeDetails(a.id, [])

        // more templates than one statement takes
        const many = yield* Effect.forEach(
          Array.from({ length: 1_203 }, (_, i) => `bulk_${i}`),
          (name) => template(a.id, name)
        )
        yield* Effect.forEach(many, insertTemplate, { discard: true })
        const read = yield* statuses.detailsOf(
          a.id,
          many.map((t) => ({ name: t.name, language: t.language }))
        )
        expect(read.length).toBe(1_203)
        yield* statuses.writeDetails(
          a.id,
          read.map((t) => ({ ...t, status: "APPROVED" }))
        )
        expect((yield* repo.list(tenantOf(a.id), { limit: 100, status: "PENDING" })).items.filter((t) => t.name.startsWith("bulk_"))).toEqual([])
      })
    )
  })
}
