import { ParseResult, Schema } from "effect"

/** `limit` query parameter: 1..100, default 25. Accepts the string form of query strings. */
export const Limit = Schema.optionalWith(
  Schema.NumberFromString.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(1, 100, { message: () => "must be between 1 and 100" })
  ).annotations({ jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 25, description: "Items per page (1–100, default 25)" } }),
  { default: () => 25 }
)

/** What a repository answers for one page: up to `limit` rows and whether more follow. */
export interface Slice<A> {
  readonly items: ReadonlyArray<A>
  readonly hasMore: boolean
}

/** What the API answers for a list. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly next_cursor: string | null
}

/** The repository-side request: rows strictly after `after` (an id), at most `limit`. */
export interface PageRequest {
  readonly limit: number
  readonly after?: string | undefined
}

/** `PageRequest.limit` plus one row to learn whether more follow. */
export const sliceOf = <A>(rows: ReadonlyArray<A>, limit: number): Slice<A> => ({
  items: rows.length > limit ? rows.slice(0, limit) : rows,
  hasMore: rows.length > limit
})

// ---------------------------------------------------------------------------------------
// the list vocabulary of the API, defined once

const base64url = {
  encode: (s: string): string => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  decode: (s: string): string | undefined => {
    try {
      return atob(s.replace(/-/g, "+").replace(/_/g, "/"))
    } catch {
      return undefined
    }
  }
}

const notOurs = "is not a cursor this API issued"

/**
 * A typed cursor: opaque base64url text outside, the position after which the next page
 * starts inside (an id of the list's kind, a sequence number...). Text we did not issue
 * fails to decode: 400 `validation_failed` naming `cursor`.
 */
export const Cursor = <A>(position: Schema.Schema<A, string>): Schema.Schema<A, string> =>
  Schema.transformOrFail(Schema.String, Schema.typeSchema(position), {
    strict: true,
    decode: (text, _, ast) => {
      const raw = base64url.decode(text)
      if (raw === undefined) return ParseResult.fail(new ParseResult.Type(ast, text, notOurs))
      return ParseResult.decodeUnknown(position)(raw).pipe(ParseResult.mapError(() => new ParseResult.Type(ast, text, notOurs)))
    },
    encode: (a) => ParseResult.map(ParseResult.encode(position)(a), base64url.encode)
  }).annotations({ identifier: "Cursor", description: "The `next_cursor` of the previous page" })

/**
 * The query of a list: `limit` (1–100, default 25), `cursor`, and the list's filters. The
 * cursor is exact-optional, so a cursor we did not issue fails with the one issue
 * "is not a cursor this API issued" (not also "Expected undefined").
 */
export const ListParams = <A, F extends Schema.Struct.Fields>(position: Schema.Schema<A, string>, filters: F) =>
  Schema.Struct({ ...filters, limit: Limit, cursor: Schema.optionalWith(Cursor(position), { exact: true }) })

/** What a list answers: `{"data": [...], "next_cursor": "…" | null}`. */
export const PageOf = <A, I, R>(item: Schema.Schema<A, I, R>, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String) }).annotations({ identifier })

/**
 * The cursor encoder of each position schema, made once (a list answers one per request):
 * the position's encoding in base64url, what `Cursor(position)` encodes, without checking
 * the position's type a second time.
 */
const cursorEncoders = new WeakMap<Schema.Schema<any, string>, (position: any) => string>()
const encodeCursor = <P>(position: Schema.Schema<P, string>): ((p: P) => string) => {
  let encode = cursorEncoders.get(position)
  if (encode === undefined) {
    const encodePosition = ParseResult.encodeSync(position)
    encode = (p: P) => base64url.encode(encodePosition(p))
    cursorEncoders.set(position, encode)
  }
  return encode
}

/** A page of a slice: its items as they are (the route's schema renders them), and the cursor after the last. */
export const pageOf = <A, P>(slice: Slice<A>, position: Schema.Schema<P, string>, positionOf: (a: A) => P): Page<A> => ({
  data: slice.items,
  next_cursor: slice.hasMore && slice.items.length > 0 ? encodeCursor(position)(positionOf(slice.items[slice.items.length - 1])) : null
})

/**
 * A page of a list read whole because its parent bounds it (an order's items or payments, a
 * flow's versions), given in ascending order of position: the items after `cursor`, at most
 * `limit`, and the cursor after the last when more follow. An item removed since the cursor
 * was issued does not move the page: the next page starts after its position all the same.
 */
export const pageOfAll = <A, P extends string | number>(
  all: ReadonlyArray<A>,
  query: { readonly limit: number; readonly cursor?: P | undefined },
  position: Schema.Schema<P, string>,
  positionOf: (a: A) => P
): Page<A> => {
  const after = query.cursor
  const rest = after === undefined ? all : all.filter((a) => positionOf(a) > after)
  return pageOf(sliceOf(rest.slice(0, query.limit + 1), query.limit), position, positionOf)
}

/**
 * A position that is a sequence number (a recipient's `seq`, an error's place in its
 * batch): `seq:<n>` inside the cursor. `what` names it in the refusal of text that is not one.
 */
export const Sequence = (what: string): Schema.Schema<number, string> =>
  Schema.transformOrFail(Schema.String, Schema.Int, {
    strict: true,
    decode: (text, _, ast) => {
      const m = /^seq:(\d{1,15})$/.exec(text)
      return m === null ? ParseResult.fail(new ParseResult.Type(ast, text, `is not a ${what} position`)) : ParseResult.succeed(Number(m[1]))
    },
    encode: (seq) => ParseResult.succeed(`seq:${seq}`)
  })
