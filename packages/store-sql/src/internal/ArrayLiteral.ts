/**
 * PostgreSQL array literals (`{"a","b",NULL}`), written in one pass for a bulk statement's
 * column arrays: the text pg's driver would send for a JS array (every element quoted, `\`
 * and `"` escaped, null as NULL), without its per-element checks and replaces. Bound as text
 * and cast (`$1::text[]`, `$1::bigint[]`), the server reads the same array. When no element
 * is null or needs escaping (ids, phones, statuses), the literal is one `join`: a flat
 * string, not a chain of thousands of concatenations for the collector.
 */

const SPECIAL = /[\\"]/

/** The literal of a text array: each element quoted, `\` and `"` escaped; null is NULL. */
export const textArray = (values: ReadonlyArray<string | null>): string => {
  if (values.length === 0) return "{}"
  let plain = true
  for (let i = 0; i < values.length && plain; i++) {
    const v = values[i]
    plain = v !== null && !SPECIAL.test(v)
  }
  if (plain) return `{"${values.join('","')}"}`
  const quoted = new Array<string>(values.length)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    quoted[i] = v === null ? "NULL" : `"${SPECIAL.test(v) ? v.replace(/[\\"]/g, "\\$&") : v}"`
  }
  return `{${quoted.join(",")}}`
}

/** The literal of an integer array (finite integers); null is NULL. */
export const integerArray = (values: ReadonlyArray<number | null>): string => {
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null) return `{${values.map((v) => (v === null ? "NULL" : String(v))).join(",")}}`
  }
  return `{${values.join(",")}}`
}
