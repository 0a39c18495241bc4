/**
 * `CommerceClient`'s items_batch calls against the real emulator over real HTTP:
 * `submitItems` answers the operator's handle, `itemsBatchStatus` follows the chunk to
 * `finished` with the operator's issues mapped, and the catalog quota's 80014 is
 * `OperatorUnavailable` (`rate_limited`, code 80014) after exactly one request.
 */
import { describe, expect, it } from "@effect/vitest"
import { CommerceOperator, Errors, OperatorErrorCode, Store } from "@switchboard/domain"
import { type Emulator, startEmulator } from "@switchboard/operator-emulator"
import { Cause, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import { afterAll, beforeAll } from "vitest"
import { GraphTransport, OperatorClient } from "../src/index.js"

const APP_SECRET = "items-batch-app-secret"
const ACCESS_TOKEN = "items-batch-access-token"
const PROCESS_MS = 100

let emulator: Emulator

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, appSecret: APP_SECRET, accessToken: ACCESS_TOKEN, itemsBatchProcessMs: PROCESS_MS })
})

afterAll(async () => {
  await emulator?.close()
})

/**
 * A client whose retry budget would allow retries of a rate limit (several, for minutes): a
 * submit answered at once after one request is one the adapter did not retry.
 */
const withClient = <A, E>(effect: Effect.Effect<A, E, CommerceOperator.CommerceOperator>) =>
  Effect.suspend(() =>
    Effect.provide(
      effect,
      OperatorClient.layer({
        sandbox: { baseUrl: emulator.url, accessToken: Redacted.make(ACCESS_TOKEN), appSecret: Redacted.make(APP_SECRET) },
        verifyToken: Redacted.make("verify"),
        maxRetries: 5,
        retryBudgetMs: 600_000
      }).pipe(Layer.provide(GraphTransport.layer()))
    )
  )
const itemsBatches = (catalogId: string) =>
  Effect.promise(async () => (await (await fetch(`${emulator.url}/_emulator/items-batches?catalog_id=${catalogId}`)).json()) as any)

const product = (id: string, extra: Record<string, unknown> = {}): CommerceOperator.ItemRequest => ({
  method: "CREATE",
  data: { id, name: `Product ${id}`, price: 1250, currency: "EUR", image_url: `https://images.example.com/${id}.png`, ...extra }
})

/** Reads the chunk's progress until it is finished (the emulator takes PROCESS_MS). */
const untilFinished = (account: Store.OperatorAccount, catalogId: string, handle: string) =>
  Effect.gen(function* () {
    const commerce = yield* CommerceOperator.CommerceOperator
    const seen: Array<CommerceOperator.ItemsBatchProgress["status"]> = []
    for (let i = 0; i < 100; i++) {
      const progress = yield* commerce.itemsBatchStatus(account, catalogId, handle)
      seen.push(progress.status)
      if (progress.status === "finished") return { progress, seen }
      yield* Effect.sleep(Duration.millis(20))
    }
    throw new Error(`chunk ${handle} did not finish`)
  })

const expectFailure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}

/** A sandbox account with a new catalog of its own (created and connected through the client). */
const withCatalog = Effect.gen(function* () {
  const commerce = yield* CommerceOperator.CommerceOperator
  const account = Store.newSandboxAccount()
  const catalogId = yield* commerce.createCatalog(account, "Items batch test")
  return { commerce, account, catalogId }
})

describe("CommerceClient items_batch", () => {
  it.live("submitItems answers a handle; itemsBatchStatus goes from started to finished with the issues mapped", () =>
    withClient(
      Effect.gen(function* () {
        const { commerce, account, catalogId } = yield* withCatalog
        const handle = yield* commerce.submitItems(
          account,
          catalogId,
          [
            product("ok"),
            product("blurry", { image_url: "https://cdn.example.invalid/blurry.png" }),
            product("fake", { name: "counterfeit watch" }),
            { method: "DELETE", data: { id: "ghost" } },
            { method: "CREATE", data: { id: "bare", name: "Bare" } }
          ],
          true
        )
        expect(handle).toEqual(expect.any(String))

        const first = yield* commerce.itemsBatchStatus(account, catalogId, handle)
        expect(first).toEqual({ status: "started", issues: [] })

        const { progress, seen } = yield* untilFinished(account, catalogId, handle)
        expect(seen.at(-1)).toBe("finished")
        expect(progress.issues).toEqual([
          { line: 1, retailerId: "blurry", type: "IMAGE_QUALITY", severity: "MUST_FIX", message: expect.any(String) },
          { line: 2, retailerId: "fake", type: "POLICY_VIOLATION", severity: "MUST_FIX", message: expect.any(String) },
          { line: 3, retailerId: "ghost", type: "ITEM_NOT_FOUND", severity: "MUST_FIX", message: expect.any(String) },
          { line: 4, retailerId: "bare", type: "ATTRIBUTES_MISSING", severity: "MUST_FIX", message: expect.stringContaining("price") }
        ])

        // the operator's products, as listItems reads them
        const page = yield* commerce.listItems(account, catalogId, undefined)
        expect(page.next).toBeUndefined()
        expect(page.items.map((i) => [i.retailerId, i.reviewStatus])).toEqual([
          ["ok", "approved"],
          ["blurry", "rejected"],
          ["fake", "rejected"]
        ])
        expect(page.items[0].fields).toMatchObject({ name: "Product ok", price: 1250, currency: "EUR" })
        expect(page.items[1].errors).toEqual([{ type: "IMAGE_QUALITY", message: expect.any(String) }])
      })
    )
  )

  it.live("sends allow_upsert as given: false makes an UPDATE of an unknown item ITEM_NOT_FOUND", () =>
    withClient(
      Effect.gen(function* () {
        const { commerce, account, catalogId } = yield* withCatalog
        const strict = yield* commerce.submitItems(account, catalogId, [{ ...product("new"), method: "UPDATE" }], false)
        expect((yield* untilFinished(account, catalogId, strict)).progress.issues).toEqual([
          expect.objectContaining({ line: 0, retailerId: "new", type: "ITEM_NOT_FOUND" })
        ])
        const upsert = yield* commerce.submitItems(account, catalogId, [{ ...product("new"), method: "UPDATE" }], true)
        expect((yield* untilFinished(account, catalogId, upsert)).progress.issues).toEqual([])
        expect(yield* itemsBatches(catalogId)).toMatchObject({ calls: 2, refused: 0, requests: 2 })
      })
    )
  )

  it.live("an 80014 answer is OperatorUnavailable rate_limited with code 80014, after one request and no retry", () =>
    withClient(
      Effect.gen(function* () {
        const { commerce, account, catalogId } = yield* withCatalog
        yield* Effect.sync(() => emulator.configure({ catalogBatchCalls: 1, catalogBatchWindowMs: 60_000 }))
        yield* commerce.submitItems(account, catalogId, [product("a")], true)

        const exit = yield* commerce.submitItems(account, catalogId, [product("b")], true).pipe(
          // a retry would wait the operator's minute: the answer must come at once
          Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new Error("submitItems was retried (no answer within 5 s)") }),
          Effect.exit
        )
        const failure = expectFailure(exit)
        expect(failure).toBeInstanceOf(Errors.OperatorUnavailable)
        expect(failure).toMatchObject({ kind: "rate_limited", code: OperatorErrorCode.CATALOG_BATCH_RATE_LIMIT, retryAfterSeconds: 60 })
        expect(OperatorErrorCode.CATALOG_BATCH_RATE_LIMIT).toBe(80014)

        // the emulator saw one refused call: the adapter did not retry
        expect(yield* itemsBatches(catalogId)).toEqual({ calls: 1, refused: 1, duplicates: 0, requests: 1 })
      }).pipe(Effect.ensuring(Effect.sync(() => emulator.configure({ catalogBatchCalls: 10, catalogBatchWindowMs: 60_000 }))))
    )
  )

  it.live("a status of an unknown handle is OperatorUnavailable with the operator's code 100", () =>
    withClient(
      Effect.gen(function* () {
        const { commerce, account, catalogId } = yield* withCatalog
        const failure = expectFailure(yield* Effect.exit(commerce.itemsBatchStatus(account, catalogId, "no-such-handle")))
        expect(failure).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable", code: 100 })
      })
    )
  )
})
