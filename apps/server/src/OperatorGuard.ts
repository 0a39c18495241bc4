/**
 * The guard of the rule "no operator call inside a database transaction" (ARCHITECTURE.md,
 * "A mirrored write"): with `SWITCHBOARD_TEST_GUARD_OPERATOR_TX=1` (the end-to-end harness
 * always sets it), every method of every operator capability checks, when its call starts,
 * whether the fiber holds a transaction (`Transactor.InTransaction`), and if so logs a defect
 * with `PHRASE`. The call then goes on as it would have: the harness fails the test when the
 * phrase is in the server's output, so the rule is checked across every end-to-end test on
 * both stores without changing what the routes answer.
 */
import {
  CallOperator,
  CommerceOperator,
  FlowOperator,
  MessageOperator,
  OrderOperator,
  SandboxCustomer,
  TemplateOperator,
  Transactor
} from "@switchboard/domain"
import { Cause, type Context, Effect, FiberRef, Layer } from "effect"

/** The fixed phrase of the defect; the harness looks for it. */
export const PHRASE = "operator call inside a database transaction"

/** `effect`, preceded by the defect's log line when it starts inside a transaction. */
export const checked = <A, E, R>(capability: string, method: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(Transactor.InTransaction), (inside) =>
    inside
      ? Effect.zipRight(Effect.logError(`${PHRASE}: ${capability}.${method}`, Cause.die(new Error(`${PHRASE}: ${capability}.${method}`))), effect)
      : effect
  )

/** The service with each method that answers an Effect checked. */
export const guard = <S extends object>(capability: string, service: S): S =>
  Object.fromEntries(
    Object.entries(service).map(([method, value]) => [
      method,
      typeof value === "function"
        ? (...args: Array<unknown>) => {
            const result = (value as (...a: Array<unknown>) => unknown).apply(service, args)
            return Effect.isEffect(result) ? checked(capability, method, result) : result
          }
        : value
    ])
  ) as S

const guarded = <I, S extends object>(tag: Context.Tag<I, S>): Layer.Layer<I, never, I> =>
  Layer.effect(
    tag,
    Effect.map(tag, (service) => guard(tag.key.split("/").pop() ?? tag.key, service))
  )

/** The operator capabilities of `layer`, each guarded. */
export const layer = <E, R>(operator: Layer.Layer<OperatorServices, E, R>): Layer.Layer<OperatorServices, E, R> =>
  Layer.provide(
    Layer.mergeAll(
      guarded(TemplateOperator.TemplateOperator),
      guarded(MessageOperator.MessageOperator),
      guarded(SandboxCustomer.SandboxCustomer),
      guarded(CommerceOperator.CommerceOperator),
      guarded(OrderOperator.OrderOperator),
      guarded(CallOperator.CallOperator),
      guarded(FlowOperator.FlowOperator)
    ),
    operator
  )

export type OperatorServices =
  | TemplateOperator.TemplateOperator
  | MessageOperator.MessageOperator
  | SandboxCustomer.SandboxCustomer
  | CommerceOperator.CommerceOperator
  | OrderOperator.OrderOperator
  | CallOperator.CallOperator
  | FlowOperator.FlowOperator
