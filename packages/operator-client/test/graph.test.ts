import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@switchboard/domain"
import { Either } from "effect"
import * as Graph from "../src/internal/graph.js"
import { MessageClient } from "../src/index.js"

const envelope = (error: Record<string, unknown>) => JSON.stringify({ error: { type: "OAuthException", fbtrace_id: "Abc", ...error } })
const none: Graph.Headers = {}

const failure = (status: number, text: string, headers: Graph.Headers = none): Graph.GraphFailure => {
  const result = Graph.classify(status, headers, text)
  if (Either.isRight(result)) throw new Error("expected a failure")
  return result.left
}

describe("parseGraphError", () => {
  it("reads code, subcode, messages and details", () => {
    const error = Graph.parseGraphError(
      400,
      JSON.parse(
        envelope({
          code: 131047,
          error_subcode: 2494010,
          message: "(#131047) Re-engagement message",
          error_user_msg: "More than 24 hours have passed",
          error_data: { messaging_product: "whatsapp", details: "Message failed to send" }
        })
      )
    )
    expect(error).toEqual({
      httpStatus: 400,
      code: 131047,
      subcode: 2494010,
      message: "(#131047) Re-engagement message",
      userTitle: undefined,
      userMsg: "More than 24 hours have passed",
      details: "Message failed to send",
      isTransient: undefined
    })
  })

  it("is undefined for anything else", () => {
    expect(Graph.parseGraphError(400, undefined)).toBeUndefined()
    expect(Graph.parseGraphError(400, { error: "nope" })).toBeUndefined()
    expect(Graph.parseGraphError(400, { error: { message: "no code" } })).toBeUndefined()
    expect(Graph.parseGraphError(400, [1, 2])).toBeUndefined()
  })
})

describe("classify", () => {
  it("2xx is success with the parsed body", () => {
    expect(Graph.classify(200, none, '{"success":true}')).toEqual(Either.right({ status: 200, body: { success: true } }))
    expect(Graph.classify(204, none, "")).toEqual(Either.right({ status: 204, body: undefined }))
  })

  it("rate-limit codes are RateLimited whatever the HTTP status", () => {
    for (const [status, code] of [
      [429, 130429],
      [400, 131056],
      [400, 4],
      [400, 80007],
      [500, 130429]
    ] as const) {
      const f = failure(status, envelope({ code, message: `(#${code}) limit` }))
      expect(f._tag).toBe("RateLimited")
      expect((f as Graph.RateLimited).code).toBe(code)
    }
  })

  it("takes the operator's wait from Retry-After or the usage header", () => {
    const retryAfter = failure(429, envelope({ code: 130429, message: "limit" }), { "retry-after": "3" })
    expect((retryAfter as Graph.RateLimited).hintSeconds).toBe(3)
    const usage = failure(400, envelope({ code: 80007, message: "limit" }), {
      "x-business-use-case-usage": JSON.stringify({ "123": [{ type: "whatsapp", call_count: 100, estimated_time_to_regain_access: 2 }] })
    })
    expect((usage as Graph.RateLimited).hintSeconds).toBe(120)
  })

  it("5xx, 408 and answers without a Graph envelope are Unreachable; a bare 429 is RateLimited", () => {
    expect(failure(500, envelope({ code: 131016, message: "(#131016) Service unavailable" }))._tag).toBe("Unreachable")
    expect(failure(502, "<html>Bad gateway</html>")._tag).toBe("Unreachable")
    expect(failure(404, "Not Found")._tag).toBe("Unreachable")
    expect(failure(429, "slow down")).toMatchObject({ _tag: "RateLimited", code: undefined })
  })

  it("other Graph errors are Refused", () => {
    const f = failure(400, envelope({ code: 132001, message: "(#132001) Template name does not exist in the translation" }))
    expect(f._tag).toBe("Refused")
  })
})

describe("toDomainError", () => {
  it("a refusal is OperatorRejected with the code and the user message when given", () => {
    const withUserMsg = Graph.toDomainError(failure(400, envelope({ code: 100, message: "(#100) Invalid parameter", error_user_msg: "Name taken" })))
    expect(withUserMsg).toEqual(new Errors.OperatorRejected({ code: 100, reason: "Name taken" }))
    const withoutUserMsg = Graph.toDomainError(failure(400, envelope({ code: 131047, message: "(#131047) Re-engagement message" })))
    expect(withoutUserMsg).toEqual(new Errors.OperatorRejected({ code: 131047, reason: "(#131047) Re-engagement message" }))
  })

  it("a rate limit is OperatorUnavailable of kind rate_limited with its code and retryAfterSeconds", () => {
    const throughput = Graph.toDomainError(failure(429, envelope({ code: 130429, message: "limit" })))
    expect(throughput).toMatchObject({ _tag: "OperatorUnavailable", kind: "rate_limited", code: 130429, retryAfterSeconds: 1 })
    const pair = Graph.toDomainError(failure(400, envelope({ code: 131056, message: "pair" })))
    expect(pair).toMatchObject({ _tag: "OperatorUnavailable", kind: "rate_limited", code: 131056, retryAfterSeconds: 6 })
    const waba = Graph.toDomainError(failure(400, envelope({ code: 80007, message: "waba" }), { "retry-after": "7" }))
    expect(waba).toMatchObject({ kind: "rate_limited", code: 80007, retryAfterSeconds: 7 })
    // a bare 429 has no code (and the reason carries none to be read back)
    const bare = Graph.toDomainError(failure(429, "slow down")) as Errors.OperatorUnavailable
    expect(bare).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 1 })
    expect(bare.code).toBeUndefined()
    expect("code" in bare).toBe(false)
  })

  it("unavailability is kind unreachable, with the code only when the answer had one; toUnavailable folds refusals in too", () => {
    const down = Graph.toDomainError(failure(503, "down")) as Errors.OperatorUnavailable
    expect(down).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable" })
    expect(down.code).toBeUndefined()
    expect(Graph.toDomainError(failure(500, envelope({ code: 131016, message: "(#131016) Service unavailable" })))).toMatchObject({
      _tag: "OperatorUnavailable",
      kind: "unreachable",
      code: 131016
    })
    const folded = Graph.toUnavailable(failure(400, envelope({ code: 100, message: "bad" })))
    expect(folded).toMatchObject({ _tag: "OperatorUnavailable", kind: "unreachable", code: 100 })
    expect(folded.reason).toContain("code 100")
  })
})

describe("sendBody", () => {
  it("text", () => {
    expect(MessageClient.sendBody({ type: "text", to: "+15551230001", text: { body: "hi" } })).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "15551230001",
      type: "text",
      text: { body: "hi" }
    })
    expect(
      MessageClient.sendBody({ type: "text", to: "+15551230001", text: { body: "see https://x.example", preview_url: true }, callbackData: "cb" })
    ).toMatchObject({ text: { body: "see https://x.example", preview_url: true }, biz_opaque_callback_data: "cb" })
  })

  it("template, with and without parameters", () => {
    expect(
      MessageClient.sendBody({
        type: "template",
        to: "+447700900123",
        template: { name: "order_update", language: "en_US", parameters: ["Ana", "A123"] }
      })
    ).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "447700900123",
      type: "template",
      template: {
        name: "order_update",
        language: { code: "en_US", policy: "deterministic" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Ana" },
              { type: "text", text: "A123" }
            ]
          }
        ]
      }
    })
    expect(
      MessageClient.sendBody({ type: "template", to: "+447700900123", template: { name: "hello", language: "en", parameters: [] } }).template
    ).toEqual({ name: "hello", language: { code: "en", policy: "deterministic" }, components: [] })
  })

  it("template with header, body and buttons by index and sub-type, as Appendix B.2 shows", () => {
    const body = MessageClient.sendBody({
      type: "template",
      to: "+447700900123",
      template: {
        name: "order_update",
        language: "en_US",
        parameters: ["Ana", "A123"],
        headerParameters: ["A123"],
        buttons: [
          { index: 0, sub_type: "url", parameter: "A123" },
          { index: 1, sub_type: "quick_reply", parameter: "STOP_A123" },
          { index: 2, sub_type: "copy_code", parameter: "SPRING25" }
        ]
      }
    })
    expect(body.template).toEqual({
      name: "order_update",
      language: { code: "en_US", policy: "deterministic" },
      components: [
        { type: "header", parameters: [{ type: "text", text: "A123" }] },
        {
          type: "body",
          parameters: [
            { type: "text", text: "Ana" },
            { type: "text", text: "A123" }
          ]
        },
        { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "A123" }] },
        { type: "button", sub_type: "quick_reply", index: "1", parameters: [{ type: "payload", payload: "STOP_A123" }] },
        { type: "button", sub_type: "copy_code", index: "2", parameters: [{ type: "coupon_code", coupon_code: "SPRING25" }] }
      ]
    })
  })

  it("interactive is passed through", () => {
    const interactive = { type: "button", body: { text: "Pick" }, action: { buttons: [{ type: "reply", reply: { id: "a", title: "A" } }] } }
    expect(MessageClient.sendBody({ type: "interactive", to: "+15551230001", interactive, callbackData: "x" })).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "15551230001",
      type: "interactive",
      interactive,
      biz_opaque_callback_data: "x"
    })
  })
})

describe("sendBodyText", () => {
  it("is JSON.stringify(sendBody(...)) byte for byte, the template part reused per template object", () => {
    const template = {
      name: "order_update",
      language: "en_US",
      parameters: ['Ana "the" first', "A123"],
      headerParameters: ["A123"],
      buttons: [{ index: 0, sub_type: "url" as const, parameter: "A123" }]
    }
    const messages = [
      { type: "template" as const, to: "+447700900123", template, callbackData: "cr_1" },
      { type: "template" as const, to: "+15551230001", template },
      { type: "template" as const, to: "+15551230002", template: { name: "hello", language: "en", parameters: [] } },
      { type: "text" as const, to: "+15551230001", text: { body: "hi" }, callbackData: "x" }
    ]
    for (const message of messages) expect(MessageClient.sendBodyText(message)).toBe(JSON.stringify(MessageClient.sendBody(message)))
    // a second message with the same template object gets the same template text, its own recipient and callback data
    const again = JSON.parse(MessageClient.sendBodyText({ type: "template", to: "+15551239999", template, callbackData: "cr_2" }))
    expect(again).toEqual({ ...MessageClient.sendBody(messages[0]), to: "15551239999", biz_opaque_callback_data: "cr_2" })
  })
})
