/**
 * The contract of `MessageStatusRepo.advanceStatuses` (many messages' conditional changes in
 * one statement) and of the batch's read of its messages (`findByOperatorIds`), which keeps
 * them locked until its transaction ends.
 */
import { type Message, MessagingRepo, Transactor } from "@switchboard/domain"
import { Deferred, Effect, Fiber, Option } from "effect"
import { describe, expect } from "vitest"
import { message, threeTenants } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const statusSetTests = (it: ContractIt): void => {
  describe("MessageStatusRepo.advanceStatuses", () => {
    it.effect("moves each message only from its own status, fills in an unknown wamid, sets the error when given; answers the ids changed", () =>
      Effect.gen(function* () {
        const { aLive, aTest, bLive } = yield* threeTenants
        const repo = yield* MessagingRepo.MessageRepo
        const status = yield* MessagingRepo.MessageStatusRepo
        const make = (tenant: typeof aLive, overrides: Partial<Message.Message>) =>
          Effect.tap(message(tenant, overrides), (m) => repo.insert(tenant, m))
        const sent = yield* make(aLive, { status: "sent", operatorMessageId: "wamid.sent" })
        const unknownWamid = yield* make(aTest, { status: "accepted", operatorMessageId: null })
        const moved = yield* make(aLive, { status: "delivered", operatorMessageId: "wamid.moved" })
        const failing = yield* make(aLive, { status: "sent", operatorMessageId: "wamid.failing", error: { code: 1, title: "earlier" } })
        const keepsError = yield* make(aTest, { status: "sent", operatorMessageId: "wamid.keeps", error: { code: 2, title: "kept" } })
        const otherStore = yield* make(bLive, { status: "sent", operatorMessageId: "wamid.other" })

        expect(yield* status.advanceStatuses(aLive.storeId, [])).toEqual(new Set())
        const changed = yield* status.advanceStatuses(aLive.storeId, [
          { id: sent.id, from: "sent", to: "read", operatorMessageId: "wamid.new" },
          { id: unknownWamid.id, from: "accepted", to: "delivered", operatorMessageId: "wamid.filled" },
          // read in `sent`, but another writer moved it since: left as is
          { id: moved.id, from: "sent", to: "read", operatorMessageId: "wamid.moved" },
          {
            id: failing.id,
            from: "sent",
            to: "failed",
            operatorMessageId: "wamid.failing",
            error: { code: 131_026, title: "Message undeliverable" }
          },
          { id: keepsError.id, from: "sent", to: "delivered", operatorMessageId: "wamid.keeps" },
          // another store's message is never touched
          { id: otherStore.id, from: "sent", to: "read", operatorMessageId: "wamid.other" }
        ])
        expect(changed).toEqual(new Set([sent.id, unknownWamid.id, failing.id, keepsError.id]))

        const row = (tenant: typeof aLive, id: Message.MessageId) => Effect.map(repo.findById(tenant, id), Option.getOrThrow)
        expect(yield* row(aLive, sent.id)).toMatchObject({ status: "read", operatorMessageId: "wamid.sent", error: null })
        expect(yield* row(aTest, unknownWamid.id)).toMatchObject({ status: "delivered", operatorMessageId: "wamid.filled", error: null })
        expect(yield* row(aLive, moved.id)).toMatchObject({ status: "delivered", operatorMessageId: "wamid.moved" })
        expect(yield* row(aLive, failing.id)).toMatchObject({ status: "failed", error: { code: 131_026, title: "Message undeliverable" } })
        expect(yield* row(aTest, keepsError.id)).toMatchObject({ status: "delivered", error: { code: 2, title: "kept" } })
        expect(yield* row(bLive, otherStore.id)).toMatchObject({ status: "sent" })
        expect((yield* row(aLive, sent.id)).updatedAt).toBeGreaterThanOrEqual(sent.updatedAt)

        // a change already applied changes nothing again
        expect(yield* status.advanceStatuses(aLive.storeId, [{ id: sent.id, from: "sent", to: "read", operatorMessageId: "x" }])).toEqual(new Set())
      })
    )

    it.effect("a batch larger than one statement binds is applied whole", () =>
      Effect.gen(function* () {
        const { aLive } = yield* threeTenants
        const repo = yield* MessagingRepo.MessageRepo
        const messages = yield* Effect.forEach(
          Array.from({ length: 1_100 }, (_, n) => n),
          (n) => Effect.tap(message(aLive, { status: "sent", operatorMessageId: `wamid.many.${aLive.storeId}.${n}` }), (m) => repo.insert(aLive, m))
        )
        const changed = yield* (yield* MessagingRepo.MessageStatusRepo).advanceStatuses(
          aLive.storeId,
          messages.map((m) => ({ id: m.id, from: "sent" as const, to: "delivered" as const, operatorMessageId: m.operatorMessageId! }))
        )
        expect(changed.size).toBe(1_100)
        const found = yield* (yield* MessagingRepo.MessageStatusRepo).findByOperatorIds(
          aLive.storeId,
          messages.slice(0, 300).map((m) => m.operatorMessageId!)
        )
        expect(found.map((m) => m.status)).toEqual(Array.from({ length: 300 }, () => "delivered"))
      })
    )

    it.effect("a batch's read holds its messages until it commits: a concurrent report waits, then finds the batch's change", () =>
      Effect.gen(function* () {
        const { aLive } = yield* threeTenants
        const repo = yield* MessagingRepo.MessageRepo
        const status = yield* MessagingRepo.MessageStatusRepo
        const tx = yield* Transactor.Transactor
        const m = yield* message(aLive, { status: "sent", operatorMessageId: `wamid.locked.${aLive.storeId}` })
        yield* repo.insert(aLive, m)
        const read = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const batch = yield* Effect.fork(
          tx.withTransaction(
            Effect.gen(function* () {
              const [locked] = yield* status.findByOperatorIds(aLive.storeId, [m.operatorMessageId!])
              yield* Deferred.succeed(read, undefined)
              yield* Deferred.await(release)
              return yield* status.advanceStatuses(aLive.storeId, [{ id: locked.id, from: locked.status, to: "read", operatorMessageId: "w" }])
            })
          )
        )
        yield* Deferred.await(read)
        // a report from `sent` to `delivered`, in a transaction of its own: it cannot pass the batch
        const report = yield* Effect.fork(tx.withTransaction(repo.advanceStatus(aLive, m.id, { to: "delivered", from: ["sent"] })))
        // long enough for an unhindered report to commit (time on the wall: the database's, not the Clock's)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 150)))
        expect(Option.isNone(yield* Fiber.poll(report))).toBe(true)
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(batch)).toEqual(new Set([m.id]))
        expect(yield* Fiber.join(report)).toBe(false)
        expect(Option.getOrThrow(yield* repo.findById(aLive, m.id)).status).toBe("read")
      })
    )
  })
}
