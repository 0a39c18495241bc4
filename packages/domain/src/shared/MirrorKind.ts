/** The types of a mirrored write's kind (see `Mirror.ts`), in a file of their own so that `Module.ts` can name them. */
import type { Effect, Option, Schema } from "effect"
import type { OperatorAccount } from "../stores/Store.js"
import type { Tenant } from "./Tenant.js"

/** What the call and settle of a kind are given. */
export interface Step {
  readonly tenant: Tenant
  readonly account: OperatorAccount
  /** The idempotency key: the same for every attempt of one mirrored write. */
  readonly key: string
  /** 1 inline, then one more for each sweep that took the write over. */
  readonly attempt: number
}

/** One kind of mirrored write: its stored payload, the operator call, and its two endings. */
export interface Kind<P, A, B, E, R> {
  readonly kind: string
  readonly payload: Schema.Schema<P, any>
  /** The operator call (never inside a transaction). */
  readonly call: (payload: P, ctx: Step) => Effect.Effect<A, E, R>
  /**
   * In the settle's transaction, after the row went pending → done: intent → done, caller
   * events. When it fails (the local write refused, say a concurrent change won), its writes
   * roll back, the row goes to rolled_back and its error is the answer.
   */
  readonly settle: (payload: P, answer: A, ctx: Step) => Effect.Effect<B, E, R>
  /** In a transaction, after the row went pending → rolled_back: undo the intent. */
  readonly compensate?: ((payload: P, error: E, ctx: Step) => Effect.Effect<void, never, R>) | undefined
  /** Before a sweep calls again: the operator's answer when it already took the call (for calls without a key). */
  readonly recover?: ((payload: P, ctx: Step) => Effect.Effect<Option.Option<A>, E, R>) | undefined
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds kinds of every type
export type AnyKind<R = any> = Kind<any, any, any, any, R>
