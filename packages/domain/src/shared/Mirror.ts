/**
 * The one way a local write crosses to the operator: a mirrored write, in three steps.
 *
 *   1. prepare (one transaction): load in the tenant, check the state machine, write the
 *      intent (the new status, or a pending record), an outbox row naming the operator call
 *      (kind, tenant, the Schema-encoded payload, the idempotency key, attempt 1) and a
 *      `mirror.sweep` job due a little later (`Settings.sweepDelayMs`). Commit.
 *   2. call (outside any transaction): the operator call, with the outbox row's id as its
 *      idempotency key (or, where the operator takes none, fenced by the row's attempt).
 *   3. settle (one transaction): compare-and-set the outbox row pending → done, then the
 *      kind's `settle` (intent → done, the caller events). Its commit does not wait for the
 *      disk (`durable: false`): a settle that a database crash loses leaves the row pending,
 *      as a crash of ours between the call and the settle does, and the sweep finishes it. On a failure of the call (a
 *      refusal, or the operator unreachable after the client's retries) the row goes
 *      pending → rolled_back and the kind's `compensate` undoes the intent, in one
 *      transaction; the failure is the caller's answer (as it was before the runner).
 *
 * A route that must answer the operator's verdict runs the three steps inline (`run`). A
 * crash between them is finished by the sweep job (`sweepJob`): when it finds the row still
 * pending it takes it over (attempt + 1), asks the kind's `recover` whether the operator
 * already took the call, calls it otherwise, and settles or compensates the same way. An
 * unreachable operator in the sweep is retried by the job's backoff; its last attempt
 * compensates. The inline path marks the row done, so the job is then a no-op.
 *
 * `Control.run` is the case with no operator step. Mirror kinds are declared by the modules
 * (`mirrors` in their `module.ts`), so the sweep can rebuild the call and settle from the
 * stored payload.
 *
 *   const create = Mirror.kind({
 *     kind: "catalogs.create",
 *     payload: Schema.Struct({ id: CatalogId.schema, name: Schema.String }),
 *     call: (p, { account }) => CommerceOperator.pipe(Effect.flatMap((op) => op.createCatalog(account, p.name))),
 *     settle: (p, operatorCatalogId, { tenant }) => record(tenant, p, operatorCatalogId)
 *   })
 *   Mirror.run(create, { tenant, account, prepare: Effect.succeed({ id, name }) })
 */
import { Context, Effect, Either, Option, Schema } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import { StoreRepo } from "../stores/StoreRepo.js"
import { accountFor, type OperatorAccount } from "../stores/Store.js"
import { OperatorUnavailable } from "./Errors.js"
import * as Id from "./Id.js"
import * as Module from "./Module.js"
import type { AnyKind, Kind, Step } from "./MirrorKind.js"
import { type Entry, MirrorOutbox } from "./MirrorOutbox.js"
import type { StoreId, Tenant } from "./Tenant.js"
import * as Time from "./Time.js"

export type { AnyKind, Kind, Step } from "./MirrorKind.js"

/** Declares a mirror kind (infers its types: the call's and the settle's errors and services apart). */
export const kind = <P, A, B, E1, R1, E2 = never, R2 = never, R3 = never>(k: {
  readonly kind: string
  readonly payload: Schema.Schema<P, any>
  readonly call: (payload: P, ctx: Step) => Effect.Effect<A, E1, R1>
  readonly settle: (payload: P, answer: A, ctx: Step) => Effect.Effect<B, E2, R2>
  readonly compensate?: ((payload: P, error: E1, ctx: Step) => Effect.Effect<void, never, R3>) | undefined
  readonly recover?: ((payload: P, ctx: Step) => Effect.Effect<Option.Option<A>, E1, R1>) | undefined
}): Kind<P, A, B, E1 | E2, R1 | R2 | R3> => k as Kind<P, A, B, E1 | E2, R1 | R2 | R3>

/** The runner's settings; apps/server sets them from the environment. */
export class Settings extends Context.Reference<Settings>()("@switchboard/domain/MirrorSettings", {
  defaultValue: () => ({
    /** How long after prepare the sweep looks at a write (longer than any inline call). */
    sweepDelayMs: 60_000,
    /** Sweep attempts before a write whose operator stays unreachable is compensated. */
    sweepAttempts: 8,
    /** Test hook: runs between the steps (`step` is "prepared" or "called"); a crash test hangs here and kills the process. */
    between: (_kind: string, _step: "prepared" | "called"): Effect.Effect<void> => Effect.void
  })
}) {}

export const SWEEP_JOB = "mirror.sweep"

/** The write was taken over by a sweep while the inline call waited; the sweep finishes it. */
const superseded = new OperatorUnavailable({
  kind: "unreachable",
  reason: "the operator answered late; the change is being finished in the background"
})

type Outcome<A, E> = Either.Either<A, E>

/** Step 3: settle or compensate at `ctx.attempt`; None when the row had moved (another path owns it). */
const finish = <P, A, B, E, R>(k: Kind<P, A, B, E, R>, id: string, payload: P, outcome: Outcome<A, E>, ctx: Step) =>
  Effect.gen(function* () {
    const outbox = yield* MirrorOutbox
    const tx = yield* Transactor
    const now = yield* Time.now
    return yield* tx
      .withTransaction(
        Effect.gen(function* () {
          if (!(yield* outbox.finish(id, ctx.attempt, Either.isRight(outcome) ? "done" : "rolled_back", now))) return Option.none<Outcome<B, E>>()
          if (Either.isRight(outcome)) return Option.some<Outcome<B, E>>(Either.right(yield* k.settle(payload, outcome.right, ctx)))
          if (k.compensate !== undefined) yield* k.compensate(payload, outcome.left, ctx)
          return Option.some<Outcome<B, E>>(Either.left(outcome.left))
        }),
        // a settle lost to a crash of the database is the crash between the call and the
        // settle that the sweep finishes: its commit need not wait for the disk
        { durable: false }
      )
      .pipe(
        // the settle refused: its writes rolled back; the row is rolled back and the refusal answered
        Effect.catchAll((error) =>
          Effect.as(tx.withTransaction(outbox.finish(id, ctx.attempt, "rolled_back", now)), Option.some<Outcome<B, E>>(Either.left(error)))
        )
      )
  })

/**
 * The prepare's writes of one mirrored write (the outbox row and its sweep job), inside the
 * caller's transaction; answers the row's id. `run` uses it; a settle uses it to chain a
 * second mirrored write to its own commit (finished inline by `complete`, or by the sweep).
 */
export const enqueue = <P, A, B, E, R>(k: Kind<P, A, B, E, R>, tenant: Tenant, payload: P) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const id = yield* Id.generate("mir")
    const now = yield* Time.now
    const encoded = yield* Schema.encode(k.payload)(payload).pipe(Effect.orDie)
    yield* (yield* MirrorOutbox).insert({
      id,
      storeId: tenant.storeId,
      mode: tenant.mode,
      kind: k.kind,
      payload: encoded,
      key: id,
      attempt: 1,
      status: "pending",
      createdAt: now,
      updatedAt: now
    })
    yield* (yield* JobQueue).enqueue(
      Module.job(sweepKind, { id }, { runAt: now + settings.sweepDelayMs, storeId: tenant.storeId, dedupeKey: `mirror:${id}` })
    )
    return id
  })

/** Steps 2 and 3 of a write `enqueue`d (committed): the call and the settle at attempt 1, inline. */
export const complete = <P, A, B, E, R>(
  k: Kind<P, A, B, E, R>,
  id: string,
  payload: P,
  input: { readonly tenant: Tenant; readonly account: OperatorAccount }
) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const ctx: Step = { tenant: input.tenant, account: input.account, key: id, attempt: 1 }
    yield* settings.between(k.kind, "prepared")
    const outcome = yield* Effect.either(k.call(payload, ctx))
    yield* settings.between(k.kind, "called")
    const finished = yield* finish(k, id, payload, outcome, ctx)
    if (Option.isNone(finished)) return yield* Effect.fail(superseded)
    return yield* Either.match(finished.value, { onLeft: Effect.fail, onRight: Effect.succeed })
  })

/**
 * Runs one mirrored write inline: `prepare` (the kind's intent, in the same transaction as
 * the outbox row and the sweep job), the call, the settle. Answers the settle's result, or
 * the call's failure after compensation.
 */
export const run = <P, A, B, E, R, E0, R0>(
  k: Kind<P, A, B, E, R>,
  input: { readonly tenant: Tenant; readonly account: OperatorAccount; readonly prepare: Effect.Effect<P, E0, R0> }
) =>
  Effect.gen(function* () {
    const tx = yield* Transactor
    const [id, payload] = yield* tx.withTransaction(
      Effect.gen(function* () {
        const p = yield* input.prepare
        return [yield* enqueue(k, input.tenant, p), p] as const
      })
    )
    return yield* complete(k, id, payload, input)
  })

const SweepPayload = Schema.Struct({ id: Schema.String })

/** The sweep job's shape (its `run` is bound to the registered kinds by `sweepJob`). */
const sweepKind = Module.jobKind({ kind: SWEEP_JOB, payload: SweepPayload, transactional: false, run: () => Effect.void })

/** Finishes one pending write from its outbox row (the sweep's work); a no-op once the row is done or rolled back. */
export const sweep = <R>(kinds: ReadonlyArray<AnyKind<R>>, id: string, jobAttempt: number) =>
  Effect.gen(function* () {
    const outbox = yield* MirrorOutbox
    const found = yield* outbox.find(id)
    if (Option.isNone(found) || found.value.status !== "pending") return
    const entry: Entry = found.value
    const k = kinds.find((candidate) => candidate.kind === entry.kind)
    if (k === undefined) return yield* Effect.die(new Error(`no mirror kind ${entry.kind} is registered`))
    const store = yield* Effect.flatMap(StoreRepo, (stores) => stores.findById(entry.storeId as StoreId))
    if (Option.isNone(store)) return
    const payload = yield* Schema.decodeUnknown(k.payload)(entry.payload).pipe(Effect.orDie)
    if (!(yield* outbox.claim(id, entry.attempt, yield* Time.now))) return
    const tenant: Tenant = { storeId: store.value.id, mode: entry.mode }
    const ctx: Step = { tenant, account: accountFor(store.value, entry.mode), key: entry.key, attempt: entry.attempt + 1 }
    const recovered = k.recover === undefined ? Option.none() : yield* Effect.orElseSucceed(k.recover(payload, ctx), () => Option.none())
    const outcome: Outcome<unknown, unknown> = Option.isSome(recovered) ? Either.right(recovered.value) : yield* Effect.either(k.call(payload, ctx))
    const settings = yield* Settings
    // an unreachable operator: try again later (the job's backoff), and compensate on the last attempt
    if (Either.isLeft(outcome) && isUnavailable(outcome.left) && jobAttempt < settings.sweepAttempts) return yield* Effect.fail(outcome.left)
    yield* finish(k, id, payload, outcome, ctx)
  })

const isUnavailable = (e: unknown): boolean => typeof e === "object" && e !== null && "_tag" in e && e._tag === "OperatorUnavailable"

/** The `mirror.sweep` job kind over the registered mirror kinds (built by `Registry.ts`). */
export const sweepJob = <R>(kinds: ReadonlyArray<AnyKind<R>>) =>
  Module.jobKind({
    kind: SWEEP_JOB,
    payload: SweepPayload,
    transactional: false,
    maxAttempts: 20,
    backoffMs: (attempt: number) => Math.min(60_000, 1_000 * 2 ** attempt),
    run: (payload: typeof SweepPayload.Type, job) => sweep(kinds, payload.id, job.attempt)
  })
