/**
 * PostgreSQL array literals (`{"a","b",NULL}`), written in one pass for a bulk statement's
 * column arrays: the text pg's driver would send for a JS array (every element quoted, `\`
 * and `"` escaped, null as NULL), without its per-element checks and replaces. Bound as text
 * and cast (`$1::text[]`, `$1::bigint[]`), the server reads the same array.
 */

const SPECIAL = /[\\"]/

/** The literal of a text array: each element quoted, `\` and `"` escaped; null is NULL. */
export const textArray = (values: ReadonlyArray<string | null>): string => {
  let out = "{"
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (i > 0) out += ","
    if (v === null) out += "NULL"
    else out += `"${SPECIAL.test(v) ? v.replace(/[\\"]/g, "\\$&") : v}"`
  }
  return `${out}}`
}

/** The literal of an integer array (finite integers); null is NULL. */
export const integerArray = (values: ReadonlyArray<number | null>): string => {
  let out = "{"
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (i > 0) out += ","
    out += v === null ? "NULL" : String(v)
  }
  return `${out}}`
}
