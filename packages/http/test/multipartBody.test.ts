/**
 * The spooled multipart body's two streaming checks, over every way a body can be cut into
 * chunks: the closing delimiter is found wherever the chunks split it (and only when it is
 * there), and the idempotency hash of a form is the same whatever its boundary.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { boundaryFree, boundaryOf, finder } from "../src/internal/multipartBody.js"

const form = (boundary: string, closed = true) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n` +
  `retailer_id,name\nA,--X not a delimiter\n\r\n--${boundary}${closed ? "--\r\n" : "\r\n"}`

/** `body` cut at `cuts` (sorted offsets). */
const chunked = (body: Buffer, cuts: ReadonlyArray<number>): Array<Buffer> => {
  const out: Array<Buffer> = []
  let from = 0
  for (const at of [...cuts, body.length]) {
    out.push(body.subarray(from, at))
    from = at
  }
  return out
}

const closedIn = (chunks: ReadonlyArray<Buffer>, boundary: string) => {
  const f = finder(Buffer.from(`\r\n--${boundary}--`), Buffer.from("\r\n"))
  for (const c of chunks) f.push(c)
  return f.found()
}

const hashOf = (chunks: ReadonlyArray<Buffer>, boundary: string) => {
  const hash = createHash("sha256")
  const b = boundaryFree(hash, Buffer.from(`--${boundary}`))
  for (const c of chunks) b.push(c)
  b.end()
  return hash.digest("hex")
}

/** Every cut into two and three pieces, and one-byte chunks. */
const cuttings = (length: number): Array<Array<number>> => {
  const out: Array<Array<number>> = [[], Array.from({ length: length - 1 }, (_, i) => i + 1)]
  for (let i = 1; i < length; i++) out.push([i])
  for (let i = 1; i < length; i += 7) for (let j = i + 1; j < length; j += 5) out.push([i, j])
  return out
}

describe("spooled multipart bodies", () => {
  it("reads the boundary of a content type, quoted or not", () => {
    expect(boundaryOf("multipart/form-data; boundary=bnd")).toBe("bnd")
    expect(boundaryOf('multipart/form-data; boundary="a b"; charset=utf-8')).toBe("a b")
    expect(boundaryOf("multipart/form-data")).toBeUndefined()
  })

  it("finds the closing delimiter however the chunks split it, and only when it is there", () => {
    for (const closed of [true, false]) {
      const body = Buffer.from(form("XyZ123", closed))
      for (const cuts of cuttings(body.length)) expect(closedIn(chunked(body, cuts), "XyZ123")).toBe(closed)
    }
    // a form of no part at all, starting with its closing delimiter
    expect(closedIn([Buffer.from("--bnd--\r\n")], "bnd")).toBe(true)
    expect(closedIn([Buffer.from("")], "bnd")).toBe(false)
  })

  it("hashes a form the same whatever its boundary and its chunks, and another form differently", () => {
    const one = hashOf([Buffer.from(form("first-boundary"))], "first-boundary")
    const body = Buffer.from(form("b2"))
    for (const cuts of cuttings(body.length)) expect(hashOf(chunked(body, cuts), "b2")).toBe(one)
    expect(hashOf([Buffer.from(form("b2").replace("A,", "B,"))], "b2")).not.toBe(one)
  })
})
