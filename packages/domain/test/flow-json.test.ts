// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Flow JSON references are written `${form.x}`, as the operator spells them
/**
 * Flow JSON validation and autoFix on a corpus of valid and broken documents: every valid
 * one passes (as an object and as text) and autoFix leaves it alone; every broken one raises
 * its error at its path, positioned on the very text of that value when sent as a string;
 * autoFix repairs the fixable ones and reports each fix, and leaves the others rejected.
 */
import { describe, expect, it } from "@effect/vitest"
import { FlowJson, FlowJsonFix } from "@switchboard/domain"
import * as fc from "fast-check"
import * as Positioned from "../src/flows/internal/PositionedJson.js"
import { brokenDocs, validDocs } from "./fixtures/flow-json-corpus.js"

/** The value a JSON pointer names, or of its nearest existing ancestor. */
const resolve = (doc: unknown, path: string): unknown => {
  let here: any = doc
  for (const token of path.split("/").slice(1)) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~")
    if (here === null || typeof here !== "object" || !(key in here)) return here
    here = here[key]
  }
  return here
}

/** The text between two 1-based positions (inclusive). */
const textAt = (text: string, e: FlowJson.FlowJsonError): string => {
  const lines = text.split("\n")
  const offset = (line: number, column: number) => lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1
  return text.slice(offset(e.line_start!, e.column_start!), offset(e.line_end!, e.column_end!) + 1)
}

describe("the corpus", () => {
  it("holds at least 40 documents", () => expect(validDocs.length + brokenDocs.length).toBeGreaterThanOrEqual(40))
})

describe("valid Flow JSON", () => {
  for (const [name, make] of validDocs) {
    it(`${name}: no error, as an object and as text; autoFix changes nothing`, () => {
      const doc = make()
      expect(FlowJson.validate(doc)).toEqual([])
      expect(FlowJson.check(JSON.stringify(doc, null, 2)).errors).toEqual([])
      const fixed = FlowJsonFix.autoFix(doc)
      expect(fixed.fixes).toEqual([])
      expect(fixed.doc).toEqual(doc)
    })
  }
})

describe("broken Flow JSON", () => {
  for (const broken of brokenDocs) {
    it(`${broken.name}: ${broken.error} at '${broken.path}', positioned in the text`, () => {
      const doc = broken.doc()
      const errors = FlowJson.validate(doc)
      expect(errors.map((e) => [e.error, e.path])).toContainEqual([broken.error, broken.path])
      const text = JSON.stringify(doc, null, 2)
      const sent = FlowJson.check(text)
      const error = sent.errors.find((e) => e.error === broken.error && e.path === broken.path)!
      expect(error.line_start).toBeGreaterThan(0)
      // the span is exactly the text of the value at the path (or of its parent when missing)
      expect(JSON.parse(textAt(text, error))).toEqual(resolve(doc, broken.path))
    })
    it(`${broken.name}: autoFix ${broken.fixable ? "repairs it" : "cannot repair it"}`, () => {
      const { doc, fixes } = FlowJsonFix.autoFix(broken.doc())
      const remaining = FlowJson.validate(doc)
      if (broken.fixable) {
        expect(fixes.length).toBeGreaterThan(0)
        expect(remaining).toEqual([])
        for (const f of fixes) expect(f).toMatchObject({ path: expect.any(String), fix: expect.any(String) })
        // a second pass finds nothing more to fix
        expect(FlowJsonFix.autoFix(doc).fixes).toEqual([])
      } else {
        expect(remaining.length).toBeGreaterThan(0)
      }
    })
  }
})

describe("autoFix details", () => {
  it("renames a screen and every reference to it", () => {
    const broken = brokenDocs.find((b) => b.name === "lower case screen ids everywhere")!
    const { doc, fixes } = FlowJsonFix.autoFix(broken.doc()) as { doc: any; fixes: ReadonlyArray<FlowJsonFix.Fix> }
    expect(fixes.filter((f) => f.fix === "rename_screen").map((f) => [f.before, f.after])).toEqual([
      ["question_one", "QUESTION_ONE"],
      ["question two", "QUESTION_TWO"]
    ])
    expect(doc.screens[0].layout.children[0].children[1]["on-click-action"].next.name).toBe("QUESTION_TWO")
    expect(doc.screens[1].layout.children[0].children[3]["on-click-action"].payload.first).toBe("${screen.QUESTION_ONE.form.source}")
  })
  it("derives routing_model from the navigate actions", () => {
    const broken = brokenDocs.find((b) => b.name === "no routing_model with data_exchange")!
    const { doc, fixes } = FlowJsonFix.autoFix(broken.doc()) as { doc: any; fixes: ReadonlyArray<FlowJsonFix.Fix> }
    expect(doc.routing_model).toEqual({ APPOINTMENT: ["DETAILS"], DETAILS: [], SUMMARY: [] })
    expect(fixes.map((f) => f.fix)).toEqual(["add_routing_model"])
  })
  it("adds a completing Footer with every input of the terminal screen", () => {
    const broken = brokenDocs.find((b) => b.name === "terminal without footer")!
    const { doc, fixes } = FlowJsonFix.autoFix(broken.doc()) as { doc: any; fixes: ReadonlyArray<FlowJsonFix.Fix> }
    expect(fixes).toEqual([
      {
        path: "/screens/0/layout/children/4",
        fix: "add_footer",
        before: null,
        after: {
          type: "Footer",
          label: "Submit",
          "on-click-action": {
            name: "complete",
            payload: { first_name: "${form.first_name}", email: "${form.email}", marketing: "${form.marketing}" }
          }
        }
      }
    ])
    expect(doc.screens[0].layout.children[4].type).toBe("Footer")
  })
  it("an endpoint makes data_api_version and routing_model required", () => {
    const doc = validDocs[0][1]()
    expect(FlowJson.validate(doc, { hasEndpoint: true }).map((e) => e.message)).toEqual([
      expect.stringContaining("data_api_version"),
      expect.stringContaining("routing_model")
    ])
    const fixed = FlowJsonFix.autoFix(doc, { hasEndpoint: true })
    expect(FlowJson.validate(fixed.doc, { hasEndpoint: true })).toEqual([])
  })
})

describe("positions", () => {
  it("a syntax error is one error with its line and column", () => {
    const { errors } = FlowJson.check('{\n  "version": "7.3",\n  "screens": [\n    { "id": "A" \n  ]\n}')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ error: "INVALID_JSON", error_type: "JSON_SYNTAX_ERROR", line_start: 5, column_start: 3 })
  })
  it("a hand-written document: the bad version's span", () => {
    const text = '{\n  "version": "1.0",\n  "screens": []\n}'
    const e = FlowJson.check(text).errors.find((x) => x.path === "/version")!
    expect(e).toMatchObject({ line_start: 2, line_end: 2, column_start: 14, column_end: 18 })
  })
  it("the parser reads any JSON as JSON.parse does, with a span for every value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1)
        const parsed = Positioned.parse(text)
        expect(parsed.value).toEqual(JSON.parse(text))
        expect(parsed.spans.get("")).toBeDefined()
      }),
      { numRuns: 200 }
    )
  })
  it("the parser refuses what JSON.parse refuses", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        let native = true
        try {
          JSON.parse(text)
        } catch {
          native = false
        }
        let ours = true
        try {
          Positioned.parse(text)
        } catch {
          ours = false
        }
        expect(ours).toBe(native)
      }),
      { numRuns: 500 }
    )
  })
})
