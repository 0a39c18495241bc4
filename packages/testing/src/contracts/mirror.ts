/**
 * The contract of the mirrored write (`domain/src/shared/Mirror.ts`) over a store's outbox,
 * transactions and job queue: a crash after each step (the inline run interrupted between
 * steps, then the sweep), and a refusal, each ending in exactly one operator effect (or none)
 * and the local record equal to the operator's.
 *
 * The operator is a fake that keeps the idempotency key as the real order edges do: a second
 * call with the same key answers the first result and changes nothing.
 */
import { Catalog, CatalogRepo, Errors, Mirror, MirrorOutbox, type Store, type Tenant, Time } from "@switchboard/domain"
import { Effect, Exit, Option, Schema } from "effect"
import { describe, expect } from "vitest"
import { createStore, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt, ModuleContract } from "./ModuleContract.js"

/** A fake operator's catalogs: by id, and the id each idempotency key created. */
const fakeOperator = () => {
  const catalogs = new Map<string, { name: string }>()
  const byKey = new Map<string, string>()
  let calls = 0
  return {
    catalogs,
    get calls() {
      return calls
    },
    create: (name: string, key: string) =>
      Effect.suspend((): Effect.Effect<string, Errors.OperatorRejected | Errors.OperatorUnavailable> => {
        calls++
        if (name.startsWith("refused")) return Effect.fail(new Errors.OperatorRejected({ code: 100, reason: "refused by the fake" }))
        if (name.startsWith("down")) return Effect.fail(new Errors.OperatorUnavailable({ kind: "unreachable", reason: "down" }))
        const known = byKey.get(key)
        if (known !== undefined) return Effect.succeed(known)
        const id = `op_${catalogs.size + 1}_${key}`
        catalogs.set(id, { name })
        byKey.set(key, id)
        return Effect.succeed(id)
      }),
    rename: (id: string, name: string) =>
      Effect.suspend((): Effect.Effect<void, Errors.OperatorRejected> => {
        calls++
        if (name.startsWith("refused")) return Effect.fail(new Errors.OperatorRejected({ code: 100, reason: "refused by the fake" }))
        catalogs.set(id, { name })
        return Effect.void
      })
  }
}

const setup = Effect.gen(function* () {
  const operator = fakeOperator()
  const made = yield* createStore()
  const tenant = tenantOf(made.store.id, "test")
  const create = Mirror.kind({
    kind: `contract.create.${made.store.id}`,
    payload: Schema.Struct({ id: Catalog.CatalogId.schema, name: Schema.String }),
    call: (p: { readonly id: Catalog.CatalogId; readonly name: string }, step) => operator.create(p.name, step.key),
    settle: (p, operatorCatalogId: string, step) =>
      Effect.gen(function* () {
        const now = yield* Time.now
        const catalog: Catalog.Catalog = {
          id: p.id,
          storeId: step.tenant.storeId,
          mode: step.tenant.mode,
          name: p.name,
          operatorCatalogId,
          origin: "created",
          connected: true,
          createdAt: now,
          updatedAt: now
        }
        yield* Effect.orDie((yield* CatalogRepo.CatalogRepo).insert(step.tenant, catalog))
        return catalog
      })
  })
  const rename = Mirror.kind({
    kind: `contract.rename.${made.store.id}`,
    payload: Schema.Struct({ id: Catalog.CatalogId.schema, operatorCatalogId: Schema.String, from: Schema.String, to: Schema.String }),
    call: (p: { readonly id: Catalog.CatalogId; readonly operatorCatalogId: string; readonly from: string; readonly to: string }) =>
      operator.rename(p.operatorCatalogId, p.to),
    settle: () => Effect.void,
    compensate: (p, _error, step) =>
      Effect.asVoid(
        Effect.flatMap(Time.now, (now) => Effect.flatMap(CatalogRepo.CatalogRepo, (repo) => repo.update(step.tenant, p.id, { name: p.from }, now)))
      )
  })
  const kinds: ReadonlyArray<Mirror.AnyKind> = [create, rename]
  const account = made.store.sandbox as Store.OperatorAccount
  return { operator, tenant, create, rename, kinds, account }
})

type Setup = Effect.Effect.Success<typeof setup>

/** The inline run, crashed (interrupted) at `step`, or run to its end. */
const createAt = (s: Setup, name: string, crash?: "prepared" | "called") =>
  Effect.gen(function* () {
    const id = yield* Catalog.CatalogId.generate
    const run = Mirror.run(s.create, { tenant: s.tenant, account: s.account, prepare: Effect.succeed({ id, name }) })
    const exit = yield* Effect.exit(
      crash === undefined
        ? run
        : Effect.provideService(run, Mirror.Settings, {
            ...(yield* Mirror.Settings),
            between: (_kind, step) => (step === crash ? Effect.interrupt : Effect.void)
          })
    )
    return { id, exit }
  })

/** What the sweep job does for each of the tenant's unfinished writes. */
const sweepAll = (s: Setup, kind: string, jobAttempt = 1) =>
  Effect.gen(function* () {
    const pending = yield* (yield* MirrorOutbox.MirrorOutbox).pending(s.tenant, kind)
    for (const entry of pending) yield* Effect.either(Mirror.sweep(s.kinds, entry.id, jobAttempt))
    return pending.length
  })

/** The local catalogs equal the fake operator's: the same ids and names, one each. */
const expectMirrored = (s: Setup, tenant: Tenant.Tenant) =>
  Effect.gen(function* () {
    const local = (yield* (yield* CatalogRepo.CatalogRepo).list(tenant, { limit: 50 })).items
    expect(local.map((c) => [c.operatorCatalogId, c.name]).sort()).toEqual([...s.operator.catalogs].map(([id, c]) => [id, c.name]).sort())
    return local
  })

export const mirrorTests = (it: ContractIt): void => {
  describe("Mirror", () => {
    it.effect("runs prepare, call and settle inline: one operator effect, the row done, nothing left to sweep", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { exit } = yield* createAt(s, "Spring")
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(s.operator.catalogs.size).toBe(1)
        expect(yield* sweepAll(s, s.create.kind)).toBe(0)
        expect((yield* expectMirrored(s, s.tenant)).length).toBe(1)
      })
    )

    for (const crash of ["prepared", "called"] as const)
      it.effect(`a crash after the ${crash === "prepared" ? "prepare" : "call"} is finished by the sweep: one operator effect`, () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { id, exit } = yield* createAt(s, "Summer", crash)
          expect(Exit.isInterrupted(exit)).toBe(true)
          expect(s.operator.catalogs.size).toBe(crash === "prepared" ? 0 : 1)
          expect(yield* (yield* CatalogRepo.CatalogRepo).find(s.tenant, id)).toEqual(Option.none())
          expect(yield* sweepAll(s, s.create.kind)).toBe(1)
          // a second sweep (the job run again) finds nothing to do
          expect(yield* sweepAll(s, s.create.kind)).toBe(0)
          expect(s.operator.catalogs.size).toBe(1)
          const local = yield* expectMirrored(s, s.tenant)
          expect(local.map((c) => c.id)).toEqual([id])
        })
      )

    it.effect("a crash after the settle leaves nothing to sweep", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { exit } = yield* createAt(s, "Autumn")
        expect(Exit.isSuccess(exit)).toBe(true)
        const callsBefore = s.operator.calls
        expect(yield* sweepAll(s, s.create.kind)).toBe(0)
        expect(s.operator.calls).toBe(callsBefore)
        yield* expectMirrored(s, s.tenant)
      })
    )

    it.effect("a refusal compensates the intent and answers the refusal: no effect here or there", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { exit } = yield* createAt(s, "Winter")
        const created = Exit.isSuccess(exit) ? exit.value : yield* Effect.die("not created")
        const repo = yield* CatalogRepo.CatalogRepo
        const error = yield* Effect.flip(
          Mirror.run(s.rename, {
            tenant: s.tenant,
            account: s.account,
            // the intent: the new name, written before the call
            prepare: Effect.as(Effect.orDie(repo.update(s.tenant, created.id, { name: "refused name" }, yield* Time.now)), {
              id: created.id,
              operatorCatalogId: created.operatorCatalogId,
              from: created.name,
              to: "refused name"
            })
          })
        )
        expect(error).toBeInstanceOf(Errors.OperatorRejected)
        expect(Option.map(yield* repo.find(s.tenant, created.id), (c) => c.name)).toEqual(Option.some("Winter"))
        expect(yield* sweepAll(s, s.rename.kind)).toBe(0)
        yield* expectMirrored(s, s.tenant)
      })
    )

    it.effect("a refused create leaves no record and no pending row", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { exit } = yield* createAt(s, "refused catalog")
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* sweepAll(s, s.create.kind)).toBe(0)
        expect((yield* expectMirrored(s, s.tenant)).length).toBe(0)
      })
    )

    it.effect("a sweep whose operator stays unreachable retries, and compensates on its last attempt", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { exit } = yield* createAt(s, "down for now", "prepared")
        expect(Exit.isInterrupted(exit)).toBe(true)
        const outbox = yield* MirrorOutbox.MirrorOutbox
        const [entry] = yield* outbox.pending(s.tenant, s.create.kind)
        const failed = yield* Effect.either(Mirror.sweep(s.kinds, entry.id, 1))
        expect(failed._tag).toBe("Left")
        expect((yield* outbox.pending(s.tenant, s.create.kind)).length).toBe(1)
        yield* Mirror.sweep(s.kinds, entry.id, (yield* Mirror.Settings).sweepAttempts)
        expect(Option.map(yield* outbox.find(entry.id), (e) => e.status)).toEqual(Option.some("rolled_back"))
        expect((yield* expectMirrored(s, s.tenant)).length).toBe(0)
      })
    )

    it.effect("a sweep that took a write over fences the late inline settle out", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const outbox = yield* MirrorOutbox.MirrorOutbox
        const { exit } = yield* createAt(s, "Late", "prepared")
        expect(Exit.isInterrupted(exit)).toBe(true)
        const [entry] = yield* outbox.pending(s.tenant, s.create.kind)
        // the sweep takes it over at attempt 2; the inline path's attempt-1 settle can no longer move the row
        expect(yield* outbox.claim(entry.id, 1, yield* Time.now)).toBe(true)
        expect(yield* outbox.finish(entry.id, 1, "done", yield* Time.now)).toBe(false)
        expect(yield* outbox.finish(entry.id, 2, "done", yield* Time.now)).toBe(true)
        expect(yield* outbox.claim(entry.id, 2, yield* Time.now)).toBe(false)
      })
    )
  })
}

export const mirrorContract: ModuleContract = { name: "mirror", tests: mirrorTests }
