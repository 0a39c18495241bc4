/**
 * What the service runs, built from one list of modules (`Modules.ts`): the worker's job
 * kinds, the dispatch of operator webhook events, and the caller webhook event types.
 */
import { Effect, Schema } from "effect"
import * as Inbox from "../inbox/module.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { AccountKind, Store } from "../stores/Store.js"
import type { Module } from "./Module.js"

type HandlerOf<M> = M extends { readonly operatorEvents: infer H } ? H[keyof H] : never
type JobOf<M> = M extends { readonly jobs: ReadonlyArray<infer J> } ? J : never
type CallerEventOf<M> = M extends { readonly callerEvents: ReadonlyArray<infer T extends string> } ? T : never
type ContextOf<F> = F extends (...args: any) => Effect.Effect<any, any, infer R> ? R : never

/** The services the operator events' handlers of `Modules` need. */
export type EventContext<Modules extends ReadonlyArray<Module>> = ContextOf<HandlerOf<Modules[number]>>

type AnyHandler<R> = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent) => Effect.Effect<unknown, never, R>

/** The registry of a list of modules. */
export const make = <const Modules extends ReadonlyArray<Module>>(all: Modules) => {
  type R = EventContext<Modules>
  type Entry = Modules[number]

  const handlersOf = (tag: WebhookEvent.WebhookEvent["_tag"], claimed: "prefixed" | "unprefixed" | "any") =>
    all.flatMap((m: Module): ReadonlyArray<{ readonly prefix: string | undefined; readonly handle: AnyHandler<R> }> => {
      const handle = m.operatorEvents?.[tag] as AnyHandler<R> | undefined
      if (handle === undefined) return []
      if (claimed === "prefixed" && m.callbackPrefix === undefined) return []
      if (claimed === "unprefixed" && m.callbackPrefix !== undefined) return []
      return [{ prefix: m.callbackPrefix === undefined ? undefined : `${m.callbackPrefix}_`, handle }]
    })

  const byTag = {
    InboundMessage: handlersOf("InboundMessage", "any"),
    PaymentStatus: handlersOf("PaymentStatus", "any"),
    OperatorNotice: handlersOf("OperatorNotice", "any"),
    TemplateStatus: handlersOf("TemplateStatus", "any"),
    TemplateCategoryUpdate: handlersOf("TemplateCategoryUpdate", "any"),
    TemplateQualityUpdate: handlersOf("TemplateQualityUpdate", "any"),
    MarketingPreference: handlersOf("MarketingPreference", "any"),
    CallEvent: handlersOf("CallEvent", "any"),
    FlowEvent: handlersOf("FlowEvent", "any"),
    MessageStatusClaimed: handlersOf("MessageStatus", "prefixed"),
    MessageStatus: handlersOf("MessageStatus", "unprefixed")
  }

  /**
   * Applies one operator event: a message status whose callback data carries a module's
   * prefix goes to that module alone; every other event goes to each module that consumes
   * its tag, in the order of the list.
   */
  const dispatch = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent): Effect.Effect<void, never, R> => {
    if (event._tag === "MessageStatus" && event.callbackData !== undefined && event.callbackData !== null) {
      const owner = byTag.MessageStatusClaimed.find((h) => event.callbackData!.startsWith(h.prefix!))
      if (owner !== undefined) return Effect.asVoid(owner.handle(store, kind, event))
    }
    return Effect.forEach(byTag[event._tag], (h) => h.handle(store, kind, event), { discard: true })
  }

  /** Every job kind the worker's runner takes: the inbox's, then each module's. */
  const jobKinds: ReadonlyArray<JobOf<Entry> | ReturnType<typeof Inbox.processJob<R>>> = [
    Inbox.processJob(dispatch),
    ...all.flatMap((m: Module) => m.jobs ?? [])
  ]

  /** The caller webhook event types, from the modules that emit them. */
  const callerEventTypes = all.flatMap((m: Module) => m.callerEvents ?? []) as ReadonlyArray<string> as ReadonlyArray<CallerEventOf<Entry>>

  /** The caller webhook event types as a schema (request validation, OpenAPI). */
  const CallerEventType = Schema.Literal(...callerEventTypes).annotations({ identifier: "EventType" }) as Schema.Schema<CallerEventOf<Entry>>

  return { all, dispatch, jobKinds, callerEventTypes, CallerEventType } as const
}
