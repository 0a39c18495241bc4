/**
 * What the batch contracts share: labels that replace a copy's own ids, so two copies compare
 * equal, and the run that feeds two copies the same stream, one event by event and one in batches.
 */
import { type Store, WebhookRepo } from "@switchboard/domain"
import { Effect } from "effect"
import { expect } from "vitest"
import { seededRandom as random } from "../random.js"

/** Each side's store id labelled `a` or `b`, then what `more` labels of the side. */
export const sideLabels = <S extends { readonly store: { readonly id: string } }>(
  copy: { readonly a: S; readonly b: S },
  more: (name: string, side: S, labels: Map<string, string>) => void
): Map<string, string> => {
  const labels = new Map<string, string>()
  for (const [name, side] of [
    ["a", copy.a],
    ["b", copy.b]
  ] as const) {
    labels.set(side.store.id, name)
    more(name, side, labels)
  }
  return labels
}

/** A caller event as a batch contract observes it written. */
export type Written = { readonly storeId: string; readonly type: string; readonly data: Record<string, unknown> }

type Routed<E> = { readonly store: Store.Store; readonly kind: "sandbox"; readonly event: E }

/** What a batch contract compares: the events a store is fed, applied one at a time (`one`) and in batches (`batch`). */
export interface Paths<E> {
  readonly pool: (s: Store.Store) => ReadonlyArray<E>
  readonly one: (store: Store.Store, event: E) => Effect.Effect<unknown, never, any>
  readonly batch: (items: ReadonlyArray<Routed<E>>) => Effect.Effect<unknown, never, any>
}

/**
 * Feeds two copies (each two stores, `a` and `b`, made by `side`) the same seeded stream of
 * `length` events of `pool` (60% to `a`): one copy event by event (`one`), the other in
 * batches of random sizes (`batch`); answers the first copy's `state` after checking the
 * second's equal to it. `state` sees the caller events each copy wrote; `observe` wraps every
 * call to watch more, and `reset` forgets what it saw between the copies.
 */
export const sameInBatches = <S extends { readonly store: Store.Store }, E, T>(
  options: Paths<E> & {
    readonly seed: number
    readonly length: number
    readonly side: (label: "a" | "b") => Effect.Effect<S, never, any>
    readonly state: (copy: { readonly a: S; readonly b: S }, written: ReadonlyArray<Written>) => Effect.Effect<T, never, any>
    readonly observe?: <A, Er, R>(effect: Effect.Effect<A, Er, R>) => Effect.Effect<A, Er, any>
    readonly reset?: () => void
  }
) =>
  Effect.gen(function* () {
    const webhooks = yield* WebhookRepo.WebhookRepo
    const written: Array<Written> = []
    const observed = <A, Er, R>(effect: Effect.Effect<A, Er, R>) =>
      Effect.provideService(options.observe === undefined ? effect : options.observe(effect), WebhookRepo.WebhookRepo, {
        ...webhooks,
        insertEvents: (tenant, events) => {
          for (const e of events) written.push({ storeId: tenant.storeId, type: e.type, data: e.data as Record<string, unknown> })
          return webhooks.insertEvents(tenant, events)
        }
      })
    const next = random(options.seed)
    const byOneCopy = { a: yield* options.side("a"), b: yield* options.side("b") }
    const batchedCopy = { a: yield* options.side("a"), b: yield* options.side("b") }
    const size = options.pool(byOneCopy.a.store).length
    const stream = Array.from({ length: options.length }, () => ({ toA: next() < 0.6, index: Math.floor(next() * size) }))
    const itemsOf = (copy: { readonly a: S; readonly b: S }) =>
      stream.map(({ toA, index }): Routed<E> => {
        const { store } = toA ? copy.a : copy.b
        return { store, kind: "sandbox", event: options.pool(store)[index] }
      })
    for (const item of itemsOf(byOneCopy)) yield* observed(options.one(item.store, item.event))
    const byOne = yield* options.state(byOneCopy, written)
    written.length = 0
    options.reset?.()
    const items = itemsOf(batchedCopy)
    for (let start = 0; start < items.length; ) {
      const n = 1 + Math.floor(next() * 12)
      yield* observed(options.batch(items.slice(start, start + n)))
      start += n
    }
    expect(yield* options.state(batchedCopy, written)).toEqual(byOne)
    return byOne
  })
