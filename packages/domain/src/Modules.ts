/**
 * The one list of domain modules. What the service runs is built from it: the worker's job
 * kinds, the dispatch of operator webhook events, and the caller webhook event types.
 * A new module adds its descriptor (`<module>/module.ts`, see `shared/Module.ts`) here.
 */
import { Effect, Schema } from "effect"
import * as Campaigns from "./campaigns/module.js"
import * as Inbox from "./inbox/module.js"
import * as Messaging from "./messaging/module.js"
import type * as WebhookEvent from "./operator/WebhookEvent.js"
import type { Module } from "./shared/Module.js"
import type { AccountKind, Store } from "./stores/Store.js"
import * as Templates from "./templates/module.js"
import * as Webhooks from "./webhooks/module.js"

export const all = [Templates.module, Messaging.module, Campaigns.module, Webhooks.module] as const satisfies ReadonlyArray<Module>

type Entry = (typeof all)[number]
type HandlerOf<M> = M extends { readonly operatorEvents: infer H } ? H[keyof H] : never
type JobOf<M> = M extends { readonly jobs: ReadonlyArray<infer J> } ? J : never
type ContextOf<F> = F extends (...args: any) => Effect.Effect<any, any, infer R> ? R : never

/** The services the operator events' handlers need. */
export type EventContext = ContextOf<HandlerOf<Entry>>

type AnyHandler = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent) => Effect.Effect<unknown, never, EventContext>

const handlersOf = (tag: WebhookEvent.WebhookEvent["_tag"], claimed: "prefixed" | "unprefixed" | "any") =>
  all.flatMap((m: Module): ReadonlyArray<{ readonly prefix: string | undefined; readonly handle: AnyHandler }> => {
    const handle = m.operatorEvents?.[tag] as AnyHandler | undefined
    if (handle === undefined) return []
    if (claimed === "prefixed" && m.callbackPrefix === undefined) return []
    if (claimed === "unprefixed" && m.callbackPrefix !== undefined) return []
    return [{ prefix: m.callbackPrefix === undefined ? undefined : `${m.callbackPrefix}_`, handle }]
  })

const byTag = {
  InboundMessage: handlersOf("InboundMessage", "any"),
  OperatorNotice: handlersOf("OperatorNotice", "any"),
  TemplateStatus: handlersOf("TemplateStatus", "any"),
  TemplateCategoryUpdate: handlersOf("TemplateCategoryUpdate", "any"),
  TemplateQualityUpdate: handlersOf("TemplateQualityUpdate", "any"),
  MarketingPreference: handlersOf("MarketingPreference", "any"),
  MessageStatusClaimed: handlersOf("MessageStatus", "prefixed"),
  MessageStatus: handlersOf("MessageStatus", "unprefixed")
}

/**
 * Applies one operator event: a message status whose callback data carries a module's
 * prefix goes to that module alone; every other event goes to each module that consumes
 * its tag, in the order of `all`.
 */
export const dispatch = (store: Store, kind: AccountKind, event: WebhookEvent.WebhookEvent): Effect.Effect<void, never, EventContext> => {
  if (event._tag === "MessageStatus" && event.callbackData !== undefined && event.callbackData !== null) {
    const owner = byTag.MessageStatusClaimed.find((h) => event.callbackData!.startsWith(h.prefix!))
    if (owner !== undefined) return Effect.asVoid(owner.handle(store, kind, event))
  }
  return Effect.forEach(byTag[event._tag], (h) => h.handle(store, kind, event), { discard: true })
}

/** Every job kind the worker's runner takes: the inbox's, then each module's. */
export const jobKinds: ReadonlyArray<JobOf<Entry> | ReturnType<typeof Inbox.processJob<EventContext>>> = [
  Inbox.processJob(dispatch),
  ...all.flatMap((m: Module) => m.jobs ?? [])
]

/** The caller webhook event types, from the modules that emit them. */
export const callerEventTypes: ReadonlyArray<string> = all.flatMap((m: Module) => m.callerEvents ?? [])

type CallerEventOf<M> = M extends { readonly callerEvents: ReadonlyArray<infer T> } ? T : never
export type CallerEventType = CallerEventOf<Entry>
/** The caller webhook event types as a schema (request validation, OpenAPI). */
export const CallerEventType: Schema.Schema<CallerEventType> = Schema.Literal(...(callerEventTypes as ReadonlyArray<CallerEventType>)).annotations({
  identifier: "EventType"
})
