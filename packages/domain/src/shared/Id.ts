/**
 * Prefixed, sortable identifiers (`tpl_01JD…`): 10 characters of millisecond time and
 * 16 of randomness in Crockford base 32, so ids sort by creation time and never reveal
 * a sequence. Generation is monotonic within one process.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

let lastTime = 0
let lastRandom: Array<number> = []

const randomChars = (): Array<number> => {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b & 31)
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

/** A new id with the given prefix, e.g. `make("tpl")`. */
export const make = (prefix: string, now: number = Date.now()): string => {
  let random: Array<number>
  if (now <= lastTime) {
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

/** Whether `id` is shaped like an id of this prefix (says nothing about existence). */
export const isShaped = (prefix: string, id: string): boolean =>
  id.length === prefix.length + 27 && id.startsWith(`${prefix}_`) && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id.slice(prefix.length + 1))

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
