/**
 * `FlowCrypto.secretOf`: the secret of a flow's forwards, derived from the server's secret and
 * kept per `FlowCrypto` once derived: the same text as derived anew, and never another
 * server's (another `FlowCrypto`).
 */
import { describe, expect, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import { type FlowCrypto, secretOf } from "../src/flows/FlowCrypto.js"

const cryptoWith = (secret: string) => {
  const calls: Array<string> = []
  const crypto = {
    sign: (data: string) => {
      calls.push(data)
      return createHmac("sha256", secret).update(data).digest("base64url")
    }
  } as unknown as FlowCrypto["Type"]
  return { crypto, calls }
}

/** The derivation, written out: the HMAC in base64 with its padding, after `whsec_`. */
const expected = (secret: string, flowId: string) => `whsec_${createHmac("sha256", secret).update(`endpoint:${flowId}`).digest("base64")}`

describe("FlowCrypto.secretOf", () => {
  it("answers the derived secret, derived once per flow and server", () => {
    const a = cryptoWith("server-a")
    const b = cryptoWith("server-b")
    for (const flowId of ["flw_1", "flw_2", "flw_1", "flw_3", "flw_2"]) {
      expect(secretOf(a.crypto, flowId)).toBe(expected("server-a", flowId))
      expect(secretOf(b.crypto, flowId)).toBe(expected("server-b", flowId))
    }
    expect(a.calls).toEqual(["endpoint:flw_1", "endpoint:flw_2", "endpoint:flw_3"])
    expect(b.calls).toEqual(["endpoint:flw_1", "endpoint:flw_2", "endpoint:flw_3"])
    expect(secretOf(a.crypto, "flw_1")).not.toBe(secretOf(b.crypto, "flw_1"))
  })
})
