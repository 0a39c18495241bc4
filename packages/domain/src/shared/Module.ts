/**
 * What a domain module contributes to the service, as data. The worker's job handlers, the
 * operator-webhook dispatch and the caller-event list are all built from one list of
 * modules (`Modules.ts`, through `Registry.ts`), so adding a module adds one entry there.
 *
 * - `jobs`: the job kinds it runs, each with the schema of its payload.
 * - `operatorEvents`: the operator webhook events it applies, by tag.
 * - `operatorEventBatches`: where it applies a run of one tag's events at once (set-based,
 *   fewer statements), the handler of the run; it replaces the one in `operatorEvents` for
 *   events processed in batches (the inbox's), and must have the same effect as applying
 *   each event in turn.
 * - `callbackPrefix`: the id prefix its sends carry as callback data (`rcp` for campaign
 *   recipients); statuses of messages with that callback data go to its `MessageStatus`
 *   handler alone, every other status to the modules that own no prefix.
 * - `callerEvents`: the caller webhook event types it emits.
 * - `mirrors`: the kinds of mirrored write (`Mirror.ts`) it runs, so that the sweep job can
 *   finish one a crash interrupted from its stored payload.
 */
import type { Effect, Schema } from "effect"
import type { Job, NewJob } from "../jobs/JobQueue.js"
import type { WebhookEvent } from "../operator/WebhookEvent.js"
import type { AccountKind, Store } from "../stores/Store.js"
import type { AnyKind as AnyMirrorKind } from "./MirrorKind.js"

/** One kind of job: its name, payload schema and handler. */
export interface JobKind<P, R = any> {
  readonly kind: string
  readonly payload: Schema.Schema<P, any>
  readonly run: (payload: P, job: Job) => Effect.Effect<unknown, unknown, R>
  /** Writes commit with the job's completion, in one transaction (default true). */
  readonly transactional?: boolean
  /** Give up after this many attempts (default 10). */
  readonly maxAttempts?: number
  /** Delay before the next attempt. */
  readonly backoffMs?: (attempt: number) => number
  /**
   * Jobs of this kind run one at a time in each runner, in the order they were queued
   * (default false): for work whose effects depend on the order it arrived in.
   */
  readonly ordered?: boolean
  /**
   * For an ordered, transactional kind: runs several jobs' work as one, in the order given
   * (the runner groups first attempts it claimed together; if this fails, each runs alone).
   */
  readonly runMany?: (payloads: ReadonlyArray<P>, jobs: ReadonlyArray<Job>) => Effect.Effect<unknown, unknown, R>
}

/** Declares a job kind (infers its payload type from the schema). */
export const jobKind = <P, I, R>(def: JobKind<P, R> & { readonly payload: Schema.Schema<P, I> }): JobKind<P, R> => def

/** A job of `kind` to enqueue, its payload typed by the kind's schema. */
export const job = <P>(kind: JobKind<P, any>, payload: P, options: Omit<NewJob, "kind" | "payload"> = {}): NewJob => ({
  ...options,
  kind: kind.kind,
  payload
})

/** A handler of one operator webhook event, for the store (and account kind) it was routed to. */
export type EventHandler<E, R = any> = (store: Store, kind: AccountKind, event: E) => Effect.Effect<unknown, never, R>

export type OperatorEventHandlers<R = any> = {
  readonly [T in WebhookEvent["_tag"]]?: EventHandler<Extract<WebhookEvent, { readonly _tag: T }>, R>
}

/** An operator event with the store (and account kind) it was routed to. */
export interface Routed<E = WebhookEvent> {
  readonly store: Store
  readonly kind: AccountKind
  readonly event: E
}

/** A handler of a run of one tag's events, in the order of their subject (see `OperatorWebhooks.process`). */
export type BatchHandler<E, R = any> = (items: ReadonlyArray<Routed<E>>) => Effect.Effect<unknown, never, R>

export type OperatorEventBatchHandlers<R = any> = {
  readonly [T in WebhookEvent["_tag"]]?: BatchHandler<Extract<WebhookEvent, { readonly _tag: T }>, R>
}

export interface Module<R = any> {
  readonly name: string
  readonly jobs?: ReadonlyArray<JobKind<any, R>>
  readonly operatorEvents?: OperatorEventHandlers<R>
  readonly operatorEventBatches?: OperatorEventBatchHandlers<R>
  readonly callbackPrefix?: string
  readonly callerEvents?: ReadonlyArray<string>
  readonly mirrors?: ReadonlyArray<AnyMirrorKind<R>>
}

/** Declares a module (keeps its literal types). */
export const make = <const M extends Module>(module: M): M => module
