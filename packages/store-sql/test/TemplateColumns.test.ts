import { describe, expect, it } from "vitest"
import * as Columns from "../src/internal/Columns.js"
import { componentsColumn, StoredComponents, templateColumns } from "../src/templates/Tables.js"

const schemaColumn = Columns.json(StoredComponents)

/** What `fromRow` answers or throws (its message), to compare the two readers. */
const outcome = (read: (c: string) => unknown, c: string) => {
  try {
    return { value: read(c) }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

describe("the components column", () => {
  it("reads what Columns.json(StoredComponents) reads, and refuses what it refuses with the same error", () => {
    const texts = [
      "[]",
      JSON.stringify([{ type: "BODY", text: "Hello {{1}}", example: { body_text: [["Ana"]] } }]),
      JSON.stringify([
        { type: "HEADER", format: "IMAGE", example: { header_handle: ["4::aW1n"] } },
        { type: "X", deep: [null, 1.5, "é 🚀"] }
      ]),
      ' [ {"type" : "BODY"} ] ',
      '{"type":"BODY"}',
      "null",
      '"text"',
      "12",
      "[unclosed",
      "",
      "not json"
    ]
    for (const text of texts) {
      const ours = outcome(componentsColumn.fromRow, text)
      expect(ours, text).toEqual(outcome(schemaColumn.fromRow, text))
      if ("value" in ours) expect(ours.value).toEqual(JSON.parse(text))
    }
    expect(componentsColumn.toRow([{ type: "BODY", text: "x" }] as never)).toBe(schemaColumn.toRow([{ type: "BODY", text: "x" }] as never))
  })

  it("names the table and the column of a stored value that does not decode", () => {
    const row = { ...templateColumns.toRow({ id: "tpl_1", storeId: "str_1", components: [] } as never), components: '{"type":"BODY"}' }
    expect(() => templateColumns.fromRow(row)).toThrow(Columns.RowDecodeError)
    expect(() => templateColumns.fromRow(row)).toThrow(/templates\.components does not decode/)
  })
})
