import type { Template } from "@switchboard/domain"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { template } from "./templateFixture.js"
import { trusted } from "../src/internal/encode.js"
import { TemplatePage } from "../src/templates/Api.js"

/** What the trusted encoder writes is what `Schema.encode` writes, byte for byte. */
const same = <A, I>(schema: Schema.Schema<A, I>, value: A) => {
  const expected = Schema.encodeSync(schema)(value)
  const got = trusted(schema)(value)
  expect(got).toEqual(expected)
  expect(JSON.stringify(got)).toBe(JSON.stringify(expected))
}

describe("the trusted encoder", () => {
  it("renders a template page as Schema.encode does (renamed keys, ISO times, components as they are)", () => {
    same(TemplatePage, { data: [0, 1, 2, 3].map((i) => template(i)), next_cursor: "dHBs" })
    same(TemplatePage, { data: [], next_cursor: null })
    expect(trusted(TemplatePage)({ data: [template(1)], next_cursor: null }).data[0]).toMatchObject({
      rejected_reason: "INVALID_FORMAT",
      created_at: new Date(1_790_000_000_001).toISOString()
    })
  })

  it("leaves out keys the schema does not declare, as Schema.encode does", () => {
    const extra = { ...template(2), storeId: "str_x", operatorId: "op" } as typeof Template.TemplateResource.Type
    same(TemplatePage, { data: [extra], next_cursor: null })
    expect(Object.keys(trusted(TemplatePage)({ data: [extra], next_cursor: null }).data[0])).not.toContain("storeId")
  })

  it("renders the other shapes as Schema.encode does: optional keys, unions, nested renames, classes, transformations", () => {
    class Money extends Schema.Class<Money>("Money")({ amount: Schema.Int, currency: Schema.String }) {}
    const When = Schema.transform(Schema.String, Schema.Number, { decode: Number, encode: (n) => `t${n}` })
    const Shape = Schema.Struct({
      id: Schema.String.pipe(Schema.startsWith("x_")),
      maybe: Schema.optional(Schema.String),
      exact: Schema.optionalWith(Schema.Number, { exact: true }),
      nullable: Schema.NullOr(When),
      either: Schema.Union(When, Schema.Struct({ kind: Schema.Literal("b"), at: When })),
      nested: Schema.propertySignature(Schema.Struct({ innerKey: Schema.propertySignature(When).pipe(Schema.fromKey("inner_key")) })).pipe(
        Schema.fromKey("nested_key")
      ),
      list: Schema.Array(When),
      money: Money,
      record: Schema.Record({ key: Schema.String, value: When })
    })
    const base = {
      id: "x_1",
      nullable: null,
      either: 3,
      nested: { innerKey: 4 },
      list: [1, 2],
      money: new Money({ amount: 5, currency: "EUR" }),
      record: { a: 1 }
    }
    same(Shape, base)
    same(Shape, { ...base, maybe: "m", exact: 2, nullable: 7, either: { kind: "b" as const, at: 9 } })
    same(Shape, { ...base, maybe: undefined })
    expect(trusted(Shape)(base)).toMatchObject({ nested_key: { inner_key: "t4" }, either: "t3", list: ["t1", "t2"], record: { a: "t1" } })
  })
})
