/**
 * The admin handlers, and the admin token's check: `SWITCHBOARD_ADMIN_TOKEN`, read once,
 * compared in constant time; unset, every admin route answers 401.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Errors, Inspection, Stores } from "@switchboard/domain"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { apiOf } from "../internal/Handlers.js"
import { AdminAuthentication, AdminGroup } from "./Api.js"

const digest = (s: string) => createHash("sha256").update(s).digest()

/** The admin token's check (401 when it is missing, wrong, or no token is configured). */
export const layerAuthentication = Layer.effect(
  AdminAuthentication,
  Effect.gen(function* () {
    const configured = yield* Config.option(Config.redacted("SWITCHBOARD_ADMIN_TOKEN")).pipe(Effect.orDie)
    const expected = Option.map(
      Option.filter(configured, (t) => Redacted.value(t) !== ""),
      (t) => digest(Redacted.value(t))
    )
    const refused = new Errors.Unauthorized({
      message: Option.isNone(expected)
        ? "Admin sign-in is off: the server has no SWITCHBOARD_ADMIN_TOKEN"
        : "Missing or invalid admin token: send Authorization: Bearer <SWITCHBOARD_ADMIN_TOKEN>"
    })
    return AdminAuthentication.of({
      adminToken: (token) =>
        Option.isSome(expected) && timingSafeEqual(digest(Redacted.value(token)), expected.value) ? Effect.void : Effect.fail(refused)
    })
  })
)

export const AdminLive = HttpApiBuilder.group(apiOf(AdminGroup), "admin", (h) =>
  h
    .handle("stores", () =>
      Effect.map(Stores.list, (stores) => ({
        stores: stores.map(({ store, keys }) => ({
          id: store.id,
          name: store.name,
          createdAt: store.createdAt,
          displayPhoneNumber: (store.live ?? store.sandbox).displayPhoneNumber,
          live: store.live !== null,
          keys: keys.map((k) => ({ id: k.id, hint: k.hint, mode: k.mode, createdAt: k.createdAt, expiresAt: k.expiresAt }))
        }))
      }))
    )
    .handle("rotateKey", ({ path, payload }) =>
      Effect.map(Stores.rotateKey({ storeId: path.id, mode: payload.mode, graceMs: payload.graceSeconds * 1000 }), (r) => ({
        key: r.key,
        id: r.record.id,
        mode: r.record.mode,
        oldKeysExpireAt: r.oldKeysExpireAt,
        expiring: r.expiring
      }))
    )
    .handle("jobs", () => Inspection.jobs)
    .handle("inbox", ({ urlParams }) => Inspection.inbox(urlParams.limit))
).pipe(Layer.provide(layerAuthentication))
