/**
 * The client against the real emulator over real HTTP: templates, sends with the sandbox
 * outcomes, error mapping, rate-limit back-off, fault injection and signed webhooks.
 *
 * Over 500 lines on purpose: the client's retry, back-off and error-mapping cases share one
 * emulator and one client layer; splitting would start the emulator once per file.
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, FlowOperator, MessageOperator, OperatorWebhookVerifier, Store, type Template, TemplateOperator } from "@switchboard/domain"
import { startEmulator, type Emulator } from "@switchboard/operator-emulator"
import { Cause, Duration, Effect, Exit, Layer, Redacted } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll } from "vitest"
import { GraphApi, GraphTransport, MessageClient, OperatorClient, WebhookSignature } from "../src/index.js"
import { ACCESS_TOKEN, APP_SECRET, expectFailure, onEmulator, VERIFY_TOKEN } from "./helpers.js"

let emulator: Emulator

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    appSecret: APP_SECRET,
    accessToken: ACCESS_TOKEN,
    templateReviewDelayMs: 300,
    statusDelayMs: 20
  })
})

afterAll(async () => {
  await emulator?.close()
})

const { config, clientLayer, withClient, control, configured } = onEmulator(() => emulator)

/** The capabilities under test, from one `OperatorClient.layer`. */
const Operator = Effect.all({
  templates: TemplateOperator.TemplateOperator,
  messages: MessageOperator.MessageOperator,
  webhooks: OperatorWebhookVerifier.OperatorWebhookVerifier
})

let customer = 1000
/** A fresh customer number (ending never in 0000/0001/0002 unless asked). */
const customerNumber = (ending = "5"): string => `+1555${String(customer++).padStart(6, "0")}${ending}`

const templateData = (name: string, overrides: Partial<Template.TemplateData> = {}): Template.TemplateData => ({
  name,
  language: "en_US",
  category: "UTILITY",
  components: [
    { type: "HEADER", format: "TEXT", text: "Order update" },
    { type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A123"]] } },
    { type: "FOOTER", text: "Reply STOP to opt out" }
  ],
  ...overrides
})

const stats = (account: Store.OperatorAccount) => Effect.map(control("GET", `/stats?phone_number_id=${account.phoneNumberId}`), (r) => r.body)

describe("sandbox registration", () => {
  it.live("registers a sandbox account before its first Graph call, once", () =>
    withClient(
      Effect.gen(function* () {
        const account = Store.newSandboxAccount()
        const operator = yield* Operator
        expect(yield* operator.templates.listTemplates(account)).toEqual([])
        const registered = (yield* control("GET", "/accounts")).body.data as Array<{ id: string; wabaId: string; displayPhoneNumber: string }>
        expect(registered).toContainEqual(
          expect.objectContaining({ id: account.phoneNumberId, wabaId: account.wabaId, displayPhoneNumber: account.displayPhoneNumber })
        )
      })
    )
  )

  it.live("registerSandboxAccount goes through the GraphApi in context", () =>
    withClient(
      Effect.gen(function* () {
        const account = Store.newSandboxAccount()
        yield* OperatorClient.registerSandboxAccount(account)
        yield* OperatorClient.registerSandboxAccount(account)
        const registered = (yield* control("GET", "/accounts")).body.data as Array<{ id: string }>
        expect(registered.filter((p) => p.id === account.phoneNumberId)).toHaveLength(1)
        // a live account has nothing to register
        yield* OperatorClient.registerSandboxAccount({ ...Store.newSandboxAccount(), kind: "live" })
      })
    )
  )

  it.live("a live account without a live endpoint is a defect", () =>
    withClient(
      Effect.gen(function* () {
        const operator = yield* Operator
        const exit = yield* Effect.exit(operator.templates.listTemplates({ ...Store.newSandboxAccount(), kind: "live" }))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toContain("no live operator endpoint")
      })
    )
  )

  it.live("a live account uses the live endpoint and its token", () =>
    withClient(
      Effect.gen(function* () {
        const operator = yield* Operator
        const live: Store.OperatorAccount = { ...Store.newSandboxAccount(), kind: "live" }
        // live accounts are not registered with the emulator, so templates (by WABA) work but the token must be right
        expect(yield* operator.templates.listTemplates(live)).toEqual([])
        const bad = yield* Effect.exit(
          withClient(
            Effect.flatMap(TemplateOperator.TemplateOperator, (op) => op.listTemplates(live)),
            { live: { baseUrl: emulator.url, accessToken: Redacted.make("wrong"), appSecret: Redacted.make("x") } }
          )
        )
        const error = expectFailure(bad)
        expect(error._tag).toBe("OperatorUnavailable")
        expect((error as Errors.OperatorUnavailable).reason).toContain("190")
      }),
      {
        live: { baseUrl: `${emulator.url}/`, apiVersion: "v23.0", accessToken: Redacted.make(ACCESS_TOKEN), appSecret: Redacted.make("live-secret") }
      }
    )
  )
})

describe("templates", () => {
  it.live("create answers PENDING; list shows it, then the review's outcome", () =>
    withAccount((account, operator) =>
      Effect.gen(function* () {
        const created = yield* operator.templates.createTemplate(account, templateData("order_update"))
        expect(created.status).toBe("PENDING")
        expect(created.category).toBe("UTILITY")
        expect(created.operatorId).toMatch(/^\d+$/)
        const promo = yield* operator.templates.createTemplate(
          account,
          templateData("big_sale", {
            components: [{ type: "BODY", text: "Hi {{1}}, buy now: 20% off everything.", example: { body_text: [["Ana"]] } }]
          })
        )

        const pending = yield* operator.templates.listTemplates(account)
        expect(pending).toHaveLength(2)
        expect(pending[0]).toEqual({
          operatorId: created.operatorId,
          name: "order_update",
          language: "en_US",
          category: "UTILITY",
          status: "PENDING",
          components: templateData("order_update").components,
          rejectedReason: null,
          // the list's quality_score: a new template is not rated yet
          qualityScore: "UNKNOWN"
        })

        yield* Effect.sleep(Duration.millis(450))
        const reviewed = yield* operator.templates.listTemplates(account)
        expect(reviewed.find((t) => t.name === "order_update")).toMatchObject({ status: "APPROVED", rejectedReason: null })
        expect(reviewed.find((t) => t.name === "big_sale")).toMatchObject({
          operatorId: promo.operatorId,
          status: "REJECTED",
          rejectedReason: "INCORRECT_CATEGORY"
        })
      })
    )
  )

  it.live("an invalid or duplicate template is OperatorRejected with the operator's code", () =>
    withAccount((account, operator) =>
      Effect.gen(function* () {
        yield* operator.templates.createTemplate(account, templateData("dup"))
        const duplicate = expectFailure(yield* Effect.exit(operator.templates.createTemplate(account, templateData("dup"))))
        expect(duplicate._tag).toBe("OperatorRejected")
        expect((duplicate as Errors.OperatorRejected).code).toBe(100)
        const invalid = expectFailure(
          yield* Effect.exit(
            operator.templates.createTemplate(
              account,
              templateData("bad_body", { components: [{ type: "BODY", text: "{{1}} starts with a variable" }] })
            )
          )
        )
        expect(invalid).toMatchObject({ _tag: "OperatorRejected", code: 100 })
      })
    )
  )

  it.live("list follows the cursor over several pages", () =>
    withAccount((account, operator) =>
      Effect.gen(function* () {
        const names = Array.from({ length: 105 }, (_, i) => `bulk_${String(i).padStart(3, "0")}`)
        yield* Effect.forEach(names, (name) => operator.templates.createTemplate(account, templateData(name)), { concurrency: 8 })
        const all = yield* operator.templates.listTemplates(account)
        expect(all).toHaveLength(105)
        expect(new Set(all.map((t) => t.name))).toEqual(new Set(names))
      })
    )
  )

  it.live("delete removes every language; an unknown name is not an error", () =>
    withAccount((account, operator) =>
      Effect.gen(function* () {
        yield* operator.templates.createTemplate(account, templateData("bye"))
        yield* operator.templates.createTemplate(account, templateData("bye", { language: "pt_BR" }))
        yield* operator.templates.createTemplate(account, templateData("stay"))
        yield* operator.templates.deleteTemplate(account, "bye")
        expect((yield* operator.templates.listTemplates(account)).map((t) => t.name)).toEqual(["stay"])
        yield* operator.templates.deleteTemplate(account, "bye")
        yield* operator.templates.deleteTemplate(account, "never_existed")
      })
    )
  )
})

describe("lookups a sweep's recover uses", () => {
  it.live("findTemplates answers the languages of that exact name only", () =>
    withClient(
      Effect.gen(function* () {
        const templates = yield* TemplateOperator.TemplateOperator
        const account = Store.newSandboxAccount()
        yield* templates.createTemplate(account, templateData("lookup"))
        yield* templates.createTemplate(account, templateData("lookup", { language: "pt_BR" }))
        yield* templates.createTemplate(account, templateData("lookup_other"))
        const found = yield* templates.findTemplates(account, "lookup")
        expect(found.map((t) => t.language).sort()).toEqual(["en_US", "pt_BR"])
        expect(found.every((t) => t.name === "lookup" && t.operatorId !== null)).toBe(true)
        expect(yield* templates.findTemplates(account, "never_made")).toEqual([])
      })
    )
  )

  it.live("listFlows follows the operator's pages", () =>
    withClient(
      Effect.gen(function* () {
        const flows = yield* FlowOperator.FlowOperator
        const account = Store.newSandboxAccount()
        const ids = yield* Effect.forEach(
          Array.from({ length: 105 }, (_, i) => `flow_${i}`),
          (name) => flows.createFlow(account, { name, categories: ["OTHER"] }),
          { concurrency: 8 }
        )
        const listed = yield* flows.listFlows(account)
        expect(new Set(listed.map((f) => f.id))).toEqual(new Set(ids))
        expect(listed.every((f) => f.status === "DRAFT")).toBe(true)
      })
    )
  )
})

/** An account with an approved `order_update` template. */
const accountWithApprovedTemplate = Effect.gen(function* () {
  const operator = yield* Operator
  const account = Store.newSandboxAccount()
  yield* operator.templates.createTemplate(account, templateData("order_update"))
  yield* Effect.sleep(Duration.millis(450))
  const [template] = yield* operator.templates.listTemplates(account)
  expect(template.status).toBe("APPROVED")
  return account
})

const templateMessage = (to: string, parameters: ReadonlyArray<string> = ["Ana", "A123"]): MessageOperator.OutboundMessage => ({
  type: "template",
  to,
  template: { name: "order_update", language: "en_US", parameters },
  callbackData: `cb-${to}`
})

/** Runs `body` on a fresh client with the capabilities and a fresh sandbox account. */
const withAccount = <A, E>(
  body: (account: Store.OperatorAccount, operator: Effect.Effect.Success<typeof Operator>) => Effect.Effect<A, E, OperatorClient.Services>,
  overrides?: Partial<OperatorClient.OperatorClientConfig>
) =>
  withClient(
    Effect.flatMap(Operator, (operator) => body(Store.newSandboxAccount(), operator)),
    overrides
  )

/** `withAccount` with an account whose `order_update` template is approved. */
const withApprovedAccount = <A, E>(
  body: (account: Store.OperatorAccount, operator: Effect.Effect.Success<typeof Operator>) => Effect.Effect<A, E, OperatorClient.Services>,
  overrides?: Partial<OperatorClient.OperatorClientConfig>
) =>
  withClient(
    Effect.flatMap(Effect.zip(Operator, accountWithApprovedTemplate), ([operator, account]) => body(account, operator)),
    overrides
  )

/** The typed failure of sending `order_update` from `account` to a fresh customer. */
const failedSend = (account: Store.OperatorAccount, options?: MessageOperator.SendOptions) =>
  Effect.flatMap(MessageOperator.MessageOperator, (messages) =>
    Effect.map(Effect.exit(messages.sendMessage(account, templateMessage(customerNumber()), options)), expectFailure)
  )

describe("sendMessage", () => {
  it.live("a template is accepted with the operator's message id and recorded as sent", () =>
    withApprovedAccount((account, operator) =>
      Effect.gen(function* () {
        const to = customerNumber()
        const { messageId } = yield* operator.messages.sendMessage(account, templateMessage(to))
        expect(messageId).toMatch(/^wamid\./)
        const messages = (yield* control("GET", `/messages?phone_number_id=${account.phoneNumberId}`)).body.data
        expect(messages).toEqual([
          expect.objectContaining({
            id: messageId,
            to: to.slice(1),
            type: "template",
            template: {
              name: "order_update",
              language: "en_US",
              parameters: ["Ana", "A123"],
              components: [
                {
                  type: "body",
                  parameters: [
                    { type: "text", text: "Ana" },
                    { type: "text", text: "A123" }
                  ]
                }
              ]
            },
            biz_opaque_callback_data: `cb-${to}`
          })
        ])
        // the undeliverable and opted-out numbers are accepted too: their failure comes by webhook
        yield* operator.messages.sendMessage(account, templateMessage(customerNumber("0000")))
        yield* operator.messages.sendMessage(account, templateMessage(customerNumber("0002")))
      })
    )
  )

  it.live("a template with a header variable and a dynamic URL button goes with both parameters (B.2)", () =>
    withAccount((account, operator) =>
      Effect.gen(function* () {
        yield* operator.templates.createTemplate(
          account,
          templateData("order_tracking", {
            components: [
              { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["A123"] } },
              { type: "BODY", text: "Hi {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } },
              {
                type: "BUTTONS",
                buttons: [{ type: "URL", text: "Track", url: "https://shop.example/t/{{1}}", example: ["https://shop.example/t/A123"] }]
              }
            ]
          })
        )
        yield* Effect.sleep(Duration.millis(450))
        const to = customerNumber()
        const { messageId } = yield* operator.messages.sendMessage(account, {
          type: "template",
          to,
          template: {
            name: "order_tracking",
            language: "en_US",
            parameters: ["Ana"],
            headerParameters: ["A123"],
            buttons: [{ index: 0, sub_type: "url", parameter: "A123" }]
          }
        })
        const sent = (yield* control("GET", `/messages?phone_number_id=${account.phoneNumberId}`)).body.data
        expect(sent.find((m: any) => m.id === messageId).template).toEqual({
          name: "order_tracking",
          language: "en_US",
          parameters: ["Ana"],
          header_parameters: ["A123"],
          button_parameters: [{ index: 0, sub_type: "url", parameter: "A123" }],
          // the components exactly as the operator received them
          components: [
            { type: "header", parameters: [{ type: "text", text: "A123" }] },
            { type: "body", parameters: [{ type: "text", text: "Ana" }] },
            { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "A123" }] }
          ]
        })
      })
    )
  )

  it.live("template refusals are OperatorRejected with the operator's code", () =>
    withApprovedAccount((account, operator) =>
      Effect.gen(function* () {
        const count = expectFailure(yield* Effect.exit(operator.messages.sendMessage(account, templateMessage(customerNumber(), ["only one"]))))
        expect(count).toMatchObject({ _tag: "OperatorRejected", code: 132000 })
        const unknown = expectFailure(
          yield* Effect.exit(
            operator.messages.sendMessage(account, {
              type: "template",
              to: customerNumber(),
              template: { name: "nope", language: "en_US", parameters: [] }
            })
          )
        )
        expect(unknown).toMatchObject({ _tag: "OperatorRejected", code: 132001 })
      })
    )
  )

  it.live("a text outside the customer window is OperatorRejected 131047; inside it is sent", () =>
    withAccount((account, operator) =>
      Effect.gen(function* () {
        const to = customerNumber()
        const text: MessageOperator.OutboundMessage = { type: "text", to, text: { body: "Hello there", preview_url: false } }
        const outside = expectFailure(yield* Effect.exit(operator.messages.sendMessage(account, text)))
        expect(outside).toMatchObject({ _tag: "OperatorRejected", code: 131047 })
        expect((outside as Errors.OperatorRejected).reason.length).toBeGreaterThan(0)

        // the customer writes (the webhook goes nowhere here; the window opens anyway)
        yield* control("POST", "/inbound", { phone_number_id: account.phoneNumberId, from: to, text: "hi" })
        const { messageId } = yield* operator.messages.sendMessage(account, text)
        const interactive = yield* operator.messages.sendMessage(account, {
          type: "interactive",
          to,
          interactive: { type: "button", body: { text: "Pick" }, action: { buttons: [{ type: "reply", reply: { id: "a", title: "A" } }] } }
        })
        const messages = (yield* control("GET", `/messages?phone_number_id=${account.phoneNumberId}`)).body.data
        expect(messages.map((m: { id: string }) => m.id)).toEqual([messageId, interactive.messageId])
        expect(messages[0]).toMatchObject({ type: "text", text: "Hello there" })
        expect(messages[1]).toMatchObject({ type: "interactive", interactive: { type: "button" } })
      })
    )
  )

  it.live("a burst over the throughput limit backs off: successes or OperatorUnavailable, never OperatorRejected", () =>
    configured(
      { messagesPerSecond: 2 },
      withApprovedAccount((account, operator) =>
        Effect.gen(function* () {
          const results = yield* Effect.forEach(
            Array.from({ length: 8 }, () => customerNumber()),
            (to) => Effect.either(operator.messages.sendMessage(account, templateMessage(to))),
            { concurrency: "unbounded" }
          )
          const sent = results.filter((r) => r._tag === "Right")
          const failed = results.flatMap((r) => (r._tag === "Left" ? [r.left] : []))
          for (const error of failed) {
            expect(error._tag).toBe("OperatorUnavailable")
            expect((error as Errors.OperatorUnavailable).retryAfterSeconds).toBeGreaterThan(0)
          }
          // more than one second's worth went through thanks to the back-off
          expect(sent.length).toBeGreaterThan(2)
          const s = yield* stats(account)
          expect(s.rejected429).toBeGreaterThan(0)
          expect(s.sends).toBe(sent.length)
          expect(s.maxInAnyOneSecondWindow).toBeLessThanOrEqual(2)
        })
      )
    )
  )

  it.live("persistent throttling gives up within the budget with retryAfterSeconds", () =>
    configured(
      { rate429: 1 },
      withApprovedAccount(
        (account) =>
          Effect.gen(function* () {
            const started = Date.now()
            const error = yield* failedSend(account)
            const elapsed = Date.now() - started
            expect(error).toMatchObject({ _tag: "OperatorUnavailable", kind: "rate_limited", code: 130429, retryAfterSeconds: 1 })
            expect((error as Errors.OperatorUnavailable).reason).toContain("130429")
            expect(elapsed).toBeGreaterThan(300)
            expect(elapsed).toBeLessThan(3000)
            // the first attempt and three retries
            expect((yield* stats(account)).rejected429).toBe(4)
          }),
        { maxRetries: 3, retryBudgetMs: 2000 }
      )
    )
  )

  it.live("a paced send (retryRateLimits: false) surfaces a rate limit at once, without a retry", () =>
    configured(
      { rate429: 1 },
      withApprovedAccount(
        (account) =>
          Effect.gen(function* () {
            const error = yield* failedSend(account, { retryRateLimits: false })
            expect(error).toMatchObject({ _tag: "OperatorUnavailable", kind: "rate_limited", code: 130429, retryAfterSeconds: 1 })
            expect((error as Errors.OperatorUnavailable).reason).toContain("130429")
            // one request: the caller's pacer counted it, and nothing else reached the operator
            expect((yield* stats(account)).rejected429).toBe(1)
          }),
        { maxRetries: 3, retryBudgetMs: 2000 }
      )
    )
  )

  it.live("a pair-rate refusal is retried and surfaces as OperatorUnavailable", () =>
    configured(
      { pairBurst: 1 },
      withApprovedAccount(
        (account, operator) =>
          Effect.gen(function* () {
            const to = customerNumber()
            yield* operator.messages.sendMessage(account, templateMessage(to))
            const error = expectFailure(yield* Effect.exit(operator.messages.sendMessage(account, templateMessage(to))))
            expect(error).toMatchObject({ _tag: "OperatorUnavailable", kind: "rate_limited", code: 131056, retryAfterSeconds: 6 })
            expect((yield* stats(account)).rejectedPairRate).toBe(2)
          }),
        { maxRetries: 1 }
      )
    )
  )

  it.live("a 5xx on a send is OperatorUnavailable at once, without a retry", () =>
    configured(
      { rate5xx: 1 },
      withApprovedAccount((account) =>
        Effect.gen(function* () {
          const error = yield* failedSend(account)
          expect(error).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable", code: 131016 })
          expect((yield* stats(account)).rejected5xx).toBe(1)
        })
      )
    )
  )

  it.live("an accepted send whose answer is lost is OperatorUnavailable (the caller reconciles)", () =>
    configured(
      { rateAcceptedButLost: 1 },
      withApprovedAccount((account) =>
        Effect.gen(function* () {
          const error = yield* failedSend(account)
          expect(error._tag).toBe("OperatorUnavailable")
          const messages = (yield* control("GET", `/messages?phone_number_id=${account.phoneNumberId}`)).body.data
          expect(messages).toHaveLength(1)
        })
      )
    )
  )

  it.live("an unreachable operator is OperatorUnavailable", () =>
    Effect.gen(function* () {
      const operator = yield* Operator
      const account: Store.OperatorAccount = { ...Store.newSandboxAccount(), kind: "live" }
      const send = yield* failedSend(account)
      expect(send._tag).toBe("OperatorUnavailable")
      const list = expectFailure(yield* Effect.exit(operator.templates.listTemplates(account)))
      expect(list._tag).toBe("OperatorUnavailable")
      const sandbox = expectFailure(yield* Effect.exit(operator.templates.listTemplates(Store.newSandboxAccount())))
      expect(sandbox).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable" })
      expect((sandbox as Errors.OperatorUnavailable).reason).toContain("sandbox account registration failed")
    }).pipe(
      Effect.provide(
        clientLayer({
          sandbox: { baseUrl: "http://127.0.0.1:1", accessToken: Redacted.make("t"), appSecret: Redacted.make("s") },
          live: { baseUrl: "http://127.0.0.1:1", accessToken: Redacted.make("t"), appSecret: Redacted.make("s") },
          retryBudgetMs: 500
        })
      )
    )
  )

  it.live("a slow operator times out as OperatorUnavailable", () =>
    configured(
      { latencyMs: 400 },
      withClient(
        Effect.gen(function* () {
          const operator = yield* Operator
          const account: Store.OperatorAccount = { ...Store.newSandboxAccount(), kind: "live" }
          const error = expectFailure(yield* Effect.exit(operator.templates.listTemplates(account)))
          expect(error).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable" })
          expect((error as Errors.OperatorUnavailable).code).toBeUndefined()
          expect((error as Errors.OperatorUnavailable).reason).toContain("no answer within 100 ms")
        }),
        {
          live: { baseUrl: emulator.url, accessToken: Redacted.make(ACCESS_TOKEN), appSecret: Redacted.make("s") },
          requestTimeoutMs: 100,
          retryBudgetMs: 1000
        }
      )
    )
  )
})

describe("layers per capability", () => {
  it.live("MessageClient.layer alone, on GraphApi.layer, sends (and registers the sandbox number itself)", () =>
    Effect.gen(function* () {
      const messages = yield* MessageOperator.MessageOperator
      const account = Store.newSandboxAccount()
      const to = customerNumber()
      const text: MessageOperator.OutboundMessage = { type: "text", to, text: { body: "Hello" } }
      expect(expectFailure(yield* Effect.exit(messages.sendMessage(account, text)))).toMatchObject({ _tag: "OperatorRejected", code: 131047 })
      yield* control("POST", "/inbound", { phone_number_id: account.phoneNumberId, from: to, text: "hi" })
      expect((yield* messages.sendMessage(account, text)).messageId).toMatch(/^wamid\./)
    }).pipe(Effect.provide(MessageClient.layer.pipe(Layer.provide(GraphApi.layer(config())), Layer.provide(GraphTransport.layer()))))
  )
})

/** The two kinds of `OperatorUnavailable`, as a caller that paces itself (a campaign lane) sees them. */
describe("OperatorUnavailable carries the operator's code and kind", () => {
  it.live("a rate-limited send: kind rate_limited, code 130429, a wait", () =>
    configured(
      { rate429: 1 },
      withApprovedAccount((account) =>
        Effect.gen(function* () {
          const error = yield* failedSend(account, { retryRateLimits: false })
          expect(error).toBeInstanceOf(Errors.OperatorUnavailable)
          const unavailable = error as Errors.OperatorUnavailable
          expect(unavailable.kind).toBe("rate_limited")
          expect(unavailable.code).toBe(130429)
          expect(unavailable.retryAfterSeconds).toBe(1)
        })
      )
    )
  )

  it.live("an unreachable operator: kind unreachable, no code", () =>
    Effect.gen(function* () {
      const account: Store.OperatorAccount = { ...Store.newSandboxAccount(), kind: "live" }
      const error = yield* failedSend(account)
      expect(error).toBeInstanceOf(Errors.OperatorUnavailable)
      const unavailable = error as Errors.OperatorUnavailable
      expect(unavailable.kind).toBe("unreachable")
      expect(unavailable.code).toBeUndefined()
      expect("code" in unavailable).toBe(false)
      expect(unavailable.retryAfterSeconds).toBeUndefined()
    }).pipe(
      Effect.provide(
        clientLayer({ live: { baseUrl: "http://127.0.0.1:1", accessToken: Redacted.make("t"), appSecret: Redacted.make("s") }, retryBudgetMs: 500 })
      )
    )
  )
})

describe("webhooks from the emulator", () => {
  it.live("the emulator's signature verifies as sandbox; a changed byte does not", () =>
    Effect.gen(function* () {
      const received: Array<{ raw: Buffer; signature: string | undefined }> = []
      const server = yield* Effect.acquireRelease(
        Effect.promise(
          () =>
            new Promise<http.Server>((resolve) => {
              const s = http.createServer((req, res) => {
                const chunks: Array<Buffer> = []
                req.on("data", (c: Buffer) => chunks.push(c))
                req.on("end", () => {
                  received.push({ raw: Buffer.concat(chunks), signature: req.headers["x-hub-signature-256"] as string | undefined })
                  res.writeHead(200).end()
                })
              })
              s.listen(0, "127.0.0.1", () => resolve(s))
            })
        ),
        (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
      )
      emulator.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`)
      const operator = yield* Operator
      const account = Store.newSandboxAccount()
      yield* OperatorClient.registerSandboxAccount(account)
      const answer = yield* control("POST", "/inbound", { phone_number_id: account.phoneNumberId, from: customerNumber(), text: "hello" })
      expect(answer.status).toBe(200)
      const webhook = received.find((r) => r.raw.toString("utf8").includes(account.phoneNumberId))!
      expect(webhook.signature).toMatch(/^sha256=[0-9a-f]{64}$/)
      expect(webhook.signature).toBe(WebhookSignature.signPayload(webhook.raw, APP_SECRET))
      expect(yield* operator.webhooks.verifySignature(webhook.raw, webhook.signature)).toBe("sandbox")
      const tampered = Buffer.from(webhook.raw)
      tampered[tampered.length - 2] ^= 1
      expect(yield* operator.webhooks.verifySignature(tampered, webhook.signature)).toBeUndefined()
      expect(operator.webhooks.verifyHandshake("subscribe", VERIFY_TOKEN)).toBe(true)
    }).pipe(Effect.scoped, Effect.provide(clientLayer()))
  )
})
