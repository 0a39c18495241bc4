/**
 * The guard of "no operator call inside a database transaction" (`OperatorGuard.ts`): a call
 * that starts inside a transaction of the real store logs the fixed phrase the end-to-end
 * harness looks for; one outside any transaction logs nothing. The harness's copy of the
 * phrase is the guard's.
 */
import { it } from "@effect/vitest"
import { Transactor } from "@switchboard/domain"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Effect, Layer, Logger } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"
import * as OperatorGuard from "../src/OperatorGuard.js"
import { OPERATOR_IN_TRANSACTION } from "./harness.js"

describe("operator guard", () => {
  const logs: Array<string> = []
  const capture = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message }) => logs.push(JSON.stringify(message)))
  )
  const store = StoreSqlite.layer({ filename: join(mkdtempSync(join(tmpdir(), "sb-guard-")), "store.sqlite") })

  it.effect("logs the phrase when an operator call starts inside a transaction, and nothing outside one", () =>
    Effect.gen(function* () {
      let calls = 0
      const operator = OperatorGuard.guard("FakeOperator", { ping: (n: number) => Effect.sync(() => (calls += n)) })
      const tx = yield* Transactor.Transactor
      yield* operator.ping(1)
      expect(logs).toEqual([])
      yield* tx.withTransaction(operator.ping(1))
      expect(calls).toBe(2)
      expect(logs.filter((l) => l.includes(`${OPERATOR_IN_TRANSACTION}: FakeOperator.ping`)).length).toBe(1)
      // after the transaction, calls are clean again
      yield* operator.ping(1)
      expect(logs.length).toBe(1)
    }).pipe(Effect.provide(Layer.merge(store, capture)))
  )

  it("the harness looks for the guard's phrase", () => {
    expect(OPERATOR_IN_TRANSACTION).toBe(OperatorGuard.PHRASE)
  })
})
