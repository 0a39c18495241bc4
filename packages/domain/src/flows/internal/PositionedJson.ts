/**
 * A JSON parser that keeps source positions: each value's span in the text, by its JSON
 * pointer (RFC 6901), so a Flow JSON error can name the lines and columns of the text that
 * was sent. Lines and columns are 1-based; `columnEnd` is the column of the value's last
 * character. Written here because the domain depends on `effect` alone.
 */

export interface Span {
  readonly lineStart: number
  readonly lineEnd: number
  readonly columnStart: number
  readonly columnEnd: number
}

export interface Parsed {
  readonly value: unknown
  /** The span of each value (and of each object member's key, under `pointer + "#key"`). */
  readonly spans: ReadonlyMap<string, Span>
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number
  ) {
    super(`${message} at line ${line}, column ${column}`)
  }
}

/** Escapes one reference token of a JSON pointer. */
export const escapeToken = (token: string | number): string => String(token).replace(/~/g, "~0").replace(/\//g, "~1")

/** The pointer of a path: `["screens", 0, "id"]` is `/screens/0/id`. */
export const pointer = (path: ReadonlyArray<string | number>): string => path.map((t) => `/${escapeToken(t)}`).join("")

const MAX_DEPTH = 200

/** Parses `text` as JSON, with the span of every value; throws `JsonSyntaxError` where the text stops being JSON. */
export const parse = (text: string): Parsed => {
  const spans = new Map<string, Span>()
  let i = 0
  let line = 1
  let lineStartIndex = 0

  const column = (index: number) => index - lineStartIndex + 1
  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, line, column(i))
  }
  const skipSpace = () => {
    for (;;) {
      const c = text.charCodeAt(i)
      if (c === 10) {
        i++
        line++
        lineStartIndex = i
      } else if (c === 32 || c === 9 || c === 13) i++
      else return
    }
  }
  const literal = (word: string, value: unknown) => {
    if (text.startsWith(word, i)) {
      i += word.length
      return value
    }
    return fail(`Unexpected token '${text[i]}'`)
  }
  const string = (): string => {
    const start = i
    i++
    let out = ""
    for (;;) {
      if (i >= text.length) {
        i = start
        return fail("Unterminated string")
      }
      const c = text[i]
      if (c === '"') {
        i++
        return out
      }
      if (c === "\n") return fail("Unescaped line break in string")
      if (c === "\\") {
        const e = text[i + 1]
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }
        if (e in simple) {
          out += simple[e]
          i += 2
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16))
          i += 6
        } else {
          i++
          return fail("Bad escape in string")
        }
      } else {
        out += c
        i++
      }
    }
  }
  const number = (): number => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))
    if (match === null || match[0].length === 0) return fail(`Unexpected token '${text[i]}'`)
    i += match[0].length
    return Number(match[0])
  }
  const value = (path: string, depth: number): unknown => {
    if (depth > MAX_DEPTH) return fail("JSON nested too deeply")
    skipSpace()
    const startLine = line
    const startColumn = column(i)
    let result: unknown
    const c = text[i]
    if (c === "{") {
      i++
      const object: Record<string, unknown> = {}
      skipSpace()
      if (text[i] === "}") i++
      else {
        for (;;) {
          skipSpace()
          if (text[i] !== '"') fail("Expected a property name in double quotes")
          const keyLine = line
          const keyColumn = column(i)
          const key = string()
          const member = `${path}/${escapeToken(key)}`
          spans.set(`${member}#key`, { lineStart: keyLine, lineEnd: line, columnStart: keyColumn, columnEnd: column(i) - 1 })
          skipSpace()
          if (text[i] !== ":") fail("Expected ':' after a property name")
          i++
          Object.defineProperty(object, key, { value: value(member, depth + 1), enumerable: true, writable: true, configurable: true })
          skipSpace()
          if (text[i] === ",") {
            i++
            continue
          }
          if (text[i] === "}") {
            i++
            break
          }
          fail("Expected ',' or '}' after a property value")
        }
      }
      result = object
    } else if (c === "[") {
      i++
      const array: Array<unknown> = []
      skipSpace()
      if (text[i] === "]") i++
      else {
        for (;;) {
          array.push(value(`${path}/${array.length}`, depth + 1))
          skipSpace()
          if (text[i] === ",") {
            i++
            continue
          }
          if (text[i] === "]") {
            i++
            break
          }
          fail("Expected ',' or ']' after an array element")
        }
      }
      result = array
    } else if (c === '"') result = string()
    else if (c === "t") result = literal("true", true)
    else if (c === "f") result = literal("false", false)
    else if (c === "n") result = literal("null", null)
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) result = number()
    else fail(c === undefined ? "Unexpected end of JSON" : `Unexpected token '${c}'`)
    spans.set(path, { lineStart: startLine, lineEnd: line, columnStart: startColumn, columnEnd: column(i) - 1 })
    return result
  }
  const result = value("", 0)
  skipSpace()
  if (i < text.length) fail(`Unexpected token '${text[i]}' after the JSON value`)
  return { value: result, spans }
}

/** The span of `path`, or of its nearest ancestor that has one (a missing property is placed on its parent). */
export const spanOf = (spans: ReadonlyMap<string, Span>, path: string): Span | undefined => {
  let p = path
  for (;;) {
    const span = spans.get(p)
    if (span !== undefined) return span
    if (p === "") return undefined
    p = p.slice(0, p.lastIndexOf("/"))
  }
}
