/**
 * Prefixed, sortable identifiers (`cmp_01JD…`): 10 characters of millisecond time and
 * 16 of randomness in Crockford base 32, so ids sort by creation time and never reveal
 * a sequence. Generation is monotonic within one process and reads time from `Clock`.
 *
 * Each kind of id is declared once, by its module, with `Id.kind(prefix, brand)`: a
 * branded type, its schema, a generator and a shape check. A string that is not shaped
 * like an id of the kind can never name a row, so routes answer 404 for it without a query
 * (`Id.lookup`).
 */
import { type Brand, Clock, Effect, Option, Schema } from "effect"
import { ResourceNotFound } from "./Errors.js"

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/

let lastTime = 0
let lastRandom: Array<number> = []

/** Random bytes drawn from the system's generator 4 KiB at a time (one call per 256 ids, not one per id). */
const pool = new Uint8Array(4096)
let drawn = pool.length

const randomChars = (): Array<number> => {
  if (drawn + 16 > pool.length) {
    globalThis.crypto.getRandomValues(pool)
    drawn = 0
  }
  const out = new Array<number>(16)
  for (let i = 0; i < 16; i++) out[i] = pool[drawn + i] & 31
  drawn += 16
  return out
}

const encodeTime = (time: number): string => {
  let out = ""
  for (let i = 9; i >= 0; i--) {
    const mod = time % 32
    out = ALPHABET[mod] + out
    time = (time - mod) / 32
  }
  return out
}

/** A new id with the given prefix at time `now` (epoch ms). Prefer a kind's `generate`. */
export const unsafeMake = (prefix: string, now: number): string => {
  let random: Array<number>
  if (now <= lastTime && lastRandom.length > 0) {
    // same millisecond (or clock went back): increment the previous randomness
    now = lastTime
    random = lastRandom.slice()
    for (let i = random.length - 1; i >= 0; i--) {
      if (random[i] < 31) {
        random[i]++
        break
      }
      random[i] = 0
    }
  } else {
    random = randomChars()
  }
  lastTime = now
  lastRandom = random
  return `${prefix}_${encodeTime(now)}${random.map((n) => ALPHABET[n]).join("")}`
}

/** A new id with the given prefix, timed by `Clock`. */
export const generate = (prefix: string): Effect.Effect<string> => Effect.map(Clock.currentTimeMillis, (now) => unsafeMake(prefix, now))

/** Whether `id` is shaped like an id of this prefix (says nothing about existence). */
export const isShaped = (prefix: string, id: string): boolean =>
  id.length === prefix.length + 27 && id.startsWith(`${prefix}_`) && BODY.test(id.slice(prefix.length + 1))

/** One kind of id: `cmp_…` is a `CampaignId`. */
export interface Kind<A extends string> {
  readonly prefix: string
  /** Decodes a string shaped like this kind's ids (400 for anything else in a body). */
  readonly schema: Schema.Schema<A, string>
  /** A new id, timed by `Clock`. */
  readonly generate: Effect.Effect<A>
  /** Whether `s` is shaped like an id of this kind. */
  readonly is: (s: string) => s is A
}

/** The branded type of a kind: `type CampaignId = Id.Of<typeof CampaignId>`. */
export type Of<K> = K extends Kind<infer A> ? A : never

/** Declares a kind of id: its prefix and the brand of its type. */
export const kind = <const B extends string>(prefix: string, brand: B): Kind<string & Brand.Brand<B>> => {
  const schema = Schema.String.pipe(
    Schema.filter((s) => isShaped(prefix, s) || `must be an id starting with ${prefix}_`),
    Schema.brand(brand)
  ).annotations({ identifier: brand })
  type A = typeof schema.Type
  return {
    prefix,
    schema,
    generate: Effect.map(Clock.currentTimeMillis, (now) => unsafeMake(prefix, now) as A),
    is: (s: string): s is A => isShaped(prefix, s)
  }
}

/** What a `find` found, or `ResourceNotFound` of `resource` (named `id`) when it found none. */
export const orNotFound =
  (resource: string, id: string) =>
  <B>(found: Option.Option<B>): Effect.Effect<B, ResourceNotFound> =>
    Option.match(found, { onNone: () => Effect.fail(new ResourceNotFound({ resource, id })), onSome: Effect.succeed })

/**
 * The row a path id names, found with `find`, or `ResourceNotFound`: the same answer for a
 * malformed id (without a query), an unknown one and another store's.
 */
export const lookup = <A extends string, B, E, R>(
  kind: Kind<A>,
  resource: string,
  raw: string,
  find: (id: A) => Effect.Effect<Option.Option<B>, E, R>
): Effect.Effect<B, E | ResourceNotFound, R> =>
  kind.is(raw) ? Effect.flatMap(find(raw), orNotFound(resource, raw)) : Effect.fail(new ResourceNotFound({ resource, id: raw }))

/** Random token of `length` characters from [A-Za-z0-9], for keys and secrets. */
export const randomToken = (length: number): string => {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
  const bytes = new Uint8Array(length * 2)
  globalThis.crypto.getRandomValues(bytes)
  let out = ""
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    if (bytes[i] < 248) out += chars[bytes[i] % 62]
  }
  while (out.length < length) out += randomToken(length - out.length)
  return out
}
