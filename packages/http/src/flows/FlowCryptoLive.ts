/**
 * The domain's `FlowCrypto` with `node:crypto`: HMAC-SHA256 with the server's secret
 * (`SWITCHBOARD_FLOW_SECRET`; without it, a random secret per process, so preview links
 * then hold only until the process restarts and only on the process that made them).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { FlowCrypto } from "@switchboard/domain"
import { Config, Effect, Layer, Option } from "effect"

export const make = (secret: string): FlowCrypto.FlowCrypto["Type"] => {
  const sign = (data: string) => createHmac("sha256", secret).update(data).digest("base64url")
  return FlowCrypto.FlowCrypto.of({
    sign,
    verify: (data, signature) => {
      const expected = Buffer.from(sign(data))
      const given = Buffer.from(signature)
      return expected.length === given.length && timingSafeEqual(expected, given)
    }
  })
}

export const layer = Layer.effect(
  FlowCrypto.FlowCrypto,
  Effect.map(Config.string("SWITCHBOARD_FLOW_SECRET").pipe(Config.option, Effect.orElseSucceed(Option.none)), (secret) =>
    make(Option.getOrElse(secret, () => randomBytes(32).toString("hex")))
  )
)
