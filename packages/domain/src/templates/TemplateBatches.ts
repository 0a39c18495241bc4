/**
 * The operator's template webhooks (status, category, quality) a batch at a time (the
 * inbox's), with the effect of applying each in turn (`Templates.applyStatusUpdate`,
 * `applyCategoryUpdate`, `applyQualityUpdate`): the same rows, the same caller events in the
 * same order.
 *
 * Per store, the templates the batch names are read at once (`detailsOf`); the events are
 * folded per template in the order received, each compared with the template as the events
 * before it left it, as the per-event statements compare with the stored row (a template
 * PAUSED then APPROVED ends APPROVED; a report equal to what is stored changes nothing and
 * emits nothing; an unknown template changes nothing). The templates that changed are
 * written at once (`writeDetails`), then each event's caller event goes out in the order of
 * the batch. An impending category change is sent on whether or not the template is known,
 * as the per-event path does.
 */
import { Effect } from "effect"
import type { TemplateEvent } from "../operator/TemplateWebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import type { StoreId } from "../shared/Tenant.js"
import { type TemplateDetails, TemplateStatusRepo } from "./TemplateRepo.js"
import { categoryData, emitToBothModes, qualityData, rejectedReasonOf, statusData, statusOf } from "./Templates.js"

const keyOf = (name: string, language: string) => `${name}\u0000${language}`

/** The template after `event`, and the caller event it sends (none when it changes nothing). */
const step = (current: TemplateDetails | undefined, event: TemplateEvent) =>
  Effect.gen(function* () {
    const none = { next: current, emit: undefined }
    switch (event._tag) {
      case "TemplateStatus": {
        const status = yield* statusOf(event)
        if (status === undefined || current === undefined) return none
        const rejectedReason = rejectedReasonOf(event)
        const changed =
          current.status !== status ||
          (current.rejectedReason ?? "") !== (rejectedReason ?? "") ||
          (event.category !== undefined && current.category !== event.category)
        if (!changed) return none
        return {
          next: { ...current, status, rejectedReason, category: event.category ?? current.category },
          emit: { type: "template.status", data: statusData(event, status, rejectedReason) }
        }
      }
      case "TemplateCategoryUpdate": {
        const emit = { type: "template.category", data: categoryData(event) }
        if (event.upcomingCategory !== null) return { next: current, emit }
        if (current === undefined || current.category === event.category) return none
        return { next: { ...current, category: event.category }, emit }
      }
      case "TemplateQualityUpdate": {
        if (current === undefined || current.qualityScore === event.score) return none
        return { next: { ...current, qualityScore: event.score }, emit: { type: "template.quality", data: qualityData(event) } }
      }
    }
  })

/** Applies one store's template events, in the order given. */
const applyToStore = (storeId: StoreId, events: ReadonlyArray<TemplateEvent>) =>
  Effect.gen(function* () {
    const repo = yield* TemplateStatusRepo
    const known = yield* repo.detailsOf(
      storeId,
      events.map((e) => ({ name: e.name, language: e.language }))
    )
    const templates = new Map(known.map((t) => [keyOf(t.name, t.language), t]))
    const changed = new Set<string>()
    const emits: Array<{ readonly type: string; readonly data: unknown }> = []
    for (const event of events) {
      const key = keyOf(event.name, event.language)
      const { next, emit } = yield* step(templates.get(key), event)
      if (emit === undefined) continue
      emits.push(emit)
      if (next !== undefined && next !== templates.get(key)) {
        templates.set(key, next)
        changed.add(key)
      }
    }
    yield* repo.writeDetails(
      storeId,
      [...changed].map((key) => templates.get(key)!)
    )
    for (const { type, data } of emits) yield* emitToBothModes(storeId, type, data)
  })

/** Applies a batch of template events (any of the three tags, mixed), store by store. */
export const applyUpdates = (items: ReadonlyArray<Routed<TemplateEvent>>) =>
  Effect.gen(function* () {
    const byStore = new Map<StoreId, Array<TemplateEvent>>()
    for (const { store, event } of items) {
      const events = byStore.get(store.id)
      if (events === undefined) byStore.set(store.id, [event])
      else events.push(event)
    }
    for (const [storeId, events] of byStore) yield* applyToStore(storeId, events)
  })
