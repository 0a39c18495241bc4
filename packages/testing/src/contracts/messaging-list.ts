/** The contract of `MessageRepo.list`: newest first, in the tenant only, paged, filtered by status and recipient. */
import { MessagingRepo } from "@switchboard/domain"
import { Effect, TestClock } from "effect"
import { describe, expect } from "vitest"
import { message, phone, threeTenants } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const messageListTests = (it: ContractIt): void => {
  describe("MessageRepo.list", () => {
    it.effect("lists the tenant's messages newest first, strictly before the cursor, with hasMore", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const inserted = []
        for (let i = 0; i < 5; i++) {
          const m = yield* message(aLive)
          yield* repo.insert(aLive, m)
          inserted.push(m)
          yield* TestClock.adjust(1)
        }
        // the other mode's and the other store's messages are invisible
        yield* repo.insert(aTest, yield* message(aTest))
        yield* repo.insert(bLive, yield* message(bLive))
        const newestFirst = [...inserted].reverse()

        const first = yield* repo.list(aLive, { limit: 2 })
        expect(first.items).toEqual(newestFirst.slice(0, 2))
        expect(first.hasMore).toBe(true)
        const second = yield* repo.list(aLive, { limit: 2, after: first.items[1].id })
        expect(second.items).toEqual(newestFirst.slice(2, 4))
        const third = yield* repo.list(aLive, { limit: 2, after: second.items[1].id })
        expect(third).toEqual({ items: [newestFirst[4]], hasMore: false })
        expect(yield* repo.list(aLive, { limit: 5 })).toEqual({ items: newestFirst, hasMore: false })
        expect((yield* repo.list(aTest, { limit: 10 })).items).toHaveLength(1)
        expect((yield* repo.list(bLive, { limit: 10 })).items).toHaveLength(1)
      })
    )

    it.effect("filters by status and by recipient, together with the cursor", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const { aLive, bLive } = yield* threeTenants
        const ana = phone()
        const rows = [
          yield* message(aLive, { to: ana, status: "delivered" }),
          yield* message(aLive, { status: "delivered" }),
          yield* message(aLive, { to: ana, status: "failed", error: { code: 131026, title: "Message undeliverable" } }),
          yield* message(aLive, { to: ana, status: "delivered" })
        ]
        for (const m of rows) {
          yield* repo.insert(aLive, m)
          yield* TestClock.adjust(1)
        }
        yield* repo.insert(bLive, yield* message(bLive, { to: ana, status: "delivered" }))

        const delivered = yield* repo.list(aLive, { limit: 10, status: "delivered" })
        expect(delivered.items.map((m) => m.id)).toEqual([rows[3].id, rows[1].id, rows[0].id])
        expect((yield* repo.list(aLive, { limit: 10, to: ana })).items.map((m) => m.id)).toEqual([rows[3].id, rows[2].id, rows[0].id])
        const both = yield* repo.list(aLive, { limit: 1, to: ana, status: "delivered" })
        expect(both).toEqual({ items: [rows[3]], hasMore: true })
        expect(yield* repo.list(aLive, { limit: 1, to: ana, status: "delivered", after: rows[3].id })).toEqual({ items: [rows[0]], hasMore: false })
        expect((yield* repo.list(aLive, { limit: 10, status: "failed" })).items).toEqual([rows[2]])
        expect(yield* repo.list(aLive, { limit: 10, status: "read" })).toEqual({ items: [], hasMore: false })
        expect(yield* repo.list(aLive, { limit: 10, to: phone() })).toEqual({ items: [], hasMore: false })
      })
    )
  })
}
