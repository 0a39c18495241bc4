import type { Template } from "@switchboard/domain"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { template } from "./templateFixture.js"
import { TemplatePage } from "../src/templates/Api.js"
import { renderPage, renderTemplate } from "../src/templates/Render.js"

type Resource = typeof Template.TemplateResource.Type

/** The hand-written page is `JSON.stringify` of `Schema.encode(TemplatePage)`, byte for byte. */
const same = (page: { readonly data: ReadonlyArray<Resource>; readonly next_cursor: string | null }) =>
  expect(renderPage(page)).toBe(JSON.stringify(Schema.encodeSync(TemplatePage)(page)))

describe("the hand-written template page", () => {
  it("is the schema's encoding: renamed keys, ISO times, nulls, the cursor or null", () => {
    same({ data: [0, 1, 2, 3, 4, 5].map((i) => template(i)), next_cursor: "dHBsXzAx" })
    same({ data: [template(7)], next_cursor: null })
    same({ data: [], next_cursor: null })
    same({
      data: [template(3, { qualityScore: "RED", rejectedReason: "ABUSIVE_CONTENT", status: "PAUSED", category: "MARKETING" })],
      next_cursor: null
    })
  })

  it("escapes text as JSON.stringify does, and shows stored components as they are (shapes we do not model included)", () => {
    const odd = template(1, {
      name: 'quote " back \\ slash',
      language: "pt_BR",
      rejectedReason: "line\nbreak\ttab \u2028 \u0000 é 🚀",
      components: [
        { type: "HEADER", format: "IMAGE", example: { header_handle: ["4::aW1n"] } },
        { type: "BODY", text: 'Olá {{1}} — "citação"', example: { body_text: [["Zé"]] } },
        { type: "BUTTONS", buttons: [{ type: "URL", text: "Go", url: "https://x.test/{{1}}" }], extra: { n: 1.5, deep: [null, true, { a: [] }] } }
      ] as unknown as Resource["components"]
    })
    same({ data: [odd, template(2)], next_cursor: "bGFzdA" })
  })

  it("renders times at the edges as the schema does, and leaves out the entity's other fields", () => {
    same({ data: [template(0, { createdAt: 0, updatedAt: 253_402_300_799_999 }), template(1, { createdAt: -1 })], next_cursor: null })
    const entity = { ...template(4), storeId: "str_x", operatorId: "123", mode: "live" } as Resource
    same({ data: [entity], next_cursor: null })
    expect(JSON.parse(renderTemplate(entity))).not.toHaveProperty("storeId")
  })

  it("fails where the schema's encoding fails: a time that is not one", () => {
    const bad = template(0, { createdAt: Number.NaN })
    expect(() => Schema.encodeSync(TemplatePage)({ data: [bad], next_cursor: null })).toThrow()
    expect(() => renderPage({ data: [bad], next_cursor: null })).toThrow()
  })
})
