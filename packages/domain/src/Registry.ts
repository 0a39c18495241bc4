/**
 * What the service runs, built from one list of modules (`Modules.ts`): the worker's job
 * kinds (the inbox's, then each module's), the dispatch of operator webhook events, and the
 * caller webhook event types. No event tag is named here: the handlers of each tag of the
 * `WebhookEvent` union are the modules' `operatorEvents` of that tag.
 */
import { Effect, Schema } from "effect"
import * as Inbox from "./inbox/module.js"
import * as Mirror from "./shared/Mirror.js"
import type * as WebhookEvent from "./operator/WebhookEvent.js"
import type { BatchHandler, Module, Routed } from "./shared/Module.js"
import type { AccountKind, Store } from "./stores/Store.js"

type HandlerOf<M> =
  | (M extends { readonly operatorEvents: infer H } ? H[keyof H] : never)
  | (M extends { readonly operatorEventBatches: infer H } ? H[keyof H] : never)
type JobOf<M> = M extends { readonly jobs: ReadonlyArray<infer J> } ? J : never
type MirrorOf<M> = M extends { readonly mirrors: ReadonlyArray<infer K> } ? K : never
type KindContext<K> = K extends { readonly call: (...args: any) => Effect.Effect<any, any, infer R> } ? R : never
type MirrorContext<M> = KindContext<MirrorOf<M>>
type CallerEventOf<M> = M extends { readonly callerEvents: ReadonlyArray<infer T extends string> } ? T : never
type ContextOf<F> = F extends (...args: any) => Effect.Effect<any, any, infer R> ? R : never

/** The services the operator events' handlers of `Modules` need. */
export type EventContext<Modules extends ReadonlyArray<Module>> = ContextOf<HandlerOf<Modules[number]>>

type AnyHandler<R> = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent) => Effect.Effect<unknown, never, R>

/** The registry of a list of modules. */
export const make = <const Modules extends ReadonlyArray<Module>>(all: Modules) => {
  type R = EventContext<Modules>
  type Entry = Modules[number]

  interface Handler {
    /** Its module's place in the list. */
    readonly order: number
    readonly prefix: string | undefined
    readonly handle: AnyHandler<R>
    readonly batch: BatchHandler<WebhookEvent.WebhookEvent, R>
  }

  type Tag = WebhookEvent.WebhookEvent["_tag"]

  const handlersOf = (tag: Tag, claimed: "prefixed" | "unprefixed" | "any") =>
    all.flatMap((m: Module, order): ReadonlyArray<Handler> => {
      const handle = m.operatorEvents?.[tag] as AnyHandler<R> | undefined
      if (handle === undefined) return []
      if (claimed === "prefixed" && m.callbackPrefix === undefined) return []
      if (claimed === "unprefixed" && m.callbackPrefix !== undefined) return []
      const batch =
        (m.operatorEventBatches?.[tag] as BatchHandler<WebhookEvent.WebhookEvent, R> | undefined) ??
        ((items) => Effect.forEach(items, (item) => handle(item.store, item.kind, item.event), { discard: true }))
      return [{ order, prefix: m.callbackPrefix === undefined ? undefined : `${m.callbackPrefix}_`, handle, batch }]
    })

  /** Every tag some module consumes, with its handlers; a message status goes here only to the modules that own no prefix. */
  const consumed = new Set(all.flatMap((m: Module) => Object.keys(m.operatorEvents ?? {}) as Array<Tag>))
  const byTag = new Map([...consumed].map((tag) => [tag, handlersOf(tag, tag === "MessageStatus" ? "unprefixed" : "any")]))
  /** The modules whose sends carry their prefix as callback data, with their `MessageStatus` handler. */
  const claimed = handlersOf("MessageStatus", "prefixed")

  /** The handlers of one event: a message status whose callback data carries a module's prefix goes to that module alone; every other event to each module that consumes its tag. */
  const handlersFor = (event: WebhookEvent.WebhookEvent): ReadonlyArray<Handler> => {
    if (event._tag === "MessageStatus" && event.callbackData !== undefined && event.callbackData !== null) {
      const owner = claimed.find((h) => event.callbackData!.startsWith(h.prefix!))
      if (owner !== undefined) return [owner]
    }
    return byTag.get(event._tag) ?? []
  }

  /** Applies one operator event, with each of its handlers in the order of the list. */
  const dispatch = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent): Effect.Effect<void, never, R> =>
    Effect.forEach(handlersFor(event), (h) => h.handle(store, kind, event), { discard: true })

  /**
   * Applies a batch of events: each handler takes the run of the batch's events it handles
   * at once (in their order in the batch), the handlers in the order of the list.
   */
  const dispatchAll = (items: ReadonlyArray<Routed>): Effect.Effect<void, never, R> => {
    const runs = new Map<Handler, Array<Routed>>()
    for (const item of items) {
      for (const h of handlersFor(item.event)) {
        const run = runs.get(h)
        if (run === undefined) runs.set(h, [item])
        else run.push(item)
      }
    }
    const ordered = [...runs.keys()].sort((a, b) => a.order - b.order)
    return Effect.forEach(ordered, (h) => h.batch(runs.get(h)!), { discard: true })
  }

  /** Every mirrored write's kind (`Mirror.ts`), from the modules that run them. */
  const mirrorKinds = all.flatMap((m: Module) => m.mirrors ?? []) as ReadonlyArray<Mirror.AnyKind<MirrorContext<Entry>>>

  /** Every job kind the worker's runner takes: the inbox's, the mirrored writes' sweep, then each module's. */
  const jobKinds: ReadonlyArray<JobOf<Entry> | ReturnType<typeof Inbox.processJob<R>> | ReturnType<typeof Mirror.sweepJob<MirrorContext<Entry>>>> = [
    Inbox.processJob(dispatchAll),
    Mirror.sweepJob(mirrorKinds),
    ...all.flatMap((m: Module) => m.jobs ?? [])
  ]

  /** The caller webhook event types, from the modules that emit them. */
  const callerEventTypes = all.flatMap((m: Module) => m.callerEvents ?? []) as ReadonlyArray<string> as ReadonlyArray<CallerEventOf<Entry>>

  /** The caller webhook event types as a schema (request validation, OpenAPI). */
  const CallerEventType = Schema.Literal(...callerEventTypes).annotations({ identifier: "EventType" }) as Schema.Schema<CallerEventOf<Entry>>

  return { all, dispatch, dispatchAll, jobKinds, mirrorKinds, callerEventTypes, CallerEventType } as const
}
