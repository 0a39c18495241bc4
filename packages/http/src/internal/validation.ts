/**
 * Validation errors as the API words them: one issue per field path, in words, quoting at
 * most a short prefix of the bad value and never the schema's internal text (`Expected
 * undefined, actual "500"`, `ReadonlyArray<string>`, `{ readonly … }`).
 *
 * And the nesting limit of JSON bodies: the schema library formats a failing value
 * recursively, so a value nested thousands of levels deep would overflow the stack while its
 * error is written. Bodies nested deeper than `MAX_JSON_DEPTH` are refused before decoding.
 */
import type { HttpApiError } from "@effect/platform"
import { Errors } from "@switchboard/domain"
import type { ParseResult } from "effect"

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 128

/** The longest prefix of a bad value an error quotes. */
const QUOTE_CHARS = 40
/** The longest message of one field. */
const MESSAGE_CHARS = 300

const quote = (actual: string): string => (actual.length > QUOTE_CHARS ? `${actual.slice(0, QUOTE_CHARS)}…` : actual)
const cap = (text: string): string => (text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)}…` : text)

/** Whether `bytes`, read as JSON text, nests arrays and objects deeper than `max` (strings skipped). */
export const nestedDeeperThan = (bytes: Uint8Array, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped byte
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

const pathOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("") || "body"

type Said =
  | { readonly _tag: "OneOf"; readonly literals: ReadonlyArray<string>; readonly got: string }
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Text"; readonly text: string }

const LITERALS = /^"[^"]*"(?: \| "[^"]*")*$/

/** What the schema expected, in words; undefined when it is the schema's own text. */
const expectedInWords = (expected: string): string | undefined => {
  if (expected === "string") return "must be a string"
  if (expected === "number") return "must be a number"
  if (expected === "boolean") return "must be true or false"
  if (/^(Readonly)?Array<|^readonly \[|^\[/.test(expected)) return "must be a list"
  if (expected.startsWith("{")) return "must be an object"
  if (/^an? [a-z]/.test(expected) && !/[{}<>|]/.test(expected)) return `must be ${expected}`
  return undefined
}

const said = (issue: ParseResult.ArrayFormatterIssue): Said => {
  if (issue._tag === "Missing") return { _tag: "Text", text: "is required" }
  if (issue._tag === "Unexpected") return { _tag: "Text", text: "is not a known field" }
  const message = issue.message
  const expectation = /^Expected ([\s\S]+?), actual ([\s\S]*)$/.exec(message)
  if (expectation !== null) {
    const [, expected, actual] = expectation
    if (expected === "undefined" || expected === "null") return { _tag: "Absent" }
    if (LITERALS.test(expected)) return { _tag: "OneOf", literals: expected.split(" | ").map((l) => l.slice(1, -1)), got: quote(actual) }
    return { _tag: "Text", text: `${expectedInWords(expected) ?? "has the wrong type or shape"} (got ${quote(actual)})` }
  }
  const unable = /^Unable to decode ([\s\S]*) into an? ([a-z ]+)$/.exec(message)
  if (unable !== null) return { _tag: "Text", text: `must be a ${unable[2]} (got ${quote(unable[1])})` }
  return { _tag: "Text", text: cap(message) }
}

/** One message per path: a failed union of literals reads "must be one of A, B, C (got X)". */
const wordsFor = (issues: ReadonlyArray<Said>): string => {
  const literals = issues.flatMap((s) => (s._tag === "OneOf" ? s.literals : []))
  const got = issues.find((s): s is Extract<Said, { _tag: "OneOf" }> => s._tag === "OneOf")?.got
  const texts = [...new Set(issues.flatMap((s) => (s._tag === "Text" ? [s.text] : [])))]
  const parts = [...(literals.length > 0 ? [`must be one of ${[...new Set(literals)].join(", ")} (got ${got})`] : []), ...texts]
  return parts.length > 0 ? parts.join("; ") : "must not be given"
}

/** The platform's decode error (path, query, headers or body) as our `validation_failed`. */
export const fromDecodeError = (e: HttpApiError.HttpApiDecodeError): Errors.ValidationFailed => {
  if (e.issues.length === 0) return Errors.ValidationFailed.of("body", "is not valid")
  const byPath = new Map<string, Array<Said>>()
  for (const issue of e.issues) {
    const path = pathOf(issue.path)
    byPath.set(path, [...(byPath.get(path) ?? []), said(issue)])
  }
  // an optional or nullable field whose value failed inside: its `undefined`/`null` branch
  // ("must not be given") says nothing the inner issues do not say better
  const explainedInside = (path: string, issues: ReadonlyArray<Said>) =>
    issues.every((s) => s._tag === "Absent") && [...byPath.keys()].some((other) => other.startsWith(`${path}.`) || other.startsWith(`${path}[`))
  return Errors.ValidationFailed.all(
    [...byPath].filter(([path, issues]) => !explainedInside(path, issues)).map(([path, issues]) => ({ path, message: wordsFor(issues) }))
  )
}

/** A `ValidationFailed` from anywhere, with every message capped (a use case may quote what it was sent). */
export const capped = (e: Errors.ValidationFailed): Errors.ValidationFailed =>
  e.message.length <= 2 * MESSAGE_CHARS && e.details.every((d) => d.message.length <= MESSAGE_CHARS && d.path.length <= MESSAGE_CHARS)
    ? e
    : e.details.length === 0
      ? new Errors.ValidationFailed({ message: cap(e.message), details: [] })
      : Errors.ValidationFailed.all(e.details.map((d) => ({ ...d, path: cap(d.path), message: cap(d.message) })))
