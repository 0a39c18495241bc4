/**
 * The one shape of a control route (launch, pause, resume, cancel a campaign; acknowledge
 * or cancel an order; approve a return; end a call; publish a flow):
 *
 *   1. load the resource in the caller's tenant (404 for anything else),
 *   2. ask the state machine whether the operation is allowed in its status,
 *   3. compare-and-set the status in storage (only from the status just read),
 *   4. emit the caller event, in the same transaction as the change.
 *
 * When the compare-and-set loses to a concurrent change, the resource is read again and
 * the refusal names the status it has now. A module's control is then one line:
 *
 *   export const pause = (id: string) => Control.run({ ...campaignControl(id), operation: "pause", emit: ... })
 */
import { Effect, Either, Option } from "effect"
import { Transactor } from "../jobs/Transactor.js"
import { InvalidState } from "./Errors.js"

export interface Spec<A, S extends string, Op, E1, R1, E2, R2, R3> {
  /** The resource in the caller's tenant (fails with ResourceNotFound otherwise). */
  readonly load: Effect.Effect<A, E1, R1>
  readonly status: (a: A) => S
  /** The module's state machine: the status after `operation`, or InvalidState. */
  readonly transition: (status: S, operation: Op) => Either.Either<S, InvalidState>
  readonly operation: Op
  /** Writes `to` only while the stored status is still `from`; None when it was not. */
  readonly compareAndSet: (current: A, from: S, to: S) => Effect.Effect<Option.Option<A>, E2, R2>
  /** The caller event of the change (runs in the change's transaction). */
  readonly emit?: ((after: A, before: A) => Effect.Effect<unknown, never, R3>) | undefined
}

/** Runs one control operation; answers the resource after the change. */
export const run = <A, S extends string, Op, E1, R1, E2, R2, R3 = never>(
  spec: Spec<A, S, Op, E1, R1, E2, R2, R3>
): Effect.Effect<A, E1 | E2 | InvalidState, R1 | R2 | R3 | Transactor> =>
  Effect.gen(function* () {
    const current = yield* spec.load
    const from = spec.status(current)
    const to = yield* Either.match(spec.transition(from, spec.operation), { onLeft: Effect.fail, onRight: Effect.succeed })
    const tx = yield* Transactor
    const after = yield* tx.withTransaction(
      Effect.gen(function* () {
        const changed = yield* spec.compareAndSet(current, from, to)
        if (Option.isSome(changed) && spec.emit !== undefined) yield* spec.emit(changed.value, current)
        return changed
      })
    )
    if (Option.isSome(after)) return after.value
    // lost to a concurrent change: refuse with the status present now
    const now = yield* spec.load
    const refusal = spec.transition(spec.status(now), spec.operation)
    return yield* Effect.fail(
      Either.isLeft(refusal) ? refusal.left : new InvalidState({ resource: "resource", status: spec.status(now), operation: String(spec.operation) })
    )
  })
