/**
 * `MessageOperator.sendPaced` (the campaign lane's send, no fiber per message) against the real
 * emulator over real HTTP: it answers exactly what `sendMessage` with `retryRateLimits: false`
 * answers, for an accepted send, a refusal, a rate limit (never retried), a 5xx, a timeout and
 * an unreachable operator; the first send of a sandbox number registers it.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Errors, MessageOperator, Store, TemplateOperator } from "@switchboard/domain"
import { type Emulator, startEmulator } from "@switchboard/operator-emulator"
import { Duration, Effect, Exit, Redacted } from "effect"
import { afterAll, beforeAll } from "vitest"
import { ACCESS_TOKEN, APP_SECRET, expectFailure as failureOf, onEmulator } from "./helpers.js"

let emulator: Emulator

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, appSecret: APP_SECRET, accessToken: ACCESS_TOKEN, templateReviewDelayMs: 100, statusDelayMs: 20 })
})

afterAll(async () => {
  await emulator?.close()
})

const { withClient, control, configured } = onEmulator(() => emulator)

let customer = 1000
const customerNumber = (): string => `+1556${String(customer++).padStart(6, "0")}5`

const message = (to: string, parameters: ReadonlyArray<string> = ["Ana"]): MessageOperator.OutboundMessage => ({
  type: "template",
  to,
  template: { name: "paced_update", language: "en_US", parameters },
  callbackData: `cb-${to}`
})

/** A fresh sandbox account with the template approved (registered through the template call). */
const accountWithTemplate = Effect.gen(function* () {
  const templates = yield* TemplateOperator.TemplateOperator
  const account = Store.newSandboxAccount()
  yield* templates.createTemplate(account, {
    name: "paced_update",
    language: "en_US",
    category: "UTILITY",
    components: [{ type: "BODY", text: "Hi {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } }]
  })
  yield* Effect.sleep(Duration.millis(250))
  return account
})

/** `sendPaced`'s exit, as an Effect. */
const paced = (account: Store.OperatorAccount, m: MessageOperator.OutboundMessage) =>
  Effect.flatMap(MessageOperator.MessageOperator, (operator) =>
    Effect.async<Exit.Exit<{ readonly messageId: string }, Errors.OperatorRejected | Errors.OperatorUnavailable>>((resume) => {
      expect(operator.sendPaced).toBeDefined()
      operator.sendPaced!(account, m, (exit) => resume(Effect.succeed(exit)))
    })
  )

/** `sendMessage` with `retryRateLimits: false`, as an exit. */
const unpaced = (account: Store.OperatorAccount, m: MessageOperator.OutboundMessage) =>
  Effect.flatMap(MessageOperator.MessageOperator, (operator) => Effect.exit(operator.sendMessage(account, m, { retryRateLimits: false })))

describe("sendPaced", () => {
  it.live("sends what sendMessage sends, registering a new sandbox number on its first send", () =>
    withClient(
      Effect.gen(function* () {
        // a number never seen by this client: the first send registers it, the next ones go straight out
        const account = Store.newSandboxAccount()
        const fresh = yield* paced(account, { type: "text", to: customerNumber(), text: { body: "hello" } })
        // no conversation is open with this customer: the operator refuses free text, as with sendMessage
        expect(failureOf(fresh)).toMatchObject({ _tag: "OperatorRejected", code: 131047 })
        expect((yield* control("GET", "/accounts")).body.data.map((a: { id: string }) => a.id)).toContain(account.phoneNumberId)

        const ready = yield* accountWithTemplate
        const first = customerNumber()
        const second = customerNumber()
        const a = yield* paced(ready, message(first))
        const b = yield* unpaced(ready, message(second))
        expect(Exit.isSuccess(a) && a.value.messageId).toMatch(/^wamid\./)
        expect(Exit.isSuccess(b) && b.value.messageId).toMatch(/^wamid\./)
        const sent = (yield* control("GET", `/messages?phone_number_id=${ready.phoneNumberId}`)).body.data as Array<any>
        const byTo = (to: string) => {
          const { id, to: recipient, type, template, biz_opaque_callback_data } = sent.find((m) => m.to === to.slice(1))
          return { id, to: recipient, type, template, biz_opaque_callback_data }
        }
        expect(byTo(first)).toEqual({
          id: Exit.isSuccess(a) ? a.value.messageId : "",
          to: first.slice(1),
          type: "template",
          template: {
            name: "paced_update",
            language: "en_US",
            parameters: ["Ana"],
            components: [{ type: "body", parameters: [{ type: "text", text: "Ana" }] }]
          },
          biz_opaque_callback_data: `cb-${first}`
        })
        expect({ ...byTo(first), id: "", to: "", biz_opaque_callback_data: "" }).toEqual({
          ...byTo(second),
          id: "",
          to: "",
          biz_opaque_callback_data: ""
        })
      })
    )
  )

  it.live("a refusal, a rate limit (one request, no retry) and a 5xx answer as sendMessage's paced send does", () =>
    withClient(
      Effect.gen(function* () {
        const account = yield* accountWithTemplate
        const refused = failureOf(yield* paced(account, message(customerNumber(), ["one", "too many"])))
        expect(refused).toEqual(failureOf(yield* unpaced(account, message(customerNumber(), ["one", "too many"]))))
        expect(refused._tag).toBe("OperatorRejected")

        const limited = failureOf(yield* configured({ rate429: 1 }, paced(account, message(customerNumber()))))
        expect(limited).toMatchObject({ _tag: "OperatorUnavailable", kind: "rate_limited", code: 130429, retryAfterSeconds: 1 })
        expect((yield* control("GET", `/stats?phone_number_id=${account.phoneNumberId}`)).body.rejected429).toBe(1)
        expect(limited).toEqual(failureOf(yield* configured({ rate429: 1 }, unpaced(account, message(customerNumber())))))

        const unavailable = failureOf(yield* configured({ rate5xx: 1 }, paced(account, message(customerNumber()))))
        expect(unavailable).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable", code: 131016 })
        expect(unavailable).toEqual(failureOf(yield* configured({ rate5xx: 1 }, unpaced(account, message(customerNumber())))))
      }),
      { maxRetries: 3, retryBudgetMs: 2000 }
    )
  )

  it.live("a slow operator times out, and an unreachable one is unreachable, without a code", () =>
    Effect.gen(function* () {
      const live: Store.OperatorAccount = { ...Store.newSandboxAccount(), kind: "live" }
      const slow = failureOf(
        yield* configured(
          { latencyMs: 400 },
          withClient(paced(live, message(customerNumber())), {
            live: { baseUrl: emulator.url, accessToken: Redacted.make(ACCESS_TOKEN), appSecret: Redacted.make(APP_SECRET) },
            requestTimeoutMs: 100
          })
        )
      )
      expect(slow).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable" })
      expect((slow as Errors.OperatorUnavailable).reason).toContain("no answer within 100 ms")
      expect("code" in slow).toBe(false)

      const closed = { live: { baseUrl: "http://127.0.0.1:1", accessToken: Redacted.make("t"), appSecret: Redacted.make("s") } }
      const down = failureOf(yield* withClient(paced(live, message(customerNumber())), closed))
      expect(down).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable" })
      expect("code" in down).toBe(false)
      expect(down).toEqual(failureOf(yield* withClient(unpaced(live, message(customerNumber())), closed)))
    })
  )
})
